package onager.kernel.server;

import clojure.lang.IFn;
import io.netty.util.AsciiString;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.log.Logs;
import onager.kernel.request.InflatingBody;
import onager.kernel.response.ResponseWriter;

/**
 * The request handler every event loop of a server shares: checks the limits
 * that can be checked before the handler runs, then starts the request's
 * {@link Exchange} on the thread its handler mode asks for.
 */
final class Dispatcher {

  final IFn handler;
  final boolean async;
  final HandlerMode mode;
  /** Tells the mode of each request's route, before it runs; null when every request runs in {@link #mode}. */
  final HandlerModes routeModes;
  final long maxBody;
  final int lowMemoryPercent;
  final boolean decompress;
  final int maxUriLength;
  final CharSequence serverHeader;
  final IFn bodyWriter;
  final ThreadFactory virtualThreads = Thread.ofVirtual().name("onager-vt").factory();
  final ExecutorService workers;

  /** Set when the server stops: the last responses tell keep-alive clients to go. */
  volatile boolean draining;

  Dispatcher(IFn handler, ServerConfig config) {
    this.handler = handler;
    this.async = config.async;
    this.mode = config.handlerMode;
    this.routeModes = config.routeModes;
    this.maxBody = config.maxBody;
    this.lowMemoryPercent = config.lowMemoryPercent;
    this.decompress = config.decompressRequests;
    this.maxUriLength = config.maxUriLength;
    this.serverHeader = config.serverHeader == null ? null : AsciiString.cached(config.serverHeader);
    this.bodyWriter = config.bodyWriter;
    // Route modes may ask for the pool; it starts no thread until a request needs one.
    this.workers = mode == HandlerMode.WORKER || routeModes != null ? workerPool(config.workerThreads) : null;
  }

  private static ExecutorService workerPool(int threads) {
    AtomicInteger count = new AtomicInteger();
    ThreadFactory factory = r -> {
      Thread t = new Thread(r, "onager-worker-" + count.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
    ThreadPoolExecutor pool = new ThreadPoolExecutor(
        threads, threads, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
    // Threads start with the first requests and end when idle: an idle server holds none.
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /**
   * Handles a request on the event loop whose {@code timeouts} (null: none),
   * {@code starts} and {@code shortcut} (null: none) they are.
   */
  void handle(HttpServerRequest request, RequestTimeouts timeouts, VirtualStarts starts, LoopShortcut shortcut) {
    try {
      if (shortcut != null && shortcut.ranFor(request)) {
        Exchange exchange = new Exchange(this, request, timeouts, starts);
        exchange.startClock();
        shortcut.deliver(exchange);
        return;
      }
      dispatch(request, timeouts, starts);
    } catch (Throwable t) {
      // Only a failure of the server itself gets here (say, no memory for a thread):
      // the handler's own failures are the exchange's to answer.
      Logs.SERVER.error("could not start handling {} {}", request.method(), request.uri(), t);
      if (!request.response().headWritten()) reject(request, 500, "server failure");
    }
  }

  private void dispatch(HttpServerRequest request, RequestTimeouts timeouts, VirtualStarts starts) {
    if (request.uri().length() > maxUriLength) {
      reject(request, 414, "URI longer than :max-uri-length");
      return;
    }
    long length;
    try {
      length = declaredLength(request.getHeader(HttpHeaders.CONTENT_LENGTH));
    } catch (NumberFormatException e) {
      reject(request, 400, "malformed Content-Length");
      return;
    }
    if (length > maxBody) {
      reject(request, 413, "Content-Length over :max-body");
      return;
    }
    // AsciiString names: their hash is computed once, not on every request.
    boolean hasBody = length > 0 || request.headers().contains(HttpHeaders.TRANSFER_ENCODING);
    boolean expectContinue = hasBody && "100-continue".equalsIgnoreCase(request.getHeader(HttpHeaders.EXPECT));
    InflatingBody.Coding coding = hasBody && decompress ? takeCoding(request) : null;
    Exchange exchange = new Exchange(this, request, timeouts, starts);
    switch (modeOf(request)) {
      case EVENT_LOOP -> {
        if (hasBody) {
          // The clock starts once the body is in: the handler cannot run before.
          exchange.receiveThenInvoke(expectContinue);
          if (coding != null) exchange.inflateBody(coding);
        } else {
          exchange.startClock();
          exchange.invoke();
        }
      }
      case VIRTUAL -> {
        if (hasBody) exchange.streamBody(expectContinue);
        if (coding != null) exchange.inflateBody(coding);
        exchange.startClock();
        starts.start(exchange);
      }
      case WORKER -> {
        if (hasBody) exchange.streamBody(expectContinue);
        if (coding != null) exchange.inflateBody(coding);
        exchange.startClock();
        workers.execute(exchange);
      }
    }
  }

  private HandlerMode modeOf(HttpServerRequest request) {
    if (routeModes == null) return mode;
    HandlerMode chosen = routeModes.modeFor(request.method().name(), request.path());
    return chosen == null ? mode : chosen;
  }

  // A body coding the server decodes: the handler sees the body and headers as if
  // it had been sent plain, its length unknown until read.
  private static InflatingBody.Coding takeCoding(HttpServerRequest request) {
    InflatingBody.Coding coding = InflatingBody.codingOf(request.getHeader(HttpHeaders.CONTENT_ENCODING));
    if (coding != null) {
      request.headers().remove("content-encoding");
      request.headers().remove("content-length");
    }
    return coding;
  }

  private static long declaredLength(String header) {
    if (header == null) return -1;
    long n = Long.parseLong(header.trim());
    if (n < 0) throw new NumberFormatException("negative");
    return n;
  }

  private void reject(HttpServerRequest request, int status, String why) {
    if (Logs.CLIENT.isDebugEnabled()) {
      Logs.CLIENT.debug("{}: {} ({} {})", status, why, request.method(), request.uri());
    }
    ResponseWriter.endError(request.response(), status, serverHeader, true)
        .onComplete(ar -> request.connection().close());
  }

  void shutdownWorkers() {
    if (workers != null) workers.shutdown();
  }
}
