package onager.kernel.response;

import clojure.lang.AFn;
import clojure.lang.IKVReduce;
import clojure.lang.Named;
import io.netty.util.AsciiString;
import io.vertx.core.MultiMap;
import java.util.Map;
import onager.kernel.http.Tokens;

/**
 * A response's {@code :headers} value copied into an answer's headers in one pass,
 * and what the pass saw: which headers the handler set itself, and the first
 * Content-Type and Content-Length values.
 *
 * <p>Clojure maps are walked with {@code kvreduce}, this object being both the
 * reducing function and its accumulator, so the copy allocates no entry or
 * iterator objects; other maps are walked through {@code entrySet}.
 *
 * <p>A value may be a string, a collection of values (one header line each, as
 * several Set-Cookie need) or anything else, sent as its {@code str}. Names must
 * be HTTP tokens, and values may hold no control character but tab: CR or LF
 * there would let a value inject headers or a whole response, so such a response
 * is refused with {@link InvalidResponseException}.
 */
public final class ResponseHead extends AFn {
  private final MultiMap into;
  private final HeaderStrings strings = HeaderStrings.forThisThread();

  /** The {@link ResponseMaps} flags of the headers the handler set. */
  public int flags;
  /** The first Content-Type value, or null. */
  public String contentType;
  private String contentLength;

  private ResponseHead(MultiMap into) {
    this.into = into;
  }

  /** Copies {@code headers} (a {@code :headers} value, possibly nil) into {@code into}. */
  public static ResponseHead copy(Object headers, MultiMap into) {
    ResponseHead head = new ResponseHead(into);
    if (headers == null) return head;
    if (headers instanceof IKVReduce kv) {
      kv.kvreduce(head, head);
    } else if (headers instanceof Map<?, ?> map) {
      for (Map.Entry<?, ?> e : map.entrySet()) head.add(e.getKey(), e.getValue());
    } else {
      throw new InvalidResponseException("response :headers must be a map, not " + ResponseMaps.describe(headers));
    }
    return head;
  }

  /** The kvreduce step: the accumulator is this object. */
  @Override
  public Object invoke(Object acc, Object key, Object value) {
    add(key, value);
    return acc;
  }

  /**
   * The Content-Length the handler declared, or -1 when it declared none. A value
   * that is not a length is refused: sent as it is, it would leave the client
   * waiting, or read the next response as this body.
   */
  public long declaredLength() {
    return ResponseMaps.parseLength(contentLength);
  }

  private void add(Object key, Object value) {
    String name;
    CharSequence wireName;
    int flag;
    AsciiString known = key instanceof String s && strings != null ? strings.name(s) : null;
    if (known != null) {
      name = (String) key;
      wireName = known;
      flag = strings.flag(name);
    } else {
      name = headerName(key);
      wireName = name;
      flag = ResponseMaps.flag(name);
      if (strings != null && key instanceof String) strings.checkedName(name, flag);
    }
    if (value == null) return;
    String first;
    if (value instanceof String s) {
      first = s;
      into.add(wireName, wireValue(name, s));
    } else if (value instanceof Iterable<?> values) {
      first = null;
      for (Object v : values) {
        if (v != null) {
          String text = v.toString();
          CharSequence wire = wireValue(name, text);
          if (first == null) first = text;
          into.add(wireName, wire);
        }
      }
    } else {
      first = value.toString();
      into.add(wireName, wireValue(name, first));
    }
    if (flag == ResponseMaps.HAS_CONTENT_TYPE && (flags & flag) == 0) contentType = first;
    if (flag == ResponseMaps.HAS_CONTENT_LENGTH && (flags & flag) == 0) contentLength = first;
    flags |= flag;
  }

  // The value as it goes out, checked: a remembered AsciiString, or the String itself.
  private CharSequence wireValue(String name, String value) {
    if (strings == null) return checkedValue(name, value);
    AsciiString known = strings.value(value);
    if (known != null) return known;
    checkedValue(name, value);
    strings.checkedValue(value);
    return value;
  }

  private static String headerName(Object key) {
    String name;
    if (key instanceof String s) {
      name = s;
    } else if (key instanceof Named n && n.getNamespace() == null) {
      name = n.getName();
    } else {
      throw new InvalidResponseException("response header names must be strings, not " + ResponseMaps.describe(key));
    }
    if (name.isEmpty()) throw new InvalidResponseException("response header name is empty");
    for (int i = 0; i < name.length(); i++) {
      if (!Tokens.isTokenChar(name.charAt(i))) {
        throw new InvalidResponseException("response header name " + ResponseMaps.quote(name)
            + " is not an HTTP token");
      }
    }
    return name;
  }

  private static String checkedValue(String name, String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if ((c < 0x20 && c != '\t') || c == 0x7f || c > 0xff) {
        throw new InvalidResponseException("response header " + name + " has a value with character 0x"
            + Integer.toHexString(c) + ", which cannot be sent: " + ResponseMaps.quote(value));
      }
    }
    return value;
  }
}
