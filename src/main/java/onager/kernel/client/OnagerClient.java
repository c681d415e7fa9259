package onager.kernel.client;

import clojure.lang.IFn;
import clojure.lang.IPersistentMap;
import io.netty.util.AsciiString;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import java.io.Closeable;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.tls.ClientTls;
import onager.kernel.vertx.NettyDefaults;
import onager.kernel.vertx.PerLoop;
import onager.kernel.vertx.VertxInternals;
import onager.kernel.websocket.OpenSockets;

/**
 * An HTTP client: Vert.x's, with a connection pool per origin, and the request
 * and response maps turned into its calls and back here in the kernel, so that
 * the Clojure API above it is a function call. Thread-safe; {@link #close}
 * closes its connections (and its Vert.x instance, unless it was given one).
 */
public final class OnagerClient implements Closeable {
  // How long close waits for the connections to close.
  private static final long CLOSE_TIMEOUT_MS = 10_000;
  // How long close waits for the servers to answer its WebSockets' close frames.
  private static final long WEBSOCKET_CLOSE_MS = 5_000;

  final Vertx vertx;
  final HttpClientAgent agent;
  final ClientConfig config;
  private final boolean ownsVertx;
  // One context per event loop, made once: from a thread of no context, Vert.x would make a new
  // one (its task queues, its close hooks) for every request.
  private final Context[] contexts;
  private final AtomicInteger nextContext = new AtomicInteger();
  // The :idle-timeout-ms clocks of each event loop the client's calls have run on.
  private final PerLoop<IdleClocks> idleClocks = new PerLoop<>(IdleClocks::new);
  private final LastTarget targets = new LastTarget();
  /**
   * The header fields of a request that gives none: the User-Agent, if any. Shared by
   * those requests and never changed: Vert.x copies a request's fields into its own.
   * Made here, once Netty's defaults are set: the map is Netty's. The value is
   * bytes already, which the encoder copies whole rather than a character at a time.
   */
  private final MultiMap baseHeaders = MultiMap.caseInsensitiveMultiMap();
  /** The client's WebSockets whose listener has had on-open and not yet on-close. */
  final OpenSockets openWebSockets = new OpenSockets();
  // The connections WebSockets open, made on the first: TLS, proxy and timeout as the client's.
  private NetClient webSockets;

  private OnagerClient(Vertx vertx, boolean ownsVertx, HttpClientAgent agent, ClientConfig config) {
    this.vertx = vertx;
    this.ownsVertx = ownsVertx;
    this.agent = agent;
    this.config = config;
    if (config.userAgent != null) baseHeaders.set(HttpHeaders.USER_AGENT, AsciiString.of(config.userAgent));
    this.contexts = new Context[Math.max(1, config.eventLoops)];
    // Each new context goes to the next event loop.
    for (int i = 0; i < contexts.length; i++) contexts[i] = VertxInternals.newEventLoopContext(vertx);
  }

  /**
   * The context a call runs on: the caller's, when it runs on an event loop of
   * this client's Vert.x; else the client's contexts in turn, one per loop.
   */
  Context context() {
    Context current = Vertx.currentContext();
    if (current != null && current.isEventLoopContext() && current.owner() == vertx) return current;
    return contexts[Math.floorMod(nextContext.getAndIncrement(), contexts.length)];
  }

  /** The clock of :idle-timeout-ms {@code timeoutMs} on {@code loop}. On that loop. */
  RequestTimeouts idleClock(EventExecutor loop, long timeoutMs) {
    return idleClocks.of(loop).of(timeoutMs);
  }

