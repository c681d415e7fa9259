package onager.kernel.params;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Decodes one application/x-www-form-urlencoded name or value: '+' is a space,
 * each run of %XY escapes is bytes in the given charset, any other character
 * stays as it is. It decodes exactly as
 * {@link java.net.URLDecoder#decode(String, Charset)} does, which ring-codec
 * uses, and returns null where that throws (a bad or cut-off escape).
 *
 * <p>URLDecoder decodes each run of escapes on its own, through a StringBuilder.
 * In a charset where every ASCII byte stands for itself and ends any sequence
 * before it (UTF-8, ISO-8859-1, US-ASCII), decoding the whole text as bytes at
 * once gives the same string. So text whose characters all fit in a byte
 * (ASCII, and in UTF-8 the two-byte sequences of U+0080 to U+00FF: most Latin
 * script) is decoded in place in the parser's Latin-1 copy of the text, as the
 * string's own Latin-1 bytes, which go into the String in one copy. Other text
 * in those charsets is decoded as bytes by the JDK's decoder; other charsets,
 * and text with characters beyond Latin-1, take URLDecoder's way.
 */
final class FormDecoding {
  private FormDecoding() {}

  /** Each byte's value as a hex digit, or -1. */
  private static final byte[] HEX = new byte[256];

  static {
    Arrays.fill(HEX, (byte) -1);
    for (int d = 0; d < 10; d++) HEX['0' + d] = (byte) d;
    for (int d = 0; d < 6; d++) {
      HEX['a' + d] = (byte) (10 + d);
      HEX['A' + d] = (byte) (10 + d);
    }
  }

  /**
   * The decoded text of {@code s} from {@code start} to {@code end}, or null.
   *
   * @param text the parser's copy of {@code s} as Latin-1 bytes, at the same
   *     indexes; overwritten from {@code start} to {@code end}
   * @param escape the index of the first '%', or of a '+' (the parser's scan
   *     writes those before the first '%' as spaces)
   * @param wide true when {@code s} has characters beyond Latin-1 there
   *     (which {@code text} shows as '?'); one found here counts too
   */
  static String decode(String s, byte[] text, int start, int escape, int end, Charset charset, boolean wide) {
    boolean utf8 = charset == StandardCharsets.UTF_8;
    boolean latin1 = charset == StandardCharsets.ISO_8859_1;
    if (wide || !(utf8 || latin1 || charset == StandardCharsets.US_ASCII)) return byRuns(s, start, end, charset);
    // Decoded bytes never outrun the text they come from, so they overwrite it as they go.
    int out = escape;
    int i = escape;
    while (i < end) {
      int c = text[i] & 0xff;
      if (c != '%') {
        if (c == '?' && s.charAt(i) != '?') return byRuns(s, start, end, charset);
        // A '+' chosen without a branch of its own: where spaces fall is hard to predict.
        text[out++] = (byte) (c == '+' ? ' ' : c);
        i++;
      } else {
        int b = escape(text, i, end);
        if (b < 0) return null;
        i += 3;
        if (b >= 0x80 && !latin1) {
          // UTF-8's C2 or C3 then a continuation byte: one character up to U+00FF.
          int b2 = utf8 && (b & 0xfe) == 0xc2 && i < end && text[i] == '%' ? escape(text, i, end) : -1;
          if ((b2 & 0xc0) != 0x80) return bytewise(s, text, start, end, charset);
          b = ((b & 0x1f) << 6) | (b2 & 0x3f);
          i += 3;
        }
        text[out++] = (byte) b;
      }
    }
    return latin1(text, start, out - start);
  }

  /**
   * The Latin-1 string of {@code count} bytes from {@code offset}, through the
   * constructor with a high byte, which copies them as they are; new
   * String(bytes, offset, count, ISO_8859_1) gets there through a method too
   * large to inline.
   */
  @SuppressWarnings("deprecation")
  static String latin1(byte[] bytes, int offset, int count) {
    return new String(bytes, 0, offset, count);
  }

  /**
   * The text as bytes in {@code charset}, one of the three that decode them as
   * URLDecoder's runs would, read again from {@code s} (its copy is partly
   * decoded already) into {@code text}; raw characters must then be ASCII.
   */
  private static String bytewise(String s, byte[] text, int start, int end, Charset charset) {
    int out = start;
    int i = start;
    while (i < end) {
      char c = s.charAt(i);
      if (c == '%') {
        int b = escape(s, i, end);
        if (b < 0) return null;
        text[out++] = (byte) b;
        i += 3;
      } else if (c >= 0x80) {
        return byRuns(s, start, end, charset);
      } else {
        text[out++] = (byte) (c == '+' ? ' ' : c);
        i++;
      }
    }
    return new String(text, start, out - start, charset);
  }

  /** As URLDecoder: characters as they are, each run of escapes decoded on its own. */
  private static String byRuns(String s, int start, int end, Charset charset) {
    StringBuilder out = new StringBuilder(end - start);
    byte[] bytes = null;
    int i = start;
    while (i < end) {
      char c = s.charAt(i);
      if (c == '+') {
        out.append(' ');
        i++;
      } else if (c == '%') {
        if (bytes == null) bytes = new byte[(end - i) / 3];
        int n = 0;
        while (i < end && s.charAt(i) == '%') {
          int b = escape(s, i, end);
          if (b < 0) return null;
          bytes[n++] = (byte) b;
          i += 3;
        }
        out.append(new String(bytes, 0, n, charset));
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  /** The byte of the escape at {@code i} (a '%'), or -1 for a bad or cut-off one. */
  private static int escape(byte[] text, int i, int end) {
    if (end - i < 3) return -1;
    int hi = HEX[text[i + 1] & 0xff];
    int lo = HEX[text[i + 2] & 0xff];
    return (hi | lo) < 0 ? -1 : (hi << 4) | lo;
  }

  private static int escape(String s, int i, int end) {
    if (end - i < 3) return -1;
    char a = s.charAt(i + 1);
    char b = s.charAt(i + 2);
    int hi = a <= 0xff ? HEX[a] : -1;
    int lo = b <= 0xff ? HEX[b] : -1;
    return (hi | lo) < 0 ? -1 : (hi << 4) | lo;
  }
}
