package onager.kernel.server;

import clojure.lang.ExceptionInfo;
import clojure.lang.IFn;
import io.vertx.core.Context;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.Closeable;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import onager.kernel.config.ServerConfig;
import onager.kernel.exchange.Dispatcher;
import onager.kernel.http1.Http1Limits;
import onager.kernel.http2.Http2Limits;
import onager.kernel.log.Logs;
import onager.kernel.proxy.ProxyProtocol;
import onager.kernel.tls.CertificateWatch;
import onager.kernel.tls.Certificates;
import onager.kernel.vertx.NettyDefaults;
import onager.kernel.vertx.VertxInternals;

/**
 * A running Onager server: one listening Vert.x HTTP server per event loop and
 * listener (clear text, TLS, Unix domain socket), all handing requests to one {@link Dispatcher}.
 * {@link #close} is a graceful stop.
 */
public final class OnagerServer implements Closeable {
  // Room for the method and version around a URI of the longest allowed length.
  private static final int REQUEST_LINE_SLACK = 1024;
  // How long start and the last steps of stop may take beyond the configured times.
  private static final long STEP_TIMEOUT_MS = 30_000;

  private final Vertx vertx;
  private final boolean ownsVertx;
  private final String deploymentId;
  private final List<HttpServer> servers;
  private final List<HttpServer> tlsServers;
  private final List<HttpServer> socketServers;
  private final Dispatcher dispatcher;
  private final ServerConfig config;
  private final int port;
  private final int sslPort;
  // "epoll", "io-uring", "nio" (or "kqueue", on a shared instance): the Vert.x instance's.
  private final String transport;
  // Null without TLS; the watch null unless :ssl-reload-on-change? asks for it.
  private final Certificates certificates;
  private final CertificateWatch watch;
  private final ListenSockets listenSockets;
  private final AtomicBoolean stopped = new AtomicBoolean();
  // The JVM shutdown hook that stops this server, when asked for; null otherwise.
  private volatile Thread shutdownHook;

  private OnagerServer(Vertx vertx, boolean ownsVertx, String deploymentId, List<HttpServer> servers,
                       List<HttpServer> tlsServers, List<HttpServer> socketServers, Dispatcher dispatcher,
                       ServerConfig config, Certificates certificates, String transport, ListenSockets listenSockets) {
    this.listenSockets = listenSockets;
    this.vertx = vertx;
    this.ownsVertx = ownsVertx;
    this.deploymentId = deploymentId;
    this.servers = servers;
    this.tlsServers = tlsServers;
    this.socketServers = socketServers;
    this.dispatcher = dispatcher;
    this.config = config;
    this.port = servers.isEmpty() ? -1 : servers.get(0).actualPort();
    this.sslPort = tlsServers.isEmpty() ? -1 : tlsServers.get(0).actualPort();
    this.transport = transport;
    this.certificates = certificates;
    this.watch = certificates != null && config.tls.reloadOnChange ? CertificateWatch.start(certificates) : null;
  }

  /**
   * Starts a server and returns once it listens. {@code handler} is called with
   * each request map (and respond and raise when {@code config} says async).
   * When it cannot listen (the port is taken, the address is not this
   * machine's), throws an ex-info that says where and why (see {@link ListenFailure});
   * when a TLS certificate, key or trust store cannot be used, one that names
   * the option and the file. When the transport asked for cannot load, or does
   * not fit the options (see {@link Transports}), one that names the option and says why.
   */
  public static OnagerServer start(IFn handler, ServerConfig config) {
    refuseEventLoop("start");
    NettyDefaults.apply();
    if (config.proxyProtocol) ProxyProtocol.requireDecoder();
    Certificates certificates = config.tls == null ? null : Certificates.load(config.tls, ConnectionSetup.ALPN);
    boolean owns = config.vertx == null;
    if (!owns) Transports.checkShared(config.vertx, config.transport);
    Vertx vertx = owns ? Transports.vertx(vertxOptions(config), config.transport) : config.vertx;
    String transport = VertxInternals.transportName(vertx);
    Dispatcher dispatcher = new Dispatcher(handler, config);
    List<HttpServer> servers = new CopyOnWriteArrayList<>();
    List<HttpServer> tlsServers = new CopyOnWriteArrayList<>();
    List<HttpServer> socketServers = new CopyOnWriteArrayList<>();
    HttpServerOptions options = serverOptions(config);
    HttpServerOptions tlsOptions = config.tls == null ? null : new HttpServerOptions(options).setPort(config.tls.port);
    // SO_REUSEPORT is for TCP ports; a socket path is shared by its file.
    HttpServerOptions socketOptions = config.unixSocket == null ? null : new HttpServerOptions(options).setReusePort(false);
    Http1Limits limits = new Http1Limits(config.maxHeaderCount, config.headerTimeoutMs, config.bodyTimeoutMs,
        config.idleTimeoutMs, dispatcher.serverHeader, config.shutdownTimeoutMs, config.shutdownIdleMs);
    Http2Limits http2 = http2Limits(config);
    ListenSockets listenSockets = new ListenSockets();
    try {
      if (config.reusePort && transport.equals("nio")) throw Transports.reusePortUnsupported(transport);
      if (config.unixSocket != null) UnixSockets.clearStale(config.unixSocket);
      String id = await(vertx.deployVerticle(
          () -> new ServerVerticle(config.port < 0 ? null : options, tlsOptions, socketOptions, certificates,
              dispatcher, servers, tlsServers, socketServers, limits, http2, config, listenSockets),
          new DeploymentOptions().setInstances(config.eventLoops)), STEP_TIMEOUT_MS);
      OnagerServer server = new OnagerServer(vertx, owns, id, servers, tlsServers, socketServers, dispatcher, config,
          certificates, transport, listenSockets);
      Logs.SERVER.info("listening on {} ({})", server.listeners(), transport);
      if (config.shutdownHook) server.addShutdownHook();
      if (config.health != null) config.health.started();
      return server;
    } catch (RuntimeException e) {
      dispatcher.shutdownWorkers();
      dispatcher.closeAccessLog(0);
      dispatcher.closeMetrics();
      if (owns) vertx.close();
      throw e instanceof ExceptionInfo said ? said : ListenFailure.of(config.host, config.port, e);
    }
  }

