package onager.kernel.http;

/** RFC 9110 §5.6.2 tokens: header names, transfer codings, methods. */
public final class Tokens {
  private Tokens() {}

  // tchar, as a table: checked for every response header name.
  private static final boolean[] TCHAR = new boolean[128];

  static {
    for (char c = '0'; c <= '9'; c++) TCHAR[c] = true;
    for (char c = 'a'; c <= 'z'; c++) TCHAR[c] = true;
    for (char c = 'A'; c <= 'Z'; c++) TCHAR[c] = true;
    for (char c : "!#$%&'*+-.^_`|~".toCharArray()) TCHAR[c] = true;
  }

  /** True when {@code c} is a tchar. */
  public static boolean isTokenChar(char c) {
    return c < 128 && TCHAR[c];
  }

  /** True when {@code s} is non-empty and all tchars. */
  public static boolean isToken(String s) {
    if (s.isEmpty()) return false;
    for (int i = 0; i < s.length(); i++) {
      if (!isTokenChar(s.charAt(i))) return false;
    }
    return true;
  }
}
