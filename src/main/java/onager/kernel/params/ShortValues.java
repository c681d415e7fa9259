package onager.kernel.params;

/**
 * Values too short to be worth a new String each time: empty, one Latin-1
 * character, or two digits (a page, a limit, a flag, a yes or no). They are
 * made once, when the class loads, and shared: a String and its array are two
 * allocations, and in a query string of short values they are most of the
 * parse's cost. No value a request sends is kept: the table is fixed.
 */
final class ShortValues {
  private ShortValues() {}

  private static final String[] ONE = new String[256];
  private static final String[] TWO_DIGITS = new String[100];

  static {
    for (int c = 0; c < ONE.length; c++) ONE[c] = String.valueOf((char) c);
    for (int d = 0; d < TWO_DIGITS.length; d++) TWO_DIGITS[d] = (d < 10 ? "0" : "") + d;
  }

  /**
   * The shared String of the {@code length} Latin-1 bytes of {@code text} from
   * {@code start}, or null when there is none (longer than two, or two that
   * are not digits).
   */
  static String of(byte[] text, int start, int length) {
    if (length > 2) return null;
    if (length == 0) return "";
    if (length == 1) return ONE[text[start] & 0xff];
    int tens = text[start] - '0';
    int ones = text[start + 1] - '0';
    // Both are digits: neither difference is negative (a byte past 0x7f is too) or above 9.
    return (tens | ones) >= 0 && tens <= 9 && ones <= 9 ? TWO_DIGITS[10 * tens + ones] : null;
  }
}