  private static Http2Limits http2Limits(ServerConfig config) {
    return new Http2Limits(config.http2MaxConcurrentStreams, config.http2InitialWindowSize,
        config.http2ConnectionWindowSize, config.http2MaxFrameSize, config.http2HeaderTableSize,
        config.maxHeaderSize, config.maxHeaderCount, config.http2MaxResets, config.http2ResetWindowSeconds,
        config.http2MaxSmallContinuations, config.http2MaxEmptyDataFrames, config.http2MaxQueuedControlFrames,
        config.http2MaxControlFramesPerSecond, config.headerTimeoutMs, config.bodyTimeoutMs, config.idleTimeoutMs,
        config.shutdownTimeoutMs);
  }

  // The largest piece of a request body the decoder hands on at once: a socket read's
  // worth (64 KiB), not Vert.x's 8 KiB, so that a large body costs an eighth of the
  // buffers, queue entries and wake-ups.
  private static final int BODY_PIECE = 64 * 1024;

  private static VertxOptions vertxOptions(ServerConfig config) {
    return new VertxOptions()
        .setEventLoopPoolSize(config.eventLoops)
        .setPreferNativeTransport(true)
        // Handlers never run on Vert.x's worker pool; Vert.x itself needs little of it.
        .setWorkerPoolSize(2)
        .setInternalBlockingPoolSize(2);
  }

  private static HttpServerOptions serverOptions(ServerConfig config) {
    return new HttpServerOptions()
        .setHost(config.host)
        .setPort(Math.max(config.port, 0))
        .setReusePort(config.reusePort)
        // Idle connections are the connection's own clock's: it tells a connection waiting
        // for its client from one waiting for a handler, which Vert.x's idle timeout does not.
        .setIdleTimeout(0)
        .setMaxHeaderSize(config.maxHeaderSize)
        .setMaxInitialLineLength(config.maxUriLength + REQUEST_LINE_SLACK)
        .setMaxChunkSize(BODY_PIECE)
        // 100 Continue goes out when the handler first reads the body, not before.
        .setHandle100ContinueAutomatically(false)
        // HTTP/2 is Onager's own (onager.kernel.http2), installed per connection.
        .setHttp2ClearTextEnabled(false)
        .setCompressionSupported(false)
        .setDecompressionSupported(false)
        // No WebSockets yet: without these Vert.x leaves its WebSocket extension handler out
        // of every connection's pipeline, a handler each read and write would pass through.
        .setPerMessageWebSocketCompressionSupported(false)
        .setPerFrameWebSocketCompressionSupported(false)
        .setTcpNoDelay(true);
  }

  private void addShutdownHook() {
    Thread hook = new Thread(() -> {
      Logs.SERVER.info("JVM shutting down: stopping {} gracefully", this);
      stop();
      Logs.SERVER.info("stopped {}", this);
    }, "onager-shutdown-" + (port >= 0 ? port : sslPort >= 0 ? sslPort : "unix"));
    shutdownHook = hook;
    Runtime.getRuntime().addShutdownHook(hook);
    TermSignal.acquire();
  }

  /**
   * The port the server listens on in clear text (the one the OS chose when
   * asked for port 0); -1 when it listens on TLS only.
   */
  public int port() {
    return port;
  }

  /** The port the server listens on with TLS, as {@link #port}; -1 without TLS. */
  public int sslPort() {
    return sslPort;
  }

