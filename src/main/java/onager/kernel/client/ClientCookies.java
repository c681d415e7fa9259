package onager.kernel.client;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.io.IOException;
import java.net.CookieHandler;
import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * A cookie store's part in an exchange, the JDK's {@link CookieHandler}
 * deciding which cookies go where (domain, path, secure, expiry): the cookies
 * for the request's URL join the headers it sends, and each response's
 * Set-Cookie headers, redirects' too, go into the store.
 */
final class ClientCookies {
  private ClientCookies() {}

  /** {@code headers} with the store's cookies for {@code target} added: a copy when there are any. */
  static MultiMap outgoing(CookieHandler store, Target target, MultiMap headers) {
    URI uri = uri(target);
    if (uri == null) return headers;
    Map<String, List<String>> found;
    try {
      found = store.get(uri, Map.of());
    } catch (IOException e) {
      return headers;
    }
    List<String> cookies = found.get("Cookie");
    if (cookies == null || cookies.isEmpty()) return headers;
    MultiMap out = MultiMap.caseInsensitiveMultiMap().addAll(headers);
    String given = out.get(HttpHeaders.COOKIE);
    // RFC 6265 §5.4: one Cookie header, its pairs joined with "; ".
    out.set(HttpHeaders.COOKIE, (given == null ? "" : given + "; ") + String.join("; ", cookies));
    return out;
  }

  /** Keeps the Set-Cookie headers of a response from {@code target}. */
  static void incoming(CookieHandler store, Target target, MultiMap responseHeaders) {
    List<String> set = responseHeaders.getAll(HttpHeaders.SET_COOKIE);
    if (set.isEmpty()) return;
    URI uri = uri(target);
    if (uri == null) return;
    try {
      store.put(uri, Map.of("Set-Cookie", set));
    } catch (IOException | IllegalArgumentException e) {
      // A cookie the store cannot read is not kept, as a browser drops one.
    }
  }

  private static URI uri(Target target) {
    try {
      return URI.create(target.url());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }
}
