package onager.kernel.client;

import java.net.CookieHandler;
import java.util.Map;

/**
 * The client options a request may override under the same keys: its
 * timeouts, redirects, body limit, errors, {@code :as} and cookie store.
 */
public final class RequestDefaults {
  // The timeouts are 0 for none.
  final long connectTimeoutMs;
  final long idleTimeoutMs;
  final long requestTimeoutMs;
  final Redirects redirects;
  final int maxRedirects;
  /** The most a buffered body ({@code :as} other than {@code :stream}) may hold. */
  final long maxBody;
  final boolean throwExceptions;
  final As as;
  /** The client's cookie store; null for none. */
  final CookieHandler cookies;

  private RequestDefaults(Map<?, ?> options) {
    connectTimeoutMs = ClientConfig.number(options, "connect-timeout-ms");
    idleTimeoutMs = ClientConfig.number(options, "idle-timeout-ms");
    requestTimeoutMs = ClientConfig.number(options, "request-timeout-ms");
    redirects = Redirects.of(ClientConfig.given(options, "redirects"));
    maxRedirects = ClientConfig.integer(options, "max-redirects");
    maxBody = ClientConfig.number(options, "max-body");
    throwExceptions = ClientConfig.flag(options, "throw-exceptions?");
    as = As.of(ClientConfig.given(options, "as"));
    cookies = (CookieHandler) options.get(ClientConfig.key("cookie-store"));
    if (redirects == null || as == null) throw new IllegalArgumentException("RequestDefaults: :redirects or :as");
  }

  static RequestDefaults from(Map<?, ?> options) {
    return new RequestDefaults(options);
  }
}
