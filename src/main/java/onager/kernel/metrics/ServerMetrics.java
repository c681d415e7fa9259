package onager.kernel.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.netty4.NettyAllocatorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.distribution.pause.NoPauseDetector;
import io.micrometer.core.instrument.distribution.pause.PauseDetector;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import onager.kernel.vertx.PerLoop;
import onager.kernel.websocket.MessageMeter;
import onager.kernel.websocket.OpenSockets;

/**
 * A server's meters, in the {@code MeterRegistry} of its :metrics option. The
 * kernel's classes hold this type in fields they test for null, and call it only
 * when it is there: no Micrometer class loads while metrics are off.
 *
 * <p>Every meter is made once, at start or the first time its tags occur (a
 * request timer for a new route, method and status), and found again without
 * building tags; {@link #close} removes the server's own meters from the
 * registry, so that another server may register them anew.
 */
public final class ServerMetrics implements MessageMeter {
  /** The route tag of a request no route of an Onager router took. */
  public static final String UNMATCHED = "UNMATCHED";

  private static final String REQUESTS = "http.server.requests";
  private static final String REQUESTS_DESCRIPTION =
      "Requests answered (or cut short), by route template, method and status";

  // Netty's constants for the methods of RFC 9110 and PATCH; any other is tagged OTHER, so
  // that a client sending made-up methods cannot make time series without end.
  private static final HttpMethod[] METHODS = {HttpMethod.GET, HttpMethod.HEAD, HttpMethod.POST, HttpMethod.PUT,
      HttpMethod.DELETE, HttpMethod.PATCH, HttpMethod.OPTIONS, HttpMethod.TRACE, HttpMethod.CONNECT};

  // Micrometer's default pause detector would have each timer add made-up samples after a
  // pause of the JVM, so that a timer's count would no longer be the requests', and would
  // have every request update a moving average that all event loops share.
  private static final PauseDetector NO_PAUSES = new NoPauseDetector();

  private final MeterRegistry registry;
  private final boolean histogram;
  private final List<Meter> meters = new ArrayList<>();
  private final List<AutoCloseable> binders = new ArrayList<>();
  // PerLoop makes one loop's counts at a time, under its lock: the loops are numbered from 0.
  private int loopsNumbered;
  // Each event loop's counts, made by the loop that writes them, so that their fields land
  // apart from the other loops'. The connections' adder changes once a connection.
  private final PerLoop<LoopMeters> loops = new PerLoop<>(loop -> new LoopMeters(this, loop, loopsNumbered++));
  private final LongAdder connections = new LongAdder();
  private final Counter opened;
  private final Counter[] refused = new Counter[Refusals.REASONS.length];
  private final Counter virtualThreads;
  private final Counter textReceived;
  private final Counter binaryReceived;
  private final Counter textSent;
  private final Counter binarySent;
  private final Timer loopDelay;
  // One listener for every connection's close: it holds no state of the connection's.
  private final ChannelFutureListener closed = f -> connections.decrement();
  private final ConcurrentHashMap<String, RouteTimers> routes = new ConcurrentHashMap<>();
  // A handler that is no Onager router takes every request: its timers are found without a lookup.
  private final RouteTimers unmatched = new RouteTimers(UNMATCHED);

