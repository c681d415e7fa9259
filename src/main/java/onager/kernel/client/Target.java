package onager.kernel.client;

import io.vertx.core.net.SocketAddress;
import java.util.Locale;

/**
 * Where a request goes: an absolute http or https URL taken apart. Parsed by
 * hand rather than by {@link java.net.URI}, which refuses much that clients
 * send, while refusing what no request line may carry: spaces and control
 * characters, which could split the request (RFC 9112 §3.2).
 */
final class Target {
  final boolean ssl;
  final String host;
  final int port;
  /** The path and query as they go on the request line: never empty, no fragment. */
  final String pathAndQuery;
  /** user:password from the URL, or null. */
  final String userInfo;
  /**
   * host and port as the address Vert.x connects to: made with the target, which a
   * client keeps while its URL repeats, so that a request does not make it and
   * look at the host again to see whether it is an IP address.
   */
  final SocketAddress server;
  // What url() gives: the parsed text itself when it is already that, else made on first use.
  private String url;

  private Target(boolean ssl, String host, int port, String pathAndQuery, String userInfo, String url,
                 SocketAddress server) {
    this.ssl = ssl;
    this.host = host;
    this.port = port;
    this.pathAndQuery = pathAndQuery;
    this.userInfo = userInfo;
    this.url = url;
    this.server = server;
  }

  /** The target {@code url} names; an {@link IllegalArgumentException} saying what is wrong with it otherwise. */
  static Target parse(String url) {
    for (int i = 0; i < url.length(); i++) {
      char c = url.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        throw new IllegalArgumentException("it has a space or a control character at index " + i
            + " (percent-encode it)");
      }
    }
    int colon = url.indexOf("://");
    if (colon < 0) throw new IllegalArgumentException("it is not an absolute http or https URL");
    String scheme = url.substring(0, colon).toLowerCase(Locale.ROOT);
    boolean ssl = switch (scheme) {
      case "http" -> false;
      case "https" -> true;
      default -> throw new IllegalArgumentException("its scheme is not http or https");
    };
    int start = colon + 3;
    int end = start;
    while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) end++;
    String authority = url.substring(start, end);
    String userInfo = null;
    int at = authority.lastIndexOf('@');
    if (at >= 0) {
      userInfo = authority.substring(0, at);
      authority = authority.substring(at + 1);
    }
    String host;
    int port = defaultPort(ssl);
    String portText = null;
    if (authority.startsWith("[")) {
      int close = authority.indexOf(']');
      if (close < 0) throw new IllegalArgumentException("its IPv6 address has no closing ]");
      host = authority.substring(1, close);
      if (close + 1 < authority.length()) {
        if (authority.charAt(close + 1) != ':') throw new IllegalArgumentException("its host is not followed by :port");
        portText = authority.substring(close + 2);
      }
    } else {
      int c = authority.indexOf(':');
      host = c < 0 ? authority : authority.substring(0, c);
      if (c >= 0) portText = authority.substring(c + 1);
    }
    if (host.isEmpty()) throw new IllegalArgumentException("it has no host");
    if (portText != null && !portText.isEmpty()) {
      try {
        port = Integer.parseInt(portText);
      } catch (NumberFormatException e) {
        port = -1;
      }
      if (port < 1 || port > 65535) throw new IllegalArgumentException("its port is not from 1 to 65535");
    }
    int hash = url.indexOf('#', end);
    String rest = hash < 0 ? url.substring(end) : url.substring(end, hash);
    boolean portAsWritten = portText == null
        || (!portText.isEmpty() && portText.charAt(0) != '0' && port != defaultPort(ssl));
    boolean asWritten = hash < 0 && userInfo == null && portAsWritten && url.startsWith(scheme)
        && !rest.isEmpty() && rest.charAt(0) == '/';
    if (rest.isEmpty() || rest.charAt(0) == '?') rest = "/" + rest;
    return new Target(ssl, host, port, rest, userInfo, asWritten ? url : null, SocketAddress.inetSocketAddress(port, host));
  }

  /**
   * The target of a WebSocket's {@code url}, ws or wss (RFC 6455 §3), as the
   * http or https URL its handshake goes to.
   */
  static Target parseWebSocket(String url) {
    int colon = url.indexOf("://");
    String scheme = colon < 0 ? "" : url.substring(0, colon).toLowerCase(Locale.ROOT);
    return switch (scheme) {
      case "ws" -> parse("http" + url.substring(colon));
      case "wss" -> parse("https" + url.substring(colon));
      default -> throw new IllegalArgumentException("it is not an absolute ws or wss URL");
    };
  }

  private static int defaultPort(boolean ssl) {
    return ssl ? 443 : 80;
  }

  /** host, or host:port when the port is not the scheme's default: the Host header's value. */
  String authority() {
    String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
    return port == defaultPort(ssl) ? h : h + ":" + port;
  }

  /** This target with {@code query} (encoded) added to its query. */
  Target withQuery(String query) {
    if (query.isEmpty()) return this;
    String sep = pathAndQuery.indexOf('?') < 0 ? "?" : pathAndQuery.endsWith("?") || pathAndQuery.endsWith("&") ? "" : "&";
    return new Target(ssl, host, port, pathAndQuery + sep + query, userInfo, null, server);
  }

  /**
   * Where {@code location}, a redirect's Location value, points from here: an
   * absolute URL, or a reference resolved against this one (RFC 9110 §10.2.2,
   * RFC 3986 §5.2).
   */
  Target resolve(String location) {
    int scheme = location.indexOf("://");
    int firstSep = indexOfAny(location, "/?#");
    if (scheme > 0 && (firstSep < 0 || scheme < firstSep)) return parse(location);
    if (location.startsWith("//")) return parse((ssl ? "https:" : "http:") + location);
    String base = origin();
    if (location.startsWith("/")) return parse(base + location);
    String path = pathAndQuery;
    int q = path.indexOf('?');
    if (q >= 0) path = path.substring(0, q);
    if (location.startsWith("?")) return parse(base + path + location);
    if (location.isEmpty() || location.startsWith("#")) return parse(base + pathAndQuery);
    return parse(base + path.substring(0, path.lastIndexOf('/') + 1) + location);
  }

  private static int indexOfAny(String s, String chars) {
    for (int i = 0; i < s.length(); i++) {
      if (chars.indexOf(s.charAt(i)) >= 0) return i;
    }
    return -1;
  }

  /** scheme://host[:port], the port left out when it is the scheme's default. */
  String origin() {
    return (ssl ? "https://" : "http://") + authority();
  }

  /** The URL, without the user information. */
  String url() {
    String u = url;
    if (u == null) url = u = origin() + pathAndQuery;
    return u;
  }

  boolean sameOrigin(Target other) {
    return ssl == other.ssl && port == other.port && host.equalsIgnoreCase(other.host);
  }
}
