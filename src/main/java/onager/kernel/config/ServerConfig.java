package onager.kernel.config;

import clojure.lang.IFn;
import clojure.lang.Keyword;
import io.vertx.core.Vertx;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import onager.kernel.log.AccessFormat;
import onager.kernel.proxy.TrustedProxies;
import onager.kernel.server.LifecycleListener;
import onager.kernel.websocket.WebSocketLimits;

/**
 * The validated server options, as the kernel reads them. The options table in
 * {@code onager.server.options} is the one source of validation and defaults;
 * this class reads its result by the options' own keywords, so it has no defaults
 * of its own and checks only that the values it cannot do without were given.
 */
public final class ServerConfig {
  public final String host;
  /** The clear-text port; -1 when there is no clear-text listener (TLS only). */
  public final int port;
  /** The TLS listener's options; null when there is none. */
  public final TlsConfig tls;
  public final int eventLoops;
  public final HandlerMode handlerMode;
  public final int workerThreads;
  public final boolean async;
  public final long maxBody;
  public final int maxHeaderSize;
  public final int maxUriLength;
  public final int maxHeaderCount;
  /** 0 for no limit. */
  public final int lowMemoryPercent;
  public final boolean decompressRequests;
  // The timeouts are 0 for none.
  public final long idleTimeoutMs;
  public final long headerTimeoutMs;
  public final long bodyTimeoutMs;
  public final long requestTimeoutMs;
  public final long shutdownTimeoutMs;
  public final long shutdownDelayMs;
  public final long shutdownIdleMs;
  public final boolean shutdownHook;
  /** Told when the server starts and stops (a readiness check); null for none. */
  public final LifecycleListener health;
  /** {@code null} sends no Server header. */
  public final String serverHeader;
  /** How the access log writes; {@code null}: no access log. */
  public final AccessFormat accessLog;
  /** The request header a request's id is taken from; {@code null}: ids are made. */
  public final String requestIdHeader;
  /**
   * The {@code io.micrometer.core.instrument.MeterRegistry} the server's meters go to; {@code null}: no
   * metrics. An Object, so that reading the options loads no Micrometer class.
   */
  public final Object metrics;
  /** The request timer publishes a percentile histogram. */
  public final boolean metricsHistogram;
  /** The JVM's and Netty's allocator meters are bound too. */
  public final boolean metricsJvm;
  /** A Vert.x instance to share; {@code null} makes the server own one. */
  public final Vertx vertx;
  /** The Netty transport asked for: "auto", "epoll", "io-uring" or "nio" (the :transport keyword's name). */
  public final String transport;
  /** SO_REUSEPORT on the TCP listening sockets. */
  public final boolean reusePort;
  /** The Unix domain socket's path the server listens on in clear text; {@code null} for none. */
  public final String unixSocket;
  /**
   * The fallback writer for body types the kernel does not know:
   * {@code (fn [body response output-stream])}, the user-space protocol dispatch.
   */
  public final IFn bodyWriter;
  /** The WebSockets' limits, from the :ws-* options. */
  public final WebSocketLimits webSockets;
  /** Turns a Ring WebSocket listener into the kernel's: {@code (fn [listener])}. */
  public final IFn webSocketListener;
  /** Where each request's route wants its handler to run; {@code null}: every request runs in the handler mode. */
  public final HandlerModes routeModes;
  /** h2c by prior knowledge on the clear-text listener; h2c by {@code Upgrade: h2c}. */
  public final boolean h2c;
  public final boolean h2cUpgrade;
  // The HTTP/2 limits (see the options table).
  public final int http2MaxConcurrentStreams;
  public final int http2InitialWindowSize;
  public final int http2ConnectionWindowSize;
  public final int http2MaxFrameSize;
  public final int http2HeaderTableSize;
  public final int http2MaxResets;
  public final int http2ResetWindowSeconds;
  public final int http2MaxSmallContinuations;
  public final int http2MaxEmptyDataFrames;
  public final int http2MaxQueuedControlFrames;
  public final int http2MaxControlFramesPerSecond;
  /** The peers whose Forwarded and X-Forwarded-* headers count; null: nobody's. */
  public final TrustedProxies trustedProxies;
  /** Each connection begins with a PROXY protocol header. */
  public final boolean proxyProtocol;

