package onager.kernel.http;

import java.util.Locale;

/**
 * Header field names in lower case, as Ring's maps and clj-http's key them:
 * the names most messages carry come back as one shared string each, so that
 * building a header map allocates no name; any other is lower-cased anew.
 * Names are case-insensitive (RFC 9110 §5.1) and ASCII.
 */
public final class HeaderNames {
  private HeaderNames() {}

  private static final String[] KNOWN = {
      // Requests
      "host", "user-agent", "accept", "accept-encoding", "accept-language", "accept-charset", "connection",
      "cookie", "authorization", "proxy-authorization", "origin", "referer", "upgrade", "expect", "range",
      "te", "if-match", "if-none-match", "if-modified-since", "if-unmodified-since", "if-range",
      "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-forwarded-port", "forwarded",
      "x-real-ip", "x-request-id", "dnt", "upgrade-insecure-requests", "sec-websocket-key",
      "sec-websocket-version", "sec-websocket-extensions", "sec-websocket-protocol",
      // Both
      "content-type", "content-length", "content-encoding", "transfer-encoding", "cache-control", "pragma",
      "trailer", "via", "date",
      // Responses
      "server", "set-cookie", "location", "etag", "last-modified", "vary", "expires", "keep-alive",
      "accept-ranges", "age", "allow", "alt-svc", "content-disposition", "content-language", "content-range",
      "link", "retry-after", "www-authenticate", "proxy-authenticate", "strict-transport-security",
      "x-content-type-options", "x-frame-options", "x-xss-protection", "content-security-policy",
      "referrer-policy", "access-control-allow-origin", "access-control-allow-credentials",
      "access-control-allow-headers", "access-control-allow-methods", "access-control-expose-headers",
      "access-control-max-age", "sec-websocket-accept", "x-powered-by",
  };
  // Open addressing, at most half full, so that a miss ends after a probe or two.
  private static final int MASK = 255;
  private static final String[] TABLE = new String[MASK + 1];

  static {
    for (String name : KNOWN) {
      int i = hash(name) & MASK;
      while (TABLE[i] != null) i = (i + 1) & MASK;
      TABLE[i] = name;
    }
  }

  /** {@code name} in lower case: a shared string for a common name. */
  public static String lowerCase(CharSequence name) {
    for (int i = hash(name) & MASK; TABLE[i] != null; i = (i + 1) & MASK) {
      if (sameIgnoringCase(TABLE[i], name)) return TABLE[i];
    }
    return name.toString().toLowerCase(Locale.ROOT);
  }

  // Of the length and the ends only: cheap, and the table's names differ there enough.
  private static int hash(CharSequence s) {
    int n = s.length();
    if (n == 0) return 0;
    int h = n * 31 + (s.charAt(0) | 0x20);
    h = h * 31 + (s.charAt(n - 1) | 0x20);
    return h * 31 + (s.charAt(n / 2) | 0x20);
  }

  private static boolean sameIgnoringCase(String lower, CharSequence name) {
    int n = lower.length();
    if (name.length() != n) return false;
    for (int i = 0; i < n; i++) {
      char c = name.charAt(i);
      if (c >= 'A' && c <= 'Z') c += 'a' - 'A';
      if (c != lower.charAt(i)) return false;
    }
    return true;
  }
}
