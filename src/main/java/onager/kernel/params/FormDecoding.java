package onager.kernel.params;

import java.nio.charset.Charset;

/**
 * Decodes one application/x-www-form-urlencoded name or value: '+' is a space,
 * each run of %XY escapes is bytes in the given charset. It decodes exactly as
 * {@link java.net.URLDecoder#decode(String, Charset)} does, which ring-codec
 * uses, and returns null where that throws (a bad or cut-off escape), but it
 * works on a region of the whole string and cuts no substring for text that
 * needs no decoding.
 */
final class FormDecoding {
  private FormDecoding() {}

  static String decode(String s, int start, int end, Charset charset) {
    int i = start;
    boolean plus = false;
    while (i < end) {
      char c = s.charAt(i);
      if (c == '%') break;
      plus |= c == '+';
      i++;
    }
    if (i == end) return plus ? s.substring(start, end).replace('+', ' ') : s.substring(start, end);
    StringBuilder out = new StringBuilder(end - start);
    out.append(s, start, i);
    if (plus) {
      for (int k = 0; k < out.length(); k++) if (out.charAt(k) == '+') out.setCharAt(k, ' ');
    }
    byte[] bytes = null;
    while (i < end) {
      char c = s.charAt(i);
      if (c == '+') {
        out.append(' ');
        i++;
      } else if (c == '%') {
        if (bytes == null) bytes = new byte[(end - i) / 3];
        int n = 0;
        while (i + 2 < end && s.charAt(i) == '%') {
          int hi = hex(s.charAt(i + 1));
          int lo = hex(s.charAt(i + 2));
          if (hi < 0 || lo < 0) return null;
          bytes[n++] = (byte) ((hi << 4) | lo);
          i += 3;
        }
        if (i < end && s.charAt(i) == '%') return null; // a cut-off escape
        out.append(new String(bytes, 0, n, charset));
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
}