  private ServerConfig(Map<?, ?> options) {
    host = (String) given(options, "host");
    port = options.get(key("port")) == null ? -1 : integer(options, "port");
    tls = TlsConfig.from(options);
    eventLoops = integer(options, "event-loops");
    handlerMode = HandlerMode.of(given(options, "handler-mode"));
    workerThreads = integer(options, "worker-threads");
    async = flag(options, "async?");
    maxBody = number(options, "max-body");
    maxHeaderSize = integer(options, "max-header-size");
    maxUriLength = integer(options, "max-uri-length");
    maxHeaderCount = integer(options, "max-header-count");
    lowMemoryPercent = integer(options, "low-memory-percent");
    decompressRequests = flag(options, "decompress-requests?");
    idleTimeoutMs = number(options, "idle-timeout-ms");
    headerTimeoutMs = number(options, "header-timeout-ms");
    bodyTimeoutMs = number(options, "body-timeout-ms");
    requestTimeoutMs = number(options, "request-timeout-ms");
    shutdownTimeoutMs = number(options, "shutdown-timeout-ms");
    shutdownDelayMs = number(options, "shutdown-delay-ms");
    shutdownIdleMs = number(options, "shutdown-idle-ms");
    shutdownHook = flag(options, "shutdown-hook?");
    health = (LifecycleListener) options.get(key("health"));
    // The option takes false as nil: no header.
    serverHeader = options.get(key("server-header")) instanceof String s ? s : null;
    accessLog = AccessFormat.of(options.get(key("access-log")));
    requestIdHeader = (String) options.get(key("request-id-header"));
    metrics = options.get(key("metrics"));
    metricsHistogram = flag(options, "metrics-histogram?");
    metricsJvm = flag(options, "metrics-jvm?");
    vertx = (Vertx) options.get(key("vertx"));
    transport = ((Keyword) given(options, "transport")).getName();
    reusePort = flag(options, "reuse-port?");
    unixSocket = (String) options.get(key("unix-socket"));
    bodyWriter = (IFn) given(options, "body-writer");
    routeModes = (HandlerModes) options.get(key("route-modes"));
    webSocketListener = (IFn) given(options, "websocket-listener");
    Object origins = options.get(key("ws-allowed-origins"));
    webSockets = new WebSocketLimits(integer(options, "ws-max-frame-size"), integer(options, "ws-max-message-size"),
        number(options, "ws-idle-timeout-ms"), number(options, "ws-ping-interval-ms"),
        number(options, "ws-write-timeout-ms"), integer(options, "ws-high-water-mark"),
        flag(options, "ws-compression?"), integer(options, "ws-compression-level"),
        integer(options, "ws-compression-window-bits"),
        origins == null ? Set.of() : Set.copyOf(((Collection<?>) origins).stream().map(String::valueOf).toList()));
    h2c = flag(options, "h2c?");
    h2cUpgrade = flag(options, "h2c-upgrade?");
    http2MaxConcurrentStreams = integer(options, "http2-max-concurrent-streams");
    http2InitialWindowSize = integer(options, "http2-initial-window-size");
    http2ConnectionWindowSize = integer(options, "http2-connection-window-size");
    http2MaxFrameSize = integer(options, "http2-max-frame-size");
    http2HeaderTableSize = integer(options, "http2-header-table-size");
    http2MaxResets = integer(options, "http2-max-resets");
    http2ResetWindowSeconds = integer(options, "http2-reset-window-seconds");
    http2MaxSmallContinuations = integer(options, "http2-max-small-continuations");
    http2MaxEmptyDataFrames = integer(options, "http2-max-empty-data-frames");
    http2MaxQueuedControlFrames = integer(options, "http2-max-queued-control-frames");
    http2MaxControlFramesPerSecond = integer(options, "http2-max-control-frames-per-second");
    trustedProxies = TrustedProxies.of((Collection<?>) options.get(key("trusted-proxies")));
    proxyProtocol = flag(options, "proxy-protocol?");
    if (handlerMode == null) throw new IllegalArgumentException("ServerConfig: :handler-mode names no mode");
  }

  /**
   * The configuration the validated options map {@code options} gives: keyed by
   * the options' keywords, with {@code :handler-mode} resolved to a mode's keyword,
   * {@code :route-modes} a {@link HandlerModes} or absent, {@code :body-writer}
   * and {@code :websocket-listener}, and {@code :access-log} in its full form.
   */
  public static ServerConfig from(Map<?, ?> options) {
    return new ServerConfig(options);
  }

  private static Keyword key(String name) {
    return Keyword.intern(name);
  }

  private static Object given(Map<?, ?> options, String name) {
    Object value = options.get(key(name));
    if (value == null) throw new IllegalArgumentException("ServerConfig: :" + name + " was not given");
    return value;
  }

  private static long number(Map<?, ?> options, String name) {
    return ((Number) given(options, name)).longValue();
  }

  private static int integer(Map<?, ?> options, String name) {
    return Math.toIntExact(number(options, name));
  }

  private static boolean flag(Map<?, ?> options, String name) {
    return (Boolean) given(options, name);
  }
}
