package onager.kernel.http;

/**
 * Checks a Host header value, or the authority of an absolute-form request
 * target, against RFC 3986's authority without userinfo:
 * {@code host [":" port]}, where host is a registered name, an IPv4 address or
 * a bracketed IP literal. An empty value is allowed (RFC 9112 §3.2). Anything
 * else (spaces, '/', '@', a second host after a comma) is a request that a
 * proxy and this server could route differently, so it is refused.
 */
public final class Authority {
  private Authority() {}

  /**
   * The authority of an absolute-form request target ({@code "a.example:8080"}
   * of {@code "http://a.example:8080/x"}), or null when the target has another
   * form. The decoder lets only those two forms and "*" through.
   */
  public static String ofTarget(String target) {
    if (target.isEmpty() || target.charAt(0) == '/') return null;
    int start = target.indexOf("://");
    if (start < 0) return null;
    start += 3;
    int end = start;
    int n = target.length();
    while (end < n) {
      char c = target.charAt(end);
      if (c == '/' || c == '?' || c == '#') break;
      end++;
    }
    return target.substring(start, end);
  }

  public static void check(String value) {
    int n = value.length();
    int i = 0;
    if (n > 0 && value.charAt(0) == '[') {
      int close = value.indexOf(']');
      if (close < 0) throw bad(value);
      for (i = 1; i < close; i++) {
        char c = value.charAt(i);
        if (!(isUnreserved(c) || c == ':')) throw bad(value);
      }
      i = close + 1;
    } else {
      while (i < n && value.charAt(i) != ':') {
        char c = value.charAt(i);
        if (!isRegNameChar(c)) throw bad(value);
        i++;
      }
    }
    if (i == n) return;
    if (value.charAt(i) != ':' || n - i - 1 > 5) throw bad(value);
    for (i++; i < n; i++) {
      char c = value.charAt(i);
      if (c < '0' || c > '9') throw bad(value);
    }
  }

  // Every Host value of every request passes here: a table, not a chain of tests.
  private static final boolean[] UNRESERVED = table("-._~");
  private static final boolean[] REG_NAME = table("-._~!$&'()*+,;=%");

  private static boolean[] table(String extra) {
    boolean[] t = new boolean[128];
    for (char c = 'a'; c <= 'z'; c++) t[c] = true;
    for (char c = 'A'; c <= 'Z'; c++) t[c] = true;
    for (char c = '0'; c <= '9'; c++) t[c] = true;
    for (int i = 0; i < extra.length(); i++) t[extra.charAt(i)] = true;
    return t;
  }

  private static boolean isUnreserved(char c) {
    return c < 128 && UNRESERVED[c];
  }

  // unreserved, sub-delims or '%' (of a pct-encoded octet)
  private static boolean isRegNameChar(char c) {
    return c < 128 && REG_NAME[c];
  }

  private static RejectedRequestException bad(String value) {
    String shown = value.length() > 64 ? value.substring(0, 64) + "…" : value;
    return new RejectedRequestException(400, "invalid authority \"" + shown + "\" in the Host header or the request target");
  }
}
