package onager.kernel.client;

import clojure.lang.IPersistentMap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseDecoder;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketClientExtension;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionUtil;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateClientExtensionHandshaker;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.net.ConnectOptions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import onager.kernel.vertx.VertxInternals;
import onager.kernel.websocket.Side;
import onager.kernel.websocket.WebSocket;
import onager.kernel.websocket.WebSocketHandshake;
import onager.kernel.websocket.WebSocketListener;
import onager.kernel.websocket.WebSocketPipeline;
import onager.kernel.websocket.WebSocketSwitch;

/**
 * Opens a WebSocket as a client (RFC 6455 §4.1): a connection from the
 * client's transport (TLS, proxy and connect timeout as its requests have
 * them), the opening handshake written and its answer checked here, then the
 * server's own {@code WebSocketConnection} on the client's side of the
 * protocol, so that both ends share one implementation of frames, limits,
 * back-pressure and the closing handshake.
 */
public final class WebSocketConnect {
  private WebSocketConnect() {}

  private static final String HANDSHAKE = "onager-ws-handshake";
  // The longest status line the handshake's answer may have.
  private static final int MAX_STATUS_LINE = 4096;
  private static final ThreadFactory LISTENER_THREADS = Thread.ofVirtual().name("onager-ws-client").factory();
  private static final Executor ON_VIRTUAL_THREADS = burst -> LISTENER_THREADS.newThread(burst).start();

  /**
   * Opens {@code url} (ws or wss) with {@code options} (validated by their
   * table), for {@code listener}; the future is of the open socket, or of the
   * ex-info the connection or the handshake failed with. A URL, header or
   * subprotocol that cannot be sent throws here.
   */
  public static CompletableFuture<WebSocket> open(OnagerClient client, String url, IPersistentMap options,
                                                  WebSocketListener listener) {
    WebSocketRequest request = WebSocketRequest.of(url, options, listener);
    Target t = request.target;
    ConnectOptions to = new ConnectOptions().setHost(t.host).setPort(t.port).setSsl(t.ssl);
    // SNI names a host, never an address (RFC 6066 §3).
    if (t.ssl && !NetUtil.isValidIpV4Address(t.host) && !NetUtil.isValidIpV6Address(t.host)) {
      to.setSniServerName(t.host);
    }
    CompletableFuture<WebSocket> opened = new CompletableFuture<>();
    client.webSocketTransport().connect(to).onComplete((socket, failure) -> {
      if (failure != null) {
        opened.completeExceptionally(ClientFailure.classify(failure, true, client.config.defaults.connectTimeoutMs,
            request.described, url));
        return;
      }
      Channel channel = VertxInternals.channel(socket);
      Handshake handshake = new Handshake(client, request, opened);
      if (channel.eventLoop().inEventLoop()) {
        handshake.start(channel);
      } else {
        channel.eventLoop().execute(() -> handshake.start(channel));
      }
    });
    return opened;
  }

  /** The opening handshake on one connection: the request out, the answer checked, the switch. */
  private static final class Handshake extends ChannelInboundHandlerAdapter {
    private final OnagerClient client;
    private final WebSocketRequest request;
    private final CompletableFuture<WebSocket> opened;
    private final String key = WebSocketHandshake.newKey();
    private final PerMessageDeflateClientExtensionHandshaker deflate;
    private ScheduledFuture<?> timer;

    Handshake(OnagerClient client, WebSocketRequest request, CompletableFuture<WebSocket> opened) {
      this.client = client;
      this.request = request;
      this.opened = opened;
      // The server may not be asked to keep the client's window small: the JDK's deflater has only
      // one (RFC 7692 §7.1.2.1). It is asked to keep its own to the window limit, which bounds the
      // memory inflating takes.
      this.deflate = request.limits.deflate()
          ? new PerMessageDeflateClientExtensionHandshaker(request.limits.deflateLevel(), false,
              request.limits.deflateWindowBits(), false, false, request.limits.maxMessageSize())
          : null;
    }

    void start(Channel channel) {
      if (!channel.isActive()) {
        fail(channel, ClientFailure.of(ClientFailure.CONNECTION_CLOSED,
            "the connection closed before the WebSocket handshake", request.described, request.url, null));
        return;
      }
      ChannelPipeline p = channel.pipeline();
      // Vert.x's socket handler stays last until the switch: it keeps its client's count of open
      // connections, which its close uses.
      p.addBefore("handler", WebSocketPipeline.DECODER,
          new HttpResponseDecoder(MAX_STATUS_LINE, client.config.maxHeaderSize, 8192));
      p.addBefore("handler", WebSocketPipeline.ENCODER, new HttpRequestEncoder());
      p.addBefore("handler", HANDSHAKE, this);
      if (request.handshakeTimeoutMs > 0) {
        timer = channel.eventLoop().schedule(() -> fail(channel,
            ClientFailure.handshakeTimeout(request.handshakeTimeoutMs, request.described, request.url)),
            request.handshakeTimeoutMs, TimeUnit.MILLISECONDS);
      }
      channel.writeAndFlush(handshakeRequest()).addListener(f -> {
        if (!f.isSuccess()) fail(channel, ClientFailure.classify(f.cause(), false, 0, request.described, request.url));
      });
    }

