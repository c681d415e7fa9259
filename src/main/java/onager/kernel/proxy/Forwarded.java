package onager.kernel.proxy;

import io.netty.handler.codec.http.HttpHeaders;
import io.vertx.core.net.HostAndPort;
import java.net.InetAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;

/**
 * What a trusted proxy's headers say of the request it forwards: the client's
 * address, the scheme and the host the client asked for. Each is null (the port
 * -1) when the headers do not say it, or say it malformed; the request then
 * keeps the socket's value.
 *
 * <p>The {@code Forwarded} header (RFC 7239) is read when the request has one;
 * only otherwise X-Forwarded-For, -Proto, -Host and -Port. Each proxy appends
 * the address it received the request from, so the list is read from the
 * right, the nearest proxy first: the hops whose address is itself trusted are
 * skipped, and the first that is not is the client (a client can write
 * anything left of that, so nothing there is believed). When every hop is
 * trusted, the leftmost is the client.
 */
public final class Forwarded {
  /** The headers say nothing, or the peer is not trusted. */
  public static final Forwarded NONE = new Forwarded(null, null, null, -1);

  private static final String FORWARDED = "forwarded";
  private static final String X_FORWARDED_FOR = "x-forwarded-for";
  private static final String X_FORWARDED_PROTO = "x-forwarded-proto";
  private static final String X_FORWARDED_HOST = "x-forwarded-host";
  private static final String X_FORWARDED_PORT = "x-forwarded-port";

  /** The client's IP address, as {@code InetAddress.getHostAddress} writes it; or null. */
  public final String address;
  /** True for https, false for http; null when not said. */
  public final Boolean secure;
  /** The host the client asked for, without its port; or null. */
  public final String host;
  /** The port the client asked for; -1 when not said. */
  public final int port;

  private Forwarded(String address, Boolean secure, String host, int port) {
    this.address = address;
    this.secure = secure;
    this.host = host;
    this.port = port;
  }

  /**
   * What {@code headers} say when {@code peer}, the connection's other end, is
   * one of {@code trusted}; {@link #NONE} when it is not. {@code secureSocket}
   * tells the scheme the request came by, whose default port is the port when
   * the proxy says the host and no port, nor the scheme.
   */
  public static Forwarded of(TrustedProxies trusted, SocketAddress peer, HttpHeaders headers,
                             boolean secureSocket) {
    if (!trusted.trusts(peer)) return NONE;
    List<String> forwarded = headers.getAll(FORWARDED);
    return forwarded.isEmpty() ? fromXForwarded(trusted, headers, secureSocket)
        : fromForwarded(trusted, forwarded, secureSocket);
  }

  // ---- Forwarded (RFC 7239) ----

  private static Forwarded fromForwarded(TrustedProxies trusted, List<String> lines, boolean secureSocket) {
    List<String[]> elements = new ArrayList<>();
    for (String line : lines) {
      if (!ForwardedElements.parse(line, elements)) return NONE;
    }
    if (elements.isEmpty()) return NONE;
    String[] chosen = elements.get(0);
    for (int i = elements.size() - 1; i >= 0; i--) {
      byte[] ip = node(elements.get(i)[ForwardedElements.FOR]);
      if (ip == null || !trusted.trusts(ip)) {
        chosen = elements.get(i);
        break;
      }
    }
    return resolved(node(chosen[ForwardedElements.FOR]), scheme(chosen[ForwardedElements.PROTO]),
        authority(chosen[ForwardedElements.HOST]), -1, secureSocket);
  }

  // ---- X-Forwarded-* ----