  /**
   * @param registry  an {@code io.micrometer.core.instrument.MeterRegistry} (Object, so that
   *                  the configuration that carries it loads no Micrometer class)
   * @param histogram the request timer publishes a percentile histogram
   * @param jvm       bind the JVM's and Netty's allocator meters too
   */
  public ServerMetrics(Object registry, boolean histogram, boolean jvm) {
    this.registry = (MeterRegistry) registry;
    this.histogram = histogram;
    gauge("http.server.requests.active", "Requests received and not yet answered", this,
        m -> m.sum(LoopMeters::active));
    gauge("http.server.connections.active", "Connections open", connections, LongAdder::sum);
    opened = counter(Counter.builder("http.server.connections.opened").description("Connections accepted"));
    meters.add(FunctionCounter.builder("http.server.data.received", this, m -> m.sum(LoopMeters::received))
        .baseUnit("bytes").description("Bytes read from clients' connections").register(this.registry));
    meters.add(FunctionCounter.builder("http.server.data.sent", this, m -> m.sum(LoopMeters::sent))
        .baseUnit("bytes").description("Bytes written to clients' connections").register(this.registry));
    for (int i = 0; i < refused.length; i++) {
      refused[i] = counter(Counter.builder("http.server.requests.refused")
          .description("Requests the server refused itself, by the limit they broke")
          .tag("reason", Refusals.REASONS[i]).tag("status", Integer.toString(Refusals.STATUSES[i])));
    }
    virtualThreads = counter(Counter.builder("onager.virtual.threads.started")
        .description("Virtual threads started for handlers, response writers and WebSocket listeners"));
    textReceived = wsMessages("websocket.server.messages.received", "Messages received", "text");
    binaryReceived = wsMessages("websocket.server.messages.received", "Messages received", "binary");
    textSent = wsMessages("websocket.server.messages.sent", "Messages sent", "text");
    binarySent = wsMessages("websocket.server.messages.sent", "Messages sent", "binary");
    Timer delay = Timer.builder("onager.event.loop.delay")
        .description("How late a task scheduled on an event loop runs: time the loop spent on other work")
        .pauseDetector(NO_PAUSES)
        .register(this.registry);
    meters.add(delay);
    loopDelay = delay;
    if (jvm) bindJvm();
  }

  private void bindJvm() {
    new JvmMemoryMetrics().bindTo(registry);
    JvmGcMetrics gc = new JvmGcMetrics();
    gc.bindTo(registry);
    binders.add(gc);
    new JvmThreadMetrics().bindTo(registry);
    new ClassLoaderMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
    // The allocator the server's connections use (onager.kernel.server.ServerVerticle).
    new NettyAllocatorMetrics(PooledByteBufAllocator.DEFAULT).bindTo(registry);
  }

  private <T> void gauge(String name, String description, T state, ToDoubleFunction<T> value) {
    // A strong reference: the state lives as long as the server, and close removes the gauge.
    meters.add(Gauge.builder(name, state, value).description(description).strongReference(true).register(registry));
  }

  private Counter counter(Counter.Builder builder) {
    Counter c = builder.register(registry);
    meters.add(c);
    return c;
  }

  private Counter wsMessages(String name, String description, String type) {
    return counter(Counter.builder(name).description(description).tag("type", type));
  }

  /** Gauges the server's open WebSockets (those whose on-open ran and on-close not yet). */
  public void gaugeWebSockets(OpenSockets sockets) {
    gauge("websocket.server.connections.active", "WebSockets open", sockets, OpenSockets::count);
  }

  /** {@code threads}, counting each thread it makes into {@code onager.virtual.threads.started}. */
  public ThreadFactory countStarts(ThreadFactory threads) {
    Counter started = virtualThreads;
    return task -> {
      Thread t = threads.newThread(task);
      started.increment();
      return t;
    };
  }

  /** A connection was accepted: it is counted until it closes, its bytes as they pass. On its event loop. */
  public void connectionOpened(Channel channel) {
    opened.increment();
    connections.increment();
    // Told even when the channel closed already: the count cannot stay one too high.
    channel.closeFuture().addListener(closed);
    // The bytes on the wire, TLS records included; counted by the transport, before any read or write.
    LoopMeters counts = on(channel.eventLoop());
    ChannelConfig config = channel.config();
    config.setRecvByteBufAllocator(new CountedReads(config.getRecvByteBufAllocator(), counts));
    config.setMessageSizeEstimator(new CountedWrites(config.getMessageSizeEstimator(), counts));
  }

  /** The counts of event loop {@code loop}, made the first time it asks. On that loop. */
  public LoopMeters on(EventLoop loop) {
    return loops.of(loop);
  }

  private long sum(ToLongFunction<LoopMeters> count) {
    long[] sum = {0};
    loops.forEach(l -> sum[0] += count.applyAsLong(l));
    return sum[0];
  }

