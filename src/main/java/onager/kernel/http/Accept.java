package onager.kernel.http;

/**
 * Reads an Accept header (RFC 9110 §12.5.1) to tell whether the client takes a
 * media type: the most specific range that matches decides, by its q value.
 */
public final class Accept {
  private Accept() {}

  /**
   * The q value (0 to 1) {@code accept} gives {@code type}/{@code subtype} (lower
   * case); 1 when there is no Accept header, 0 when no range matches.
   */
  public static double quality(String accept, String type, String subtype) {
    if (accept == null || accept.isBlank()) return 1.0;
    int best = -1;
    double q = 0.0;
    int i = 0;
    int len = accept.length();
    while (i < len) {
      int comma = accept.indexOf(',', i);
      int end = comma < 0 ? len : comma;
      int semi = accept.indexOf(';', i);
      int rangeEnd = semi >= 0 && semi < end ? semi : end;
      String range = accept.substring(i, rangeEnd).trim();
      int slash = range.indexOf('/');
      if (slash > 0) {
        String t = range.substring(0, slash).trim();
        String s = range.substring(slash + 1).trim();
        int specificity = -1;
        if (t.equals("*") && s.equals("*")) specificity = 0;
        else if (t.equalsIgnoreCase(type) && s.equals("*")) specificity = 1;
        else if (t.equalsIgnoreCase(type) && s.equalsIgnoreCase(subtype)) specificity = 2;
        if (specificity > best) {
          best = specificity;
          q = qParam(accept, rangeEnd, end);
        }
      }
      i = end + 1;
    }
    return q;
  }

  private static double qParam(String accept, int from, int end) {
    int i = from;
    while (i < end) {
      int semi = accept.indexOf(';', i);
      if (semi < 0 || semi >= end) break;
      int next = accept.indexOf(';', semi + 1);
      int paramEnd = next < 0 || next > end ? end : next;
      String param = accept.substring(semi + 1, paramEnd).trim();
      if (param.length() > 2 && (param.charAt(0) == 'q' || param.charAt(0) == 'Q') && param.charAt(1) == '=') {
        try {
          double q = Double.parseDouble(param.substring(2).trim());
          return Math.max(0.0, Math.min(1.0, q));
        } catch (NumberFormatException e) {
          return 1.0;
        }
      }
      i = paramEnd;
    }
    return 1.0;
  }
}