  private static Forwarded fromXForwarded(TrustedProxies trusted, HttpHeaders headers, boolean secureSocket) {
    byte[] client = null;
    List<String> lines = headers.getAll(X_FORWARDED_FOR);
    if (!lines.isEmpty()) {
      String[] hops = String.join(",", lines).split(",", -1);
      for (int i = hops.length - 1; i >= 0; i--) {
        byte[] ip = node(hops[i].trim());
        // A hop that is no address stops the walk: what lies left of it cannot be told from a forgery.
        if (ip == null) {
          client = null;
          break;
        }
        client = ip;
        if (!trusted.trusts(ip)) break;
      }
    }
    String port = last(headers, X_FORWARDED_PORT);
    return resolved(client, scheme(last(headers, X_FORWARDED_PROTO)), authority(last(headers, X_FORWARDED_HOST)),
        port(port), secureSocket);
  }

  // The last value of a header that may be a list: the one the nearest (trusted) proxy wrote.
  private static String last(HttpHeaders headers, String name) {
    List<String> lines = headers.getAll(name);
    if (lines.isEmpty()) return null;
    String line = lines.get(lines.size() - 1);
    return line.substring(line.lastIndexOf(',') + 1).trim();
  }

  private static int port(String text) {
    if (text == null || text.isEmpty() || text.length() > 5) return -1;
    int p = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') return -1;
      p = p * 10 + (c - '0');
    }
    return p >= 1 && p <= 65535 ? p : -1;
  }

  // ---- the values ----

  private static Forwarded resolved(byte[] client, Boolean secure, HostAndPort host, int xPort, boolean secureSocket) {
    String address = client == null ? null : hostAddress(client);
    String name = host == null ? null : host.host();
    // The port the client asked for: the forwarded host's, else X-Forwarded-Port, else the default
    // port of the scheme when the proxy named the host or the scheme (RFC 9110 §4.2).
    int port = host != null && host.port() > 0 ? host.port() : xPort;
    if (port < 0 && (host != null || secure != null)) {
      port = (secure != null ? secure : secureSocket) ? 443 : 80;
    }
    if (address == null && secure == null && name == null && port < 0) return NONE;
    return new Forwarded(address, secure, name, port);
  }

  private static String hostAddress(byte[] ip) {
    try {
      return InetAddress.getByAddress(ip).getHostAddress();
    } catch (UnknownHostException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  private static Boolean scheme(String proto) {
    if (proto == null) return null;
    if (proto.equalsIgnoreCase("https")) return Boolean.TRUE;
    if (proto.equalsIgnoreCase("http")) return Boolean.FALSE;
    return null;
  }

  private static HostAndPort authority(String host) {
    if (host == null || host.isEmpty()) return null;
    HostAndPort parsed = HostAndPort.parseAuthority(host, -1);
    return parsed == null || parsed.host().isEmpty() ? null : parsed;
  }

  /**
   * The IP address of a node as proxies write it, or null: an IPv4 address, an
   * IPv6 one bare or in brackets, either with a port after a colon. "unknown"
   * and obfuscated identifiers (RFC 7239 §6) are no address.
   */
  static byte[] node(String text) {
    if (text == null || text.isEmpty()) return null;
    if (text.charAt(0) == '[') {
      int close = text.indexOf(']');
      boolean portAfter = close + 1 < text.length();
      if (close < 0 || (portAfter && (text.charAt(close + 1) != ':' || port(text.substring(close + 2)) < 0))) {
        return null;
      }
      return v6(text.substring(1, close));
    }
    int colon = text.indexOf(':');
    if (colon >= 0 && colon == text.lastIndexOf(':')) {
      // IPv4 with a port
      if (port(text.substring(colon + 1)) < 0) return null;
      byte[] ip = TrustedProxies.ip(text.substring(0, colon));
      return ip != null && ip.length == 4 ? ip : null;
    }
    return text.indexOf('%') >= 0 ? null : TrustedProxies.ip(text);
  }

  private static byte[] v6(String text) {
    if (text.indexOf('%') >= 0 || text.indexOf(':') < 0) return null;
    return TrustedProxies.ip(text);
  }

  @Override
  public String toString() {
    return "Forwarded[address=" + address + ", secure=" + secure + ", host=" + host + ", port=" + port + "]";
  }
}
