package onager.kernel.client;

import clojure.lang.IPersistentMap;
import clojure.lang.Named;
import io.vertx.core.MultiMap;
import java.util.Map;
import onager.kernel.http.Tokens;

/**
 * A request's {@code :headers} map read into header fields: names that are
 * tokens, values that are strings, keywords or collections of them, refusing
 * what would break the request's head.
 */
final class HeaderFields {
  private HeaderFields() {}

  /**
   * The fields of {@code headers}, the {@code :headers} of {@code request} (for
   * the ex-info when one cannot be sent); empty for none.
   */
  static MultiMap of(IPersistentMap request, Object headers) {
    MultiMap out = MultiMap.caseInsensitiveMultiMap();
    if (headers == null) return out;
    if (!(headers instanceof Map<?, ?> given)) {
      throw ClientFailure.invalid(request, "headers", headers, "a map of header names to values");
    }
    for (Map.Entry<?, ?> e : given.entrySet()) {
      Object k = e.getKey();
      String name = k instanceof Named n ? n.getName() : k instanceof String s ? s : null;
      if (name == null || !Tokens.isToken(name)) {
        throw ClientFailure.invalid(request, "headers", headers, "a map whose keys are header names");
      }
      Object v = e.getValue();
      if (v instanceof Iterable<?> values && !(v instanceof CharSequence)) {
        for (Object item : values) out.add(name, value(request, "headers", headers, item));
      } else if (v != null) {
        out.add(name, value(request, "headers", headers, v));
      }
    }
    return out;
  }

  /**
   * {@code v} as a field value, refused (naming {@code key} and its value {@code given})
   * when it holds a CR, LF or NUL, which would end the field or the head (RFC 9110 §5.5).
   */
  static String value(IPersistentMap request, String key, Object given, Object v) {
    String s = v instanceof Named n ? n.getName() : String.valueOf(v);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\r' || c == '\n' || c == 0) {
        throw ClientFailure.invalid(request, key, given, key.equals("headers")
            ? "a map of header values without CR, LF or NUL" : "a string without CR, LF or NUL");
      }
    }
    return s;
  }
}