  /**
   * The Netty transport the server runs on: "epoll", "io-uring" or "nio" ("kqueue"
   * when it shares a Vert.x instance built on it).
   */
  public String transport() {
    return transport;
  }

  /**
   * Reads the TLS certificates, keys and trust from their files again: the
   * connections accepted from now on get them, the open ones keep theirs. When
   * one cannot be used, throws an ex-info naming the option and the file, and
   * the server goes on with the certificates it had.
   */
  public void reloadTls() {
    if (certificates == null) throw new IllegalStateException(this + " has no TLS listener (:ssl-port)");
    certificates.reload();
  }

  /** The Vert.x instance the server runs on: the escape hatch for what Onager does not wrap. */
  public Vertx vertx() {
    return vertx;
  }

  /**
   * Stops gracefully: tells the {@code :health} listener, goes on answering for
   * the shutdown delay (for load balancers to notice the readiness check
   * failing), then accepts no new connections; requests in flight get up to the
   * shutdown timeout to finish, their responses telling keep-alive clients to
   * go; connections waiting for a request close after the shutdown idle time.
   * A Vert.x instance passed in stays open. Calling it again does nothing.
   */
  public void stop() {
    if (!stopped.compareAndSet(false, true)) return;
    refuseEventLoop("stop");
    Thread hook = shutdownHook;
    if (hook != null) {
      if (hook != Thread.currentThread()) {
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // The JVM is already shutting down and the hook may be running: it finds the server stopped.
        }
      }
      TermSignal.release();
    }
    if (config.health != null) config.health.stopping();
    delay();
    if (watch != null) watch.close();
    Duration grace = Duration.ofMillis(config.shutdownTimeoutMs);
    long deadline = System.nanoTime() + grace.toNanos();
    try {
      // Stop accepting first; then the connections drain.
      dispatcher.stopAccepting();
      listenSockets.close(STEP_TIMEOUT_MS);
      List<Future<Void>> shutdowns = Stream.of(servers, tlsServers, socketServers).flatMap(List::stream)
          .map(s -> s.shutdown(grace)).toList();
      await(Future.join(shutdowns), config.shutdownTimeoutMs + STEP_TIMEOUT_MS);
      // The WebSockets are closed; their listeners' on-close may still be running.
      awaitOnClose(TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
      await(vertx.undeploy(deploymentId), STEP_TIMEOUT_MS);
    } finally {
      dispatcher.shutdownWorkers();
      try {
        if (ownsVertx) await(vertx.close(), STEP_TIMEOUT_MS);
      } finally {
        // The exchanges are over: the log gets their last records.
        dispatcher.closeAccessLog(STEP_TIMEOUT_MS);
        // A server started again on the registry registers its meters anew.
        dispatcher.closeMetrics();
        if (config.unixSocket != null) UnixSockets.remove(config.unixSocket);
      }
    }
  }

  @Override
  public void close() {
    stop();
  }

  // The server answers as before while load balancers learn from the readiness check that it goes.
  private void delay() {
    if (config.shutdownDelayMs == 0) return;
    Logs.SERVER.info("stopping on {} in {} ms (:shutdown-delay-ms): serving on while readiness fails", listeners(),
        config.shutdownDelayMs);
    try {
      Thread.sleep(config.shutdownDelayMs);
    } catch (InterruptedException e) {
      // Drains at once, and lets the caller see the interrupt.
      Thread.currentThread().interrupt();
    }
  }

  private void awaitOnClose(long ms) {
    try {
      if (!dispatcher.openSockets.awaitNone(Math.max(0, ms))) {
        Logs.SERVER.warn("stopped with WebSocket listeners' on-close still running past :shutdown-timeout-ms");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public String toString() {
    return "#<OnagerServer " + listeners() + (stopped.get() ? " stopped>" : ">");
  }

  // Where it listens, as in "127.0.0.1:8080 tls:8443 unix:/run/app.sock".
  private String listeners() {
    String tcp = (port >= 0 ? ":" + port : "") + (sslPort >= 0 ? " tls:" + sslPort : "");
    return ((tcp.isEmpty() ? "" : config.host + tcp) + (config.unixSocket != null ? " unix:" + config.unixSocket : ""))
        .strip();
  }

  private static void refuseEventLoop(String what) {
    if (Context.isOnEventLoopThread()) {
      throw new IllegalStateException(what + " blocks until it is done, so it cannot run on a Vert.x event loop");
    }
  }

  private static <T> T await(Future<T> future, long timeoutMs) {
    try {
      return future.toCompletionStage().toCompletableFuture().get(timeoutMs, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      Throwable cause = e.getCause();
      throw cause instanceof RuntimeException re ? re : new IllegalStateException(cause.getMessage(), cause);
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out after " + timeoutMs + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
