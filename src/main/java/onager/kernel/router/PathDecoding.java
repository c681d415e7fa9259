package onager.kernel.router;

import java.nio.charset.StandardCharsets;

/**
 * Percent-decoding of a path segment: each run of %XY escapes is UTF-8 bytes. A
 * '+' stays a '+' (it means a space only in forms), and a '%' that starts no
 * escape stays as it is, so that no path fails to decode.
 */
final class PathDecoding {
  private PathDecoding() {}

  static String decode(String path, int start, int end) {
    int pct = path.indexOf('%', start);
    if (pct < 0 || pct >= end) return path.substring(start, end);
    StringBuilder out = new StringBuilder(end - start);
    out.append(path, start, pct);
    byte[] bytes = null;
    int i = pct;
    while (i < end) {
      char c = path.charAt(i);
      if (c == '%' && escapeAt(path, i, end)) {
        if (bytes == null) bytes = new byte[(end - i) / 3];
        int n = 0;
        while (i < end && path.charAt(i) == '%' && escapeAt(path, i, end)) {
          bytes[n++] = (byte) ((hex(path.charAt(i + 1)) << 4) | hex(path.charAt(i + 2)));
          i += 3;
        }
        out.append(new String(bytes, 0, n, StandardCharsets.UTF_8));
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static boolean escapeAt(String s, int i, int end) {
    return i + 2 < end && hex(s.charAt(i + 1)) >= 0 && hex(s.charAt(i + 2)) >= 0;
  }

  private static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
}
