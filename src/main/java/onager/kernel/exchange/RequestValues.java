package onager.kernel.exchange;

import clojure.lang.Keyword;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.net.HostAndPort;
import java.util.Locale;
import onager.kernel.http.Authority;
import onager.kernel.http.ContentType;

/** Ring values derived from request fields, made once where they can be shared. */
final class RequestValues {
  private RequestValues() {}

  static final Keyword HTTP = Keyword.intern("http");
  static final Keyword HTTPS = Keyword.intern("https");

  private static final Keyword GET = Keyword.intern("get");
  private static final Keyword POST = Keyword.intern("post");
  private static final Keyword PUT = Keyword.intern("put");
  private static final Keyword DELETE = Keyword.intern("delete");
  private static final Keyword HEAD = Keyword.intern("head");
  private static final Keyword OPTIONS = Keyword.intern("options");
  private static final Keyword PATCH = Keyword.intern("patch");

  static Keyword method(HttpMethod m) {
    if (m == HttpMethod.GET) return GET;
    if (m == HttpMethod.POST) return POST;
    if (m == HttpMethod.PUT) return PUT;
    if (m == HttpMethod.DELETE) return DELETE;
    if (m == HttpMethod.HEAD) return HEAD;
    if (m == HttpMethod.OPTIONS) return OPTIONS;
    if (m == HttpMethod.PATCH) return PATCH;
    // Keyword.intern holds its keywords weakly, so odd methods do not pile up.
    return Keyword.intern(m.name().toLowerCase(Locale.ROOT));
  }

  static String protocol(HttpVersion v) {
    return v == HttpVersion.HTTP_1_1 ? "HTTP/1.1" : v == HttpVersion.HTTP_1_0 ? "HTTP/1.0" : v.text();
  }

  /**
   * The host a request names, for :server-name: its absolute-form target's, which
   * wins over the Host header (RFC 9112 §3.2.2), else the Host header's; null
   * when neither names one. Parsed as Vert.x parses its requests' authority.
   */
  static String namedHost(String target, String hostHeader) {
    String fromTarget = Authority.ofTarget(target);
    String host = hostOf(fromTarget);
    return host != null ? host : hostOf(hostHeader);
  }

  private static String hostOf(String authority) {
    if (authority == null) return null;
    HostAndPort parsed = HostAndPort.parseAuthority(authority, -1);
    return parsed == null || parsed.host().isEmpty() ? null : parsed.host();
  }

  /** The Content-Length header as a Long, or nil when absent. */
  static Long contentLength(String header) {
    if (header == null) return null;
    try {
      return Long.valueOf(header.trim());
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The charset parameter of a Content-Type, as ring-servlet's :character-encoding. */
  static String characterEncoding(String contentType) {
    return ContentType.charsetParam(contentType);
  }
}
