package onager.kernel.response;

import clojure.lang.ILookup;
import clojure.lang.Keyword;
import clojure.lang.Named;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Map;
import onager.kernel.http.ContentType;

/** Reads a Ring response map: its status, its headers, its charset. */
public final class ResponseMaps {
  private ResponseMaps() {}

  public static final Keyword STATUS = Keyword.intern("status");
  public static final Keyword HEADERS = Keyword.intern("headers");
  public static final Keyword BODY = Keyword.intern("body");
  /** Ring 1.11's keys of a response that makes its request's connection a WebSocket. */
  public static final Keyword WEBSOCKET_LISTENER = Keyword.intern("ring.websocket", "listener");
  public static final Keyword WEBSOCKET_PROTOCOL = Keyword.intern("ring.websocket", "protocol");

  /** Flags {@link ResponseHead} records: which headers the handler set itself. */
  public static final int HAS_CONTENT_LENGTH = 1;
  public static final int HAS_DATE = 2;
  public static final int HAS_SERVER = 4;
  public static final int HAS_CONTENT_TYPE = 8;
  public static final int HAS_TRANSFER_ENCODING = 16;
  public static final int HAS_CONNECTION = 32;

  public static boolean isResponse(Object response) {
    return response instanceof Map;
  }

  public static Object get(Object response, Keyword key) {
    return response instanceof ILookup l ? l.valAt(key) : ((Map<?, ?>) response).get(key);
  }

  /** The status code; a response without one is 200, as ring-servlet has it. */
  public static int status(Object response) {
    Object s = get(response, STATUS);
    if (s == null) return 200;
    if ((s instanceof Long || s instanceof Integer || s instanceof Short)) {
      long code = ((Number) s).longValue();
      if (code >= 100 && code <= 599) return (int) code;
    }
    throw new InvalidResponseException(
        "response :status must be an integer from 100 to 599, not " + describe(s));
  }

  /** The {@link #HAS_CONTENT_LENGTH}-style flag of header {@code name} (any case), or 0. */
  static int flag(String name) {
    return switch (name.length()) {
      case 4 -> name.equalsIgnoreCase("date") ? HAS_DATE : 0;
      case 6 -> name.equalsIgnoreCase("server") ? HAS_SERVER : 0;
      case 12 -> name.equalsIgnoreCase("content-type") ? HAS_CONTENT_TYPE : 0;
      case 10 -> name.equalsIgnoreCase("connection") ? HAS_CONNECTION : 0;
      case 14 -> name.equalsIgnoreCase("content-length") ? HAS_CONTENT_LENGTH : 0;
      case 17 -> name.equalsIgnoreCase("transfer-encoding") ? HAS_TRANSFER_ENCODING : 0;
      default -> 0;
    };
  }

  // The last Content-Type value looked up and its charset: handlers send the same
  // few values over and over, mostly the very same String. Immutable, so a racy
  // read sees either a whole old entry or a whole new one.
  private record LastCharset(String contentType, Charset charset) {}

  private static LastCharset lastCharset = new LastCharset("", StandardCharsets.UTF_8);

  /**
   * The charset named by a Content-Type value, UTF-8 when it names none (Ring's
   * default for string bodies).
   */
  public static Charset charset(CharSequence contentType) {
    if (contentType == null) return StandardCharsets.UTF_8;
    LastCharset last = lastCharset;
    if (last.contentType == contentType) return last.charset;
    Charset charset = parseCharset(contentType);
    if (contentType instanceof String s) lastCharset = new LastCharset(s, charset);
    return charset;
  }

  private static Charset parseCharset(CharSequence contentType) {
    String name = ContentType.charsetParam(contentType);
    if (name == null) return StandardCharsets.UTF_8;
    if (name.equalsIgnoreCase("utf-8")) return StandardCharsets.UTF_8;
    try {
      return Charset.forName(name);
    } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
      throw new InvalidResponseException("response Content-Type names charset " + quote(name)
          + ", which this JVM does not support");
    }
  }

  /**
   * The value of header {@code name} (any case) in a {@code :headers} value: the
   * first of a collection, the str of anything else; null when absent.
   */
  public static String headerValue(Object headers, String name) {
    if (!(headers instanceof Map<?, ?> map)) return null;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      Object key = e.getKey();
      String k = key instanceof String str ? str : key instanceof Named n ? n.getName() : null;
      if (k != null && k.equalsIgnoreCase(name)) {
        Object v = e.getValue();
        if (v instanceof Iterable<?> values) {
          var it = values.iterator();
          v = it.hasNext() ? it.next() : null;
        }
        return v == null ? null : v.toString();
      }
    }
    return null;
  }

  /**
   * The Content-Length a handler declared in a {@code :headers} value, or -1 when
   * it declared none. A value that is not a length is refused: sent as it is, it
   * would leave the client waiting, or read the next response as this body.
   */
  public static long declaredLength(Object headers) {
    return parseLength(headerValue(headers, "content-length"));
  }

  /** A Content-Length value as a length, -1 for null; refused when it is not a length. */
  static long parseLength(String value) {
    if (value == null) return -1;
    try {
      long n = Long.parseLong(value.trim());
      if (n >= 0) return n;
    } catch (NumberFormatException ignored) {
      // refused below
    }
    throw new InvalidResponseException("response Content-Length " + quote(value) + " is not a length");
  }

  static String describe(Object o) {
    return o == null ? "nil" : o.getClass().getName() + " " + quote(String.valueOf(o));
  }

  static String quote(String s) {
    String shown = s.length() > 80 ? s.substring(0, 80) + "…" : s;
    return '"' + shown.replace("\r", "\\r").replace("\n", "\\n").replace("\0", "\\0") + '"';
  }
}
