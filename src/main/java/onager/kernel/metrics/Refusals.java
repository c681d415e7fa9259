package onager.kernel.metrics;

/**
 * Why the server refused a request itself, as the {@code reason} tag of
 * {@code http.server.requests.refused}: one index per limit, so that the exchange
 * names a refusal by a constant and the meters are made once. No Micrometer type
 * here: the exchange reads these whether or not metrics are on.
 */
public final class Refusals {
  private Refusals() {}

  /** A request that could not be read (400), malformed Content-Length among them. */
  public static final int MALFORMED = 0;
  /** A request target over :max-uri-length (414). */
  public static final int URI_TOO_LONG = 1;
  /** A head over :max-header-size or :max-header-count (431). */
  public static final int HEADERS_TOO_LARGE = 2;
  /** A body over :max-body (413). */
  public static final int BODY_TOO_LARGE = 3;
  /** A head that did not arrive within :header-timeout-ms (408). */
  public static final int HEADER_TIMEOUT = 4;
  /** A body that stalled for :body-timeout-ms (408). */
  public static final int BODY_TIMEOUT = 5;
  /** A handler that answered nothing within :request-timeout-ms (503). */
  public static final int REQUEST_TIMEOUT = 6;
  /** The heap nearly full, over :low-memory-percent (503). */
  public static final int LOW_MEMORY = 7;
  /** A transfer coding other than chunked (501). */
  public static final int NOT_IMPLEMENTED = 8;
  /** An HTTP version other than 1.0 and 1.1 on an HTTP/1 connection (505). */
  public static final int VERSION_NOT_SUPPORTED = 9;

  static final String[] REASONS = {"malformed", "uri-too-long", "headers-too-large", "body-too-large",
      "header-timeout", "body-timeout", "request-timeout", "low-memory", "not-implemented", "version-not-supported"};
  static final int[] STATUSES = {400, 414, 431, 413, 408, 408, 503, 503, 501, 505};

  /** The reason of a refusal the exchange makes before its handler runs, by its status. */
  public static int ofStatus(int status) {
    return switch (status) {
      case 414 -> URI_TOO_LONG;
      case 431 -> HEADERS_TOO_LARGE;
      case 413 -> BODY_TOO_LARGE;
      case 408 -> BODY_TIMEOUT;
      case 501 -> NOT_IMPLEMENTED;
      case 505 -> VERSION_NOT_SUPPORTED;
      default -> MALFORMED;
    };
  }
}
