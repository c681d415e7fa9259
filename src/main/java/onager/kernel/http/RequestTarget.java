package onager.kernel.http;

/**
 * The path and query of a request target in origin form ({@code /a/b?q}) or
 * absolute form ({@code http://host/a/b?q}, RFC 9112 §3.2.2), as the decoder
 * lets them through; neither is decoded.
 */
public final class RequestTarget {
  private RequestTarget() {}

  /** The path: "/" for an absolute form without one; the target itself for "*". */
  public static String path(String target) {
    int start = 0;
    if (!target.isEmpty() && target.charAt(0) != '/') {
      int scheme = target.indexOf("://");
      if (scheme >= 0) {
        start = target.indexOf('/', scheme + 3);
        if (start < 0) return "/";
      }
    }
    int query = target.indexOf('?', start);
    if (query < 0) return start == 0 ? target : target.substring(start);
    return target.substring(start, query);
  }

  /** The query, without its '?', or null when the target has none. */
  public static String query(String target) {
    int i = target.indexOf('?');
    return i < 0 ? null : target.substring(i + 1);
  }
}
