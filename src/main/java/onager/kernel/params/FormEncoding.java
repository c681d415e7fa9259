package onager.kernel.params;

import clojure.lang.Named;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Writes a map of parameters as {@code application/x-www-form-urlencoded}, for
 * a query string or a form body: what {@link FormDecoding} reads. Names are
 * keywords (their name, without the namespace, as Ring's params middleware
 * keywordises them), strings or any value's text; a sequential value repeats
 * its name once per item; nil values are left out. Every byte but RFC 3986's
 * unreserved characters is percent-encoded from UTF-8, a space as {@code %20},
 * which every decoder reads, where {@code +} means a space to form decoders only.
 */
public final class FormEncoding {
  private FormEncoding() {}

  private static final char[] HEX = "0123456789ABCDEF".toCharArray();

  /** {@code params} encoded; an {@link IllegalArgumentException} naming a value that is a map. */
  public static String encode(Map<?, ?> params) {
    StringBuilder out = new StringBuilder(params.size() * 16);
    for (Map.Entry<?, ?> e : params.entrySet()) {
      String name = text(e.getKey());
      Object value = e.getValue();
      if (value instanceof Map) {
        throw new IllegalArgumentException("the value of " + name + " is a map: give a string, a number "
            + "or a sequence of them");
      }
      if (value instanceof Iterable<?> items && !(value instanceof CharSequence)) {
        for (Object item : items) append(out, name, item);
      } else {
        append(out, name, value);
      }
    }
    return out.toString();
  }

  private static void append(StringBuilder out, String name, Object value) {
    if (value == null) return;
    if (!out.isEmpty()) out.append('&');
    escape(out, name);
    out.append('=');
    escape(out, text(value));
  }

  private static String text(Object o) {
    return o instanceof Named n ? n.getName() : String.valueOf(o);
  }

  /** Appends {@code s} percent-encoded. */
  public static void escape(StringBuilder out, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (unreserved(c)) {
        out.append(c);
      } else if (c < 0x80) {
        hex(out, c);
      } else {
        int end = i + 1;
        while (end < s.length() && s.charAt(end) >= 0x80) end++;
        for (byte b : s.substring(i, end).getBytes(StandardCharsets.UTF_8)) hex(out, b & 0xff);
        i = end - 1;
      }
    }
  }

  private static boolean unreserved(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '.' || c == '_' || c == '~';
  }

  private static void hex(StringBuilder out, int b) {
    out.append('%').append(HEX[b >> 4]).append(HEX[b & 0xf]);
  }
}