    // RFC 6455 §4.1: the opening handshake's request.
    private FullHttpRequest handshakeRequest() {
      Target t = request.target;
      FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, t.pathAndQuery);
      HttpHeaders h = r.headers();
      if (client.config.userAgent != null) h.set(HttpHeaderNames.USER_AGENT, client.config.userAgent);
      for (Map.Entry<String, String> e : request.headers) h.add(e.getKey(), e.getValue());
      h.set(HttpHeaderNames.HOST, t.authority());
      h.set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET);
      h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
      h.set(HttpHeaderNames.SEC_WEBSOCKET_KEY, key);
      h.set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, "13");
      if (!request.protocols.isEmpty()) {
        h.set(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL, String.join(", ", request.protocols));
      } else {
        h.remove(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL);
      }
      if (deflate != null) {
        h.set(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS, WebSocketHandshake.extensionsField(deflate.newRequestData()));
      } else {
        h.remove(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS);
      }
      return r;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (opened.isDone() || !(msg instanceof HttpResponse response)) {
        ReferenceCountUtil.release(msg);
        return;
      }
      ReferenceCountUtil.release(msg);
      if (response.decoderResult().isFailure()) {
        fail(ctx.channel(), ClientFailure.classify(response.decoderResult().cause(), false, 0, request.described,
            request.url));
        return;
      }
      check(ctx.channel(), response);
    }

    // RFC 6455 §4.1, the client's checks of the server's answer, items 1 to 6.
    private void check(Channel channel, HttpResponse response) {
      HttpHeaders h = response.headers();
      int status = response.status().code();
      if (status != 101) {
        refuse(channel, response, "the server answered " + status + " instead of switching to a WebSocket");
        return;
      }
      if (!h.containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)
          || !h.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)) {
        refuse(channel, response, "the server's 101 has no Upgrade: websocket and Connection: Upgrade");
        return;
      }
      if (!WebSocketHandshake.acceptOf(key).equals(h.get(HttpHeaderNames.SEC_WEBSOCKET_ACCEPT))) {
        refuse(channel, response, "the server's Sec-WebSocket-Accept does not answer the key sent");
        return;
      }
      String protocol = h.get(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL);
      if (protocol != null && !request.protocols.contains(protocol.trim())) {
        refuse(channel, response, "the server chose subprotocol " + protocol + ", which was not offered");
        return;
      }
      WebSocketClientExtension extension = null;
      String extensions = h.get(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS);
      if (extensions != null && !extensions.isBlank()) {
        List<WebSocketExtensionData> agreed = WebSocketExtensionUtil.extractExtensions(extensions);
        extension = agreed.size() == 1 && deflate != null ? deflate.handshakeExtension(agreed.get(0)) : null;
        if (extension == null) {
          refuse(channel, response, "the server agreed to extensions that were not offered: " + extensions);
          return;
        }
      }
      if (timer != null) timer.cancel(false);
      ChannelPipeline p = channel.pipeline();
      p.remove(this);
      Executor runner = request.onEventLoop ? Runnable::run : ON_VIRTUAL_THREADS;
      WebSocketSwitch ws = new WebSocketSwitch(request.listener, runner, protocol == null ? null : protocol.trim(),
          extension, client.openWebSockets, Side.CLIENT);
      opened.complete(WebSocketPipeline.install(p, ws, request.limits));
    }

    private void refuse(Channel channel, HttpResponse response, String why) {
      fail(channel, ClientFailure.handshake(why, response.status().code(),
          ClientResponses.headers(response.headers().iteratorCharSequence()), request.described, request.url));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      fail(ctx.channel(), ClientFailure.of(ClientFailure.CONNECTION_CLOSED,
          "the connection closed before the WebSocket handshake was answered", request.described, request.url, null));
      ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      fail(ctx.channel(), ClientFailure.classify(cause, false, 0, request.described, request.url));
    }

    private void fail(Channel channel, Throwable failure) {
      if (timer != null) timer.cancel(false);
      if (opened.completeExceptionally(failure)) channel.close();
    }
  }
}
