package onager.kernel.server;

import clojure.lang.IPersistentMap;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.vertx.core.MultiMap;
import io.vertx.core.http.impl.HttpUtils;
import io.vertx.core.http.impl.headers.HeadersAdaptor;
import io.vertx.core.net.HostAndPort;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import onager.kernel.request.EmptyBody;
import onager.kernel.request.RequestHeaders;
import onager.kernel.ring.RequestSource;
import onager.kernel.ring.RingKeys;

/**
 * The request map's values for a request the {@link LoopShortcut} answers,
 * read from the decoded request and its channel with the same functions Vert.x
 * applies for {@link Exchange}'s request: the two paths give equal maps. As
 * there, a value is computed when first read, from any thread (a handler may
 * keep the map): nothing changes the decoded request once it is read, and
 * racing threads compute equal values.
 */
final class ShortcutRequest implements RequestSource {
  private final HttpRequest request;
  private final Channel channel;
  private final String path;
  private final boolean secure;
  private IPersistentMap headers;

  ShortcutRequest(HttpRequest request, Channel channel, String path, boolean secure) {
    this.request = request;
    this.channel = channel;
    this.path = path;
    this.secure = secure;
  }

  @Override
  public int presentKeys() {
    return RingKeys.PLAIN_HTTP;
  }

  @Override
  public Object field(int index) {
    return switch (index) {
      case RingKeys.SERVER_PORT -> port(channel.localAddress());
      case RingKeys.SERVER_NAME -> serverName();
      case RingKeys.REMOTE_ADDR -> host(channel.remoteAddress());
      case RingKeys.URI -> path;
      case RingKeys.QUERY_STRING -> HttpUtils.parseQuery(request.uri());
      case RingKeys.SCHEME -> secure ? RequestValues.HTTPS : RequestValues.HTTP;
      case RingKeys.REQUEST_METHOD -> RequestValues.method(request.method());
      case RingKeys.PROTOCOL -> "HTTP/1.1";
      case RingKeys.HEADERS -> headers();
      case RingKeys.BODY -> EmptyBody.INSTANCE;
      case RingKeys.CONTENT_TYPE -> request.headers().get(HttpHeaderNames.CONTENT_TYPE);
      case RingKeys.CONTENT_LENGTH -> RequestValues.contentLength(request.headers().get(HttpHeaderNames.CONTENT_LENGTH));
      case RingKeys.CHARACTER_ENCODING ->
          RequestValues.characterEncoding(request.headers().get(HttpHeaderNames.CONTENT_TYPE));
      default -> null;
    };
  }

  private IPersistentMap headers() {
    IPersistentMap h = headers;
    if (h == null) {
      // Vert.x's decoder makes its headers a MultiMap already.
      h = RequestHeaders.toMap(request.headers() instanceof MultiMap m ? m : new HeadersAdaptor(request.headers()));
      headers = h;
    }
    return h;
  }

  // As Vert.x's request.authority(): the Host header's host, else the address the client reached.
  private String serverName() {
    String host = request.headers().get(HttpHeaderNames.HOST);
    HostAndPort authority = host == null ? null : HostAndPort.parseAuthority(host, -1);
    if (authority != null && !authority.host().isEmpty()) return authority.host();
    return channel.localAddress() instanceof InetSocketAddress inet && inet.getAddress() != null
        ? inet.getAddress().getHostAddress()
        : null;
  }

  // As Vert.x's SocketAddress: an IP address as text; a domain socket has its path and no port.
  private static String host(SocketAddress address) {
    return address instanceof InetSocketAddress inet && inet.getAddress() != null
        ? inet.getAddress().getHostAddress()
        : String.valueOf(address);
  }

  private static int port(SocketAddress address) {
    return address instanceof InetSocketAddress inet ? inet.getPort() : -1;
  }
}
