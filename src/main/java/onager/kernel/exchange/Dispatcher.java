package onager.kernel.exchange;

import clojure.lang.IFn;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.util.AsciiString;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import onager.kernel.config.HandlerMode;
import onager.kernel.config.HandlerModes;
import onager.kernel.config.ServerConfig;
import onager.kernel.log.AccessLog;
import onager.kernel.metrics.ServerMetrics;
import onager.kernel.proxy.TrustedProxies;
import onager.kernel.request.InflatingBody;
import onager.kernel.websocket.OpenSockets;
import onager.kernel.websocket.WebSocketLimits;

/**
 * The handler of a server and how it runs, shared by every event loop: checks
 * the limits that can be checked before the handler runs, then starts
 * exchanges on the thread their handler mode asks for.
 */
public final class Dispatcher {

  final IFn handler;
  final boolean async;
  final HandlerMode mode;
  /** Tells the mode of each request's route, before it runs; null when every request runs in {@link #mode}. */
  final HandlerModes routeModes;
  final long maxBody;
  final int lowMemoryPercent;
  final boolean decompress;
  final int maxUriLength;
  public final CharSequence serverHeader;
  final IFn bodyWriter;
  /** The WebSockets' limits; the adapter of a Ring listener to the kernel's. */
  public final WebSocketLimits webSockets;
  final IFn webSocketListener;
  /** The WebSockets whose on-close has not run yet, which a stopping server waits for. */
  public final OpenSockets openSockets;
  public final ThreadFactory virtualThreads;
  final ExecutorService workers;
  /** Where finished exchanges are logged; null when :access-log is off. */
  final AccessLog accessLog;
  /** Makes or takes the request ids; null when neither :access-log nor :request-id-header asks for them. */
  final RequestIds requestIds;
  /** Whose forwarding headers the request map believes; null, nobody's: the socket alone tells. */
  final TrustedProxies trustedProxies;
  /** Connections begin with a PROXY header, whose address is their peer's. */
  final boolean proxyProtocol;
  /** The server's meters; null when :metrics is off (then no Micrometer class is loaded). */
  public final ServerMetrics metrics;
  /** An exchange notes when it started and what went out: the access log or the meters want it. */
  final boolean recording;
  // The server has begun to stop accepting. Connections learn that the server stops on their own
  // event loops, a moment later: a request answered in that moment must say Connection: close too.
  private volatile boolean stopping;