  /**
   * A client as {@code config} says; a TLS file that cannot be used fails it with
   * the ex-info naming the option and the file.
   */
  public static OnagerClient create(ClientConfig config) {
    NettyDefaults.apply();
    HttpClientOptions options = new HttpClientOptions()
        .setKeepAlive(true)
        // Vert.x keeps an unused pooled connection for whole seconds.
        .setKeepAliveTimeout((int) Math.max(1, (config.keepAliveTimeoutMs + 999) / 1000))
        .setHttp2KeepAliveTimeout((int) Math.max(1, (config.keepAliveTimeoutMs + 999) / 1000))
        .setDecompressionSupported(config.decompress)
        .setUseAlpn(config.http2)
        // The versions a request may ask for: HTTP/2 only when it may be spoken (each request
        // then says which it asks for, by its scheme: see protocol).
        .setProtocolVersion(config.http2 || config.h2c ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1)
        // h2c is by prior knowledge (RFC 9113 §3.3): the Upgrade dance costs a round trip.
        .setHttp2ClearTextUpgrade(false)
        .setMaxHeaderSize(config.maxHeaderSize)
        .setTcpNoDelay(true);
    if (config.defaults.connectTimeoutMs > 0) {
      options.setConnectTimeout((int) Math.min(Integer.MAX_VALUE, config.defaults.connectTimeoutMs));
    }
    if (config.proxy != null) options.setProxyOptions(config.proxy).setNonProxyHosts(config.nonProxyHosts);
    ClientTls.configure(options, config.identity, config.trust, config.insecure);
    PoolOptions pool = new PoolOptions()
        .setHttp1MaxSize(config.maxConnections)
        .setHttp2MaxSize(config.maxHttp2Connections)
        .setMaxWaitQueueSize(config.maxWaiting);
    boolean owns = config.vertx == null;
    Vertx vertx = owns ? Vertx.vertx(new VertxOptions()
        .setEventLoopPoolSize(config.eventLoops)
        .setPreferNativeTransport(true)
        .setWorkerPoolSize(2)
        .setInternalBlockingPoolSize(2)) : config.vertx;
    HttpClientAgent agent = vertx.httpClientBuilder().with(options).with(pool).build();
    return new OnagerClient(vertx, owns, agent, config);
  }

  // HTTP/2 is offered over TLS by ALPN, the server choosing; in clear text it is spoken
  // only when asked for (:h2c?), since a server that does not know it cannot say so.
  HttpVersion protocol(boolean ssl) {
    return (ssl ? config.http2 : config.h2c) ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1;
  }

  /**
   * Sends {@code request} (a request map) and returns the future of its
   * response map, or of the ex-info it failed with (see {@link ClientFailure});
   * {@code respond} and {@code raise}, when not null, are called with the same on
   * the client's event loop. A request map that cannot be sent throws here.
   */
  public CompletableFuture<Object> execute(IPersistentMap request, IFn respond, IFn raise) {
    return new ClientCall(this, ClientRequest.parse(request, config, targets, baseHeaders), respond, raise).start();
  }

  /**
   * Sends {@code request} and waits for its response map, or throws the ex-info
   * it failed with. Waiting is cheap on a virtual thread; on an event loop it is
   * refused. An interrupt while waiting cancels the exchange.
   */
  public Object request(IPersistentMap request) {
    if (Context.isOnEventLoopThread()) {
      // Waiting here would stop the loop that must deliver the response: a deadlock, or a stall.
      throw new IllegalStateException("a request that waits for its response cannot run on a Vert.x event "
          + "loop: give :async? true, or respond and raise");
    }
    ClientCall call = new ClientCall(this, ClientRequest.parse(request, config, targets, baseHeaders), null, null);
    CompletableFuture<Object> response = call.start();
    try {
      return response.get();
    } catch (ExecutionException e) {
      throw sneaky(e.getCause());
    } catch (InterruptedException e) {
      call.cancel(e);
      Thread.currentThread().interrupt();
      throw sneaky(e);
    }
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }

  /** Where the client's WebSockets connect from: one NetClient, made on first use. */
  synchronized NetClient webSocketTransport() {
    if (webSockets == null) {
      NetClientOptions options = new NetClientOptions().setTcpNoDelay(true);
      if (config.defaults.connectTimeoutMs > 0) {
        options.setConnectTimeout((int) Math.min(Integer.MAX_VALUE, config.defaults.connectTimeoutMs));
      }
      if (config.proxy != null) options.setProxyOptions(config.proxy).setNonProxyHosts(config.nonProxyHosts);
      ClientTls.configure(options, config.identity, config.trust, config.insecure);
      webSockets = vertx.createNetClient(options);
    }
    return webSockets;
  }

  /** The Vert.x instance the client runs on. */
  public Vertx vertx() {
    return vertx;
  }

  /**
   * Closes the pooled connections and the WebSockets (with 1001, each
   * listener's on-close run before this returns), and the Vert.x instance when
   * the client made it.
   */
  @Override
  public void close() {
    try {
      agent.shutdown(Duration.ZERO).toCompletionStage().toCompletableFuture()
          .get(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
      NetClient ws;
      synchronized (this) {
        ws = webSockets;
      }
      if (ws != null) {
        // Each socket closes with 1001 after the messages already in, within the close wait.
        ws.shutdown(Duration.ofMillis(WEBSOCKET_CLOSE_MS)).toCompletionStage().toCompletableFuture()
            .get(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        openWebSockets.awaitNone(CLOSE_TIMEOUT_MS);
      }
      idleClocks.forEach(IdleClocks::closeOnLoop);
      if (ownsVertx) vertx.close().toCompletionStage().toCompletableFuture().get(CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the client did not close within " + CLOSE_TIMEOUT_MS + " ms", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
