package onager.kernel.server;

import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import io.netty.channel.Channel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.impl.HttpUtils;
import io.vertx.core.http.impl.headers.HeadersAdaptor;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import onager.kernel.request.EmptyBody;
import onager.kernel.request.RequestHeaders;

/**
 * The request map's values for a request the {@link LoopShortcut} answers,
 * read from the decoded request and its channel with the same functions Vert.x
 * applies for {@link Exchange}'s request: the two paths give equal maps. As
 * there, a value is computed when first read, from any thread (a handler may
 * keep the map): nothing changes the decoded request once it is read, and
 * racing threads compute equal values.
 */
final class ShortcutRequest implements RequestFields {
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
  public int serverPort() {
    return channel.localAddress() instanceof InetSocketAddress inet ? inet.getPort() : -1;
  }

  @Override
  public String uri() {
    return path;
  }

  @Override
  public String queryString() {
    return HttpUtils.parseQuery(request.uri());
  }

  @Override
  public boolean secure() {
    return secure;
  }

  @Override
  public Keyword requestMethod() {
    // Mapped as Vert.x maps its own requests' methods, so both paths give the same keyword.
    return RequestValues.method(HttpMethod.fromNetty(request.method()));
  }

  @Override
  public String protocol() {
    return "HTTP/1.1";
  }

  @Override
  public InputStream body() {
    return EmptyBody.INSTANCE;
  }

  @Override
  public String header(CharSequence name) {
    return request.headers().get(name);
  }

  @Override
  public IPersistentMap headers() {
    IPersistentMap h = headers;
    if (h == null) {
      // Vert.x's decoder makes its headers a MultiMap already.
      h = RequestHeaders.toMap(request.headers() instanceof MultiMap m ? m : new HeadersAdaptor(request.headers()));
      headers = h;
    }
    return h;
  }

  // As Exchange's: the host the request names, else the address the client reached.
  @Override
  public String serverName() {
    String host = RequestValues.namedHost(request.uri(), request.headers().get(HttpHeaderNames.HOST));
    if (host != null) return host;
    return channel.localAddress() instanceof InetSocketAddress inet && inet.getAddress() != null
        ? inet.getAddress().getHostAddress()
        : null;
  }

  // As Vert.x's SocketAddress: an IP address as text; a domain socket has its path.
  @Override
  public String remoteAddr() {
    SocketAddress address = channel.remoteAddress();
    return address instanceof InetSocketAddress inet && inet.getAddress() != null
        ? inet.getAddress().getHostAddress()
        : String.valueOf(address);
  }
}