  public Dispatcher(IFn handler, ServerConfig config) {
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
    this.webSockets = config.webSockets;
    this.webSocketListener = config.webSocketListener;
    this.trustedProxies = config.trustedProxies;
    this.proxyProtocol = config.proxyProtocol;
    // Route modes may ask for the pool; it starts no thread until a request needs one.
    this.workers = mode == HandlerMode.WORKER || routeModes != null ? workerPool(config.workerThreads) : null;
    this.accessLog = config.accessLog == null ? null : new AccessLog(config.accessLog);
    this.requestIds = config.accessLog == null && config.requestIdHeader == null ? null
        : new RequestIds(config.requestIdHeader);
    ServerMetrics m = config.metrics == null ? null
        : new ServerMetrics(config.metrics, config.metricsHistogram, config.metricsJvm);
    this.metrics = m;
    this.recording = accessLog != null || m != null;
    ThreadFactory virtual = Thread.ofVirtual().name("onager-vt").factory();
    if (m == null) {
      this.openSockets = new OpenSockets();
      this.virtualThreads = virtual;
    } else {
      this.openSockets = new OpenSockets(m);
      this.virtualThreads = m.countStarts(virtual);
      m.gaugeWebSockets(openSockets);
    }
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

  /** Where {@code x}'s handler runs: the one place the handler mode is chosen. */
  HandlerMode modeOf(Exchange x) {
    HandlerMode m = x.mode;
    if (m == null) {
      HandlerMode chosen = routeModes == null ? null : routeModes.modeFor(x.request.method().name(), x.uri());
      m = chosen == null ? mode : chosen;
      x.mode = m;
    }
    return m;
  }

  /**
   * Where the listener of a WebSocket opened on a route of {@code mode} runs:
   * on the event loop itself, on a virtual thread per burst of messages, or in
   * the worker pool.
   */
  Executor runner(HandlerMode mode, EventLoop loop, VirtualStarts starts) {
    return switch (mode) {
      case EVENT_LOOP -> Runnable::run;
      case VIRTUAL -> new VirtualRunner(loop, starts, virtualThreads);
      case WORKER -> workers;
    };
  }

  /**
   * Checks the limits that can be checked before the handler runs; a request
   * over one is refused (and the connection ends after the answer). True when
   * {@code x} may run. On the event loop.
   */
  public boolean admit(Exchange x) {
    if (metrics != null) x.countActive();
    if (x.request.uri().length() > maxUriLength) {
      x.refuse(414, "URI longer than :max-uri-length");
      return false;
    }
    if (!x.hasBody()) return true;
    long length;
    try {
      length = declaredLength(x.header(HttpHeaderNames.CONTENT_LENGTH));
    } catch (NumberFormatException e) {
      x.refuse(400, "malformed Content-Length");
      return false;
    }
    if (length > maxBody) {
      x.refuse(413, "Content-Length over :max-body");
      return false;
    }
    return true;
  }

  /**
   * True when {@code x} may run with the exchanges before it in one
   * {@link #startAll batch}: its handler is sync and it has no body.
   */
  public boolean batches(Exchange x) {
    return !async && !x.hasBody();
  }

  /** True when {@code x} may join a batch that runs where {@code first}'s handler does. */
  public boolean batchesWith(Exchange first, Exchange x) {
    return batches(x) && modeOf(x) == modeOf(first);
  }

  /**
   * Starts the handlers of {@code count} exchanges, in order, where their mode
   * runs them ({@link #batchesWith}); each answers in turn. On the event loop.
   */
  public void startAll(Exchange[] xs, int count) {
    Exchange first = xs[0];
    switch (modeOf(first)) {
      // On the loop a sync handler returns before anything could expire it: no clock.
      case EVENT_LOOP -> {
        // An answer that ends the connection leaves the requests after it unanswered: they do
        // not run (RFC 9112 §9.6); nor does a stream's that was reset (RFC 9113 §8.1).
        for (int i = 0; i < count; i++) {
          if (!xs[i].closed()) xs[i].invoke();
        }
      }
      case VIRTUAL -> first.starts.start(runOf(xs, count));
      case WORKER -> execute(runOf(xs, count));
    }
  }

  /**
   * Starts each of {@code xs} from {@code from} on, still open, alone where its
   * mode runs it: what a {@link HandlerRun#spread spread} run had not reached.
   * Their request timeouts run since the run started. On the event loop.
   */
  void startEach(Exchange[] xs, int from) {
    for (int i = from; i < xs.length; i++) {
      Exchange x = xs[i];
      if (x.closed()) continue;
      if (modeOf(x) == HandlerMode.WORKER) {
        execute(x);
      } else {
        x.starts.start(x);
      }
    }
  }

  // The pool refuses work once the server has stopped: those requests get a 500.
  private void execute(VirtualStarts.Task task) {
    try {
      workers.execute(task);
    } catch (RejectedExecutionException e) {
      task.failedToStart(e);
    }
  }

  /** Starts again the exchanges a slow handler's run left, if any can still be answered. On the event loop. */
  void restartAll(Exchange[] xs) {
    boolean open = false;
    for (Exchange x : xs) open |= !x.closed();
    if (!open) return;
    for (Exchange x : xs) x.stopClockForRestart();
    startAll(xs, xs.length);
  }

  private static VirtualStarts.Task runOf(Exchange[] xs, int count) {
    for (int i = 0; i < count; i++) xs[i].startClock();
    if (count == 1) return xs[0];
    HandlerRun run = new HandlerRun(Arrays.copyOf(xs, count));
    // Exchanges of different streams (HTTP/2's) need not wait for each other's handlers.
    if (xs[0].stream != xs[1].stream) {
      xs[0].loop.schedule(run::spread, HandlerRun.SLOW_NANOS, TimeUnit.NANOSECONDS);
    }
    return run;
  }

  /** Starts an exchange that runs alone: one with a body, or with an async handler. On the event loop. */
  public void start(Exchange x) {
    boolean hasBody = x.hasBody();
    // AsciiString names: their hash is computed once, not on every request.
    boolean expectContinue = hasBody && "100-continue".equalsIgnoreCase(x.header(HttpHeaderNames.EXPECT));
    InflatingBody.Coding coding = hasBody && decompress ? takeCoding(x.request) : null;
    switch (modeOf(x)) {
      case EVENT_LOOP -> {
        if (hasBody) {
          // The handler cannot run before the body is in.
          x.receiveThenInvoke(expectContinue);
          if (coding != null) x.inflateBody(coding);
        } else {
          if (async) x.startClock();
          x.invoke();
        }
      }
      case VIRTUAL -> {
        if (hasBody) x.streamBody(expectContinue);
        if (coding != null) x.inflateBody(coding);
        x.startClock();
        x.starts.start(x);
      }
      case WORKER -> {
        if (hasBody) x.streamBody(expectContinue);
        if (coding != null) x.inflateBody(coding);
        x.startClock();
        execute(x);
      }
    }
  }

  // A body coding the server decodes: the handler sees the body and headers as if
  // it had been sent plain, its length unknown until read.
  private static InflatingBody.Coding takeCoding(HttpRequest request) {
    InflatingBody.Coding coding = InflatingBody.codingOf(request.headers().get(HttpHeaderNames.CONTENT_ENCODING));
    if (coding != null) {
      request.headers().remove(HttpHeaderNames.CONTENT_ENCODING);
      request.headers().remove(HttpHeaderNames.CONTENT_LENGTH);
    }
    return coding;
  }

  private static long declaredLength(String header) {
    if (header == null) return -1;
    long n = Long.parseLong(header.trim());
    if (n < 0) throw new NumberFormatException("negative");
    return n;
  }

  /** Writes the access log's last records and ends its thread, waiting at most {@code timeoutMs}. */
  public void closeAccessLog(long timeoutMs) {
    if (accessLog != null) accessLog.close(timeoutMs);
  }

  /** Removes the server's meters from the registry, when :metrics is on. */
  public void closeMetrics() {
    if (metrics != null) metrics.close();
  }

  /** The server stops accepting: every answer from now on ends its connection. */
  public void stopAccepting() {
    stopping = true;
  }

  boolean stopping() {
    return stopping;
  }

  /** Lets the worker threads end once their handlers return. */
  public void shutdownWorkers() {
    if (workers != null) workers.shutdown();
  }
}
