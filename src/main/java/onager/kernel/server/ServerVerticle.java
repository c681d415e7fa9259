package onager.kernel.server;

import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.SocketAddress;
import java.util.List;
import java.util.function.Consumer;
import onager.kernel.exchange.Dispatcher;
import onager.kernel.metrics.LoopDelay;
import onager.kernel.exchange.VirtualStarts;
import onager.kernel.config.ServerConfig;
import onager.kernel.http1.Http1Limits;
import onager.kernel.http2.Http2Limits;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.proxy.ProxyProtocol;
import onager.kernel.response.HttpDate;
import onager.kernel.tls.Certificates;
import onager.kernel.vertx.VertxInternals;

/**
 * One instance per event loop: each listens on the same address, and Vert.x
 * spreads the accepted connections over them. A connection's requests run on
 * the event loop of the instance that accepted it, which keeps the request
 * timeouts of that loop and starts its virtual threads.
 */
final class ServerVerticle extends VerticleBase {
  private static final PooledByteBufAllocator ARENAS = arenaAllocator(PooledByteBufAllocator.DEFAULT);

  // Null when there is no clear-text listener; the TLS listener's and its certificates, null without TLS;
  // the Unix domain socket's (config.unixSocket), null without one.
  private final HttpServerOptions options;
  private final HttpServerOptions tlsOptions;
  private final HttpServerOptions socketOptions;
  private final Certificates certificates;
  private final Dispatcher dispatcher;
  private final List<HttpServer> servers;
  private final List<HttpServer> tlsServers;
  private final List<HttpServer> socketServers;
  private final Http1Limits limits;
  private final Http2Limits http2;
  private final ServerConfig config;
  private final ListenSockets listenSockets;
  private final long requestTimeoutMs;
  private final boolean proxyProtocol;
  private final long headerTimeoutMs;
  private RequestTimeouts timeouts;
  private HttpDate.Ticker dates;
  // Times the loop's delays when :metrics is on; else null.
  private LoopDelay delay;

  ServerVerticle(HttpServerOptions options, HttpServerOptions tlsOptions, HttpServerOptions socketOptions,
                 Certificates certificates, Dispatcher dispatcher, List<HttpServer> servers,
                 List<HttpServer> tlsServers, List<HttpServer> socketServers, Http1Limits limits, Http2Limits http2,
                 ServerConfig config, ListenSockets listenSockets) {
    this.options = options;
    this.tlsOptions = tlsOptions;
    this.socketOptions = socketOptions;
    this.certificates = certificates;
    this.dispatcher = dispatcher;
    this.servers = servers;
    this.tlsServers = tlsServers;
    this.socketServers = socketServers;
    this.limits = limits;
    this.http2 = http2;
    this.config = config;
    this.listenSockets = listenSockets;
    this.requestTimeoutMs = config.requestTimeoutMs;
    this.proxyProtocol = config.proxyProtocol;
    this.headerTimeoutMs = config.headerTimeoutMs;
  }

  @Override
  public Future<?> start() {
    var loop = VertxInternals.eventLoop(context);
    RequestTimeouts t = requestTimeoutMs > 0 ? new RequestTimeouts(loop, requestTimeoutMs) : null;
    timeouts = t;
    dates = HttpDate.tickOn(loop);
    if (dispatcher.metrics != null) delay = dispatcher.metrics.watch(loop);
    VirtualStarts starts = new VirtualStarts(loop, dispatcher.virtualThreads);
    HttpServerOptions any = options != null ? options : tlsOptions != null ? tlsOptions : socketOptions;
    ConnectionSetup setup = new ConnectionSetup(any.getHttp1Config(), limits, dispatcher, starts, t, certificates,
        limits.headerTimeoutMs(), http2, config.h2c, config.h2cUpgrade);
    Future<?> clear = options == null ? Future.succeededFuture() : listen(options, null, servers, setup::clearText);
    Future<?> tls = tlsOptions == null ? Future.succeededFuture() : listen(tlsOptions, null, tlsServers, setup::tls);
    // The socket's connections are clear text, on the same path as the TCP port's (HTTP/1.1, h2c).
    Future<?> socket = socketOptions == null ? Future.succeededFuture()
        : listen(socketOptions, config.unixSocket, socketServers, setup::clearText);
    return Future.all(clear, tls, socket);
  }

  // Listens on the options' host and port, or on the Unix domain socket at socketPath when it is not null.
  private Future<HttpServer> listen(HttpServerOptions on, String socketPath, List<HttpServer> into,
                                    Consumer<Channel> setup) {
    HttpServer server = vertx.createHttpServer(on)
        .connectionHandler(connection -> {
          var channel = VertxInternals.channel(connection);
          listenSockets.accepted(channel);
          if (dispatcher.metrics != null) dispatcher.metrics.connectionOpened(channel);
          // Request bodies hold the buffers they are read into until the handler takes them,
          // and response bodies are made ahead into pooled buffers: the adaptive allocator
          // Netty uses by default frees and maps its chunks again under that, in page faults,
          // where the arena allocator reuses them.
          if (ARENAS != null) channel.config().setAllocator(ARENAS);
          setup.accept(channel);
          // In front of all Onager installed, so that what follows the header in its read reaches it.
          if (proxyProtocol) ProxyProtocol.expectHeader(channel, headerTimeoutMs);
        })
        // Vert.x listens only with a request handler; its connections never reach it (see Http1Pipeline).
        .requestHandler(request -> request.connection().close());
    into.add(server);
    if (socketPath != null) {
      return server.listen(SocketAddress.domainSocketAddress(socketPath))
          .recover(e -> Future.failedFuture(ListenFailure.ofSocket(socketPath, ListenFailure.reason(e), e)));
    }
    return server.listen().recover(e -> Future.failedFuture(ListenFailure.of(on.getHost(), on.getPort(), e)));
  }

  /**
   * {@code pooled}, when it pools direct memory; else null, and connections keep
   * Vert.x's allocator. Netty gives its default arena allocator no direct arenas
   * when direct memory is small (the JVM caps it at the heap's maximum), and
   * then every buffer read or written is allocated and freed on its own, which
   * costs more CPU per request in a small heap than Vert.x's allocator does.
   */
  static PooledByteBufAllocator arenaAllocator(PooledByteBufAllocator pooled) {
    return pooled.isDirectBufferPooled() ? pooled : null;
  }

  @Override
  public Future<?> stop() {
    if (timeouts != null) timeouts.close();
    if (delay != null) delay.close();
    dates.close();
    return Future.succeededFuture();
  }
}
