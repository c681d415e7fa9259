package onager.kernel.server;

import clojure.lang.IFn;
import io.vertx.core.Vertx;

/**
 * The validated server options, as the kernel reads them. The options table in
 * {@code onager.server} is the one source of validation and defaults; this class
 * carries its result, so it has no defaults of its own and checks only that the
 * values it cannot do without were given.
 */
public final class ServerConfig {
  final String host;
  final int port;
  final int eventLoops;
  final HandlerMode handlerMode;
  final int workerThreads;
  final boolean async;
  final long maxBody;
  final int maxHeaderSize;
  final int maxUriLength;
  final int maxHeaderCount;
  final int lowMemoryPercent;
  final boolean decompressRequests;
  final long idleTimeoutMs;
  final long headerTimeoutMs;
  final long bodyTimeoutMs;
  final long requestTimeoutMs;
  final long shutdownTimeoutMs;
  final boolean shutdownHook;
  final String serverHeader;
  final Vertx vertx;
  final IFn bodyWriter;
  final HandlerModes routeModes;

  private ServerConfig(Builder b) {
    this.host = b.host;
    this.port = b.port;
    this.eventLoops = b.eventLoops;
    this.handlerMode = b.handlerMode;
    this.workerThreads = b.workerThreads;
    this.async = b.async;
    this.maxBody = b.maxBody;
    this.maxHeaderSize = b.maxHeaderSize;
    this.maxUriLength = b.maxUriLength;
    this.maxHeaderCount = b.maxHeaderCount;
    this.lowMemoryPercent = b.lowMemoryPercent;
    this.decompressRequests = b.decompressRequests;
    this.idleTimeoutMs = b.idleTimeoutMs;
    this.headerTimeoutMs = b.headerTimeoutMs;
    this.bodyTimeoutMs = b.bodyTimeoutMs;
    this.requestTimeoutMs = b.requestTimeoutMs;
    this.shutdownTimeoutMs = b.shutdownTimeoutMs;
    this.shutdownHook = b.shutdownHook;
    this.serverHeader = b.serverHeader;
    this.vertx = b.vertx;
    this.bodyWriter = b.bodyWriter;
    this.routeModes = b.routeModes;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Fluent builder; every setter takes the already validated value. */
  public static final class Builder {
    private String host;
    private int port = -1;
    private int eventLoops;
    private HandlerMode handlerMode;
    private int workerThreads;
    private boolean async;
    private long maxBody;
    private int maxHeaderSize;
    private int maxUriLength;
    private int maxHeaderCount;
    private int lowMemoryPercent;
    private boolean decompressRequests;
    private long idleTimeoutMs;
    private long headerTimeoutMs;
    private long bodyTimeoutMs;
    private long requestTimeoutMs;
    private long shutdownTimeoutMs;
    private boolean shutdownHook;
    private String serverHeader;
    private Vertx vertx;
    private IFn bodyWriter;
    private HandlerModes routeModes;

    private Builder() {}

    public Builder host(String v) { host = v; return this; }
    public Builder port(int v) { port = v; return this; }
    public Builder eventLoops(int v) { eventLoops = v; return this; }
    public Builder handlerMode(HandlerMode v) { handlerMode = v; return this; }
    public Builder workerThreads(int v) { workerThreads = v; return this; }
    public Builder async(boolean v) { async = v; return this; }
    public Builder maxBody(long v) { maxBody = v; return this; }
    public Builder maxHeaderSize(int v) { maxHeaderSize = v; return this; }
    public Builder maxUriLength(int v) { maxUriLength = v; return this; }
    public Builder maxHeaderCount(int v) { maxHeaderCount = v; return this; }
    /** 0 for no limit. */
    public Builder lowMemoryPercent(int v) { lowMemoryPercent = v; return this; }
    /** True: gzip and deflate request bodies reach the handler decompressed. */
    public Builder decompressRequests(boolean v) { decompressRequests = v; return this; }
    /** The timeouts take 0 for none. */
    public Builder idleTimeoutMs(long v) { idleTimeoutMs = v; return this; }
    public Builder headerTimeoutMs(long v) { headerTimeoutMs = v; return this; }
    public Builder bodyTimeoutMs(long v) { bodyTimeoutMs = v; return this; }
    public Builder requestTimeoutMs(long v) { requestTimeoutMs = v; return this; }
    public Builder shutdownTimeoutMs(long v) { shutdownTimeoutMs = v; return this; }
    /** True: a JVM shutdown hook (SIGTERM, SIGINT, System.exit) stops the server gracefully. */
    public Builder shutdownHook(boolean v) { shutdownHook = v; return this; }
    /** {@code null} sends no Server header. */
    public Builder serverHeader(String v) { serverHeader = v; return this; }
    /** A Vert.x instance to share; {@code null} makes the server own one. */
    public Builder vertx(Vertx v) { vertx = v; return this; }
    /**
     * The fallback writer for body types the kernel does not know:
     * {@code (fn [body response output-stream])}, the user-space protocol dispatch.
     */
    public Builder bodyWriter(IFn v) { bodyWriter = v; return this; }
    /** Where each request's route wants its handler to run; {@code null}: every request runs in the handler mode. */
    public Builder routeModes(HandlerModes v) { routeModes = v; return this; }

    public ServerConfig build() {
      require(host != null, "host");
      require(port >= 0, "port");
      require(eventLoops > 0, "eventLoops");
      require(handlerMode != null, "handlerMode");
      require(workerThreads > 0, "workerThreads");
      require(maxBody > 0, "maxBody");
      require(maxHeaderSize > 0, "maxHeaderSize");
      require(maxUriLength > 0, "maxUriLength");
      require(maxHeaderCount > 0, "maxHeaderCount");
      require(bodyWriter != null, "bodyWriter");
      return new ServerConfig(this);
    }

    private static void require(boolean given, String name) {
      if (!given) throw new IllegalArgumentException("ServerConfig: " + name + " was not set");
    }
  }
}