  /** The timers of the route whose template is {@code route} (null: none took the request). */
  RouteTimers routeTimers(String route) {
    if (route == null) return unmatched;
    RouteTimers timers = routes.get(route);
    return timers != null ? timers : routes.computeIfAbsent(route, RouteTimers::new);
  }

  /** {@code method} as one of the methods tagged by name, or null: another, tagged OTHER. */
  static HttpMethod known(HttpMethod method) {
    for (HttpMethod m : METHODS) {
      if (m == method) return m;
    }
    // The decoders give Netty's constants for these names; a request built another way may
    // carry an equal method object of its own. Names are case-sensitive (RFC 9110 §9.1).
    for (HttpMethod m : METHODS) {
      if (m.name().equals(method.name())) return m;
    }
    return null;
  }

  // Makes the meter of one route, method and status: once per combination. With a histogram
  // it is Micrometer's timer; without, the loops' tally, which the registry publishes as the
  // timer's count and sum (a FunctionTimer) and its max (a gauge Prometheus names as the
  // timer's max): a scrape reads the same series either way.
  RouteTimers.Entry requestMeter(String route, HttpMethod method, int status) {
    Tags tags = Tags.of("route", route,
        "method", method == null ? "OTHER" : method.name(),
        "status", status == 0 ? "UNKNOWN" : Integer.toString(status),
        "outcome", outcome(status));
    if (histogram) {
      Timer t = Timer.builder(REQUESTS)
          .description(REQUESTS_DESCRIPTION)
          .tags(tags)
          .publishPercentileHistogram(true)
          .pauseDetector(NO_PAUSES)
          .register(registry);
      synchronized (meters) {
        meters.add(t);
      }
      return new RouteTimers.Entry(method, status, t, null);
    }
    RequestTally tally = new RequestTally();
    Meter timer = FunctionTimer.builder(REQUESTS, tally, RequestTally::count, RequestTally::totalNanos,
            TimeUnit.NANOSECONDS)
        .description(REQUESTS_DESCRIPTION)
        .tags(tags)
        .register(registry);
    Meter max = Gauge.builder(REQUESTS + ".seconds.max", tally, RequestTally::maxSeconds)
        .description("The longest of " + REQUESTS + " in the last one to two minutes, in seconds")
        .tags(tags)
        .strongReference(true)
        .register(registry);
    synchronized (meters) {
      meters.add(timer);
      meters.add(max);
    }
    return new RouteTimers.Entry(method, status, null, tally);
  }

  // Spring's and Micrometer's outcome tag (io.micrometer.core.instrument.binder.http.Outcome).
  private static String outcome(int status) {
    if (status >= 100 && status < 200) return "INFORMATIONAL";
    if (status >= 200 && status < 300) return "SUCCESS";
    if (status >= 300 && status < 400) return "REDIRECTION";
    if (status >= 400 && status < 500) return "CLIENT_ERROR";
    if (status >= 500 && status < 600) return "SERVER_ERROR";
    return "UNKNOWN";
  }

  /** The server refused a request itself; {@code reason} is one of {@link Refusals}. Any thread. */
  public void refused(int reason) {
    refused[reason].increment();
  }

  @Override
  public void received(boolean text) {
    (text ? textReceived : binaryReceived).increment();
  }

  @Override
  public void sent(boolean text) {
    (text ? textSent : binarySent).increment();
  }

  /** Measures how late tasks run on {@code loop}, until the returned watch is closed. On the loop. */
  public LoopDelay watch(EventLoop loop) {
    return new LoopDelay(loop, loopDelay);
  }

  /** Removes the server's own meters from the registry and stops the binders that watch the JVM. */
  public void close() {
    synchronized (meters) {
      for (Meter m : meters) registry.remove(m);
      meters.clear();
    }
    for (AutoCloseable b : binders) {
      try {
        b.close();
      } catch (Exception e) {
        // Closing JvmGcMetrics only unregisters its listeners: nothing to do if that fails.
      }
    }
  }
}
