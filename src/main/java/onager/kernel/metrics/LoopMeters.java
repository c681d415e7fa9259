package onager.kernel.metrics;

import io.netty.util.concurrent.EventExecutor;
import io.netty.handler.codec.http.HttpMethod;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;

/**
 * What one event loop counts for a server's meters: the requests it has active
 * and the bytes its connections read and write. Only the loop writes them, so
 * a count is a field write where an adder shared by every loop would take an
 * atomic update; the registry sums the loops' counts when it reports, reading
 * each with opaque access (never torn, and seen soon after it is written).
 */
public final class LoopMeters {
  private static final VarHandle ACTIVE;
  private static final VarHandle RECEIVED;
  private static final VarHandle SENT;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      ACTIVE = lookup.findVarHandle(LoopMeters.class, "active", long.class);
      RECEIVED = lookup.findVarHandle(LoopMeters.class, "received", long.class);
      SENT = lookup.findVarHandle(LoopMeters.class, "sent", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  final EventExecutor loop;
  private final ServerMetrics metrics;
  // The loop's number among the server's: where request tallies keep its counts.
  private final int index;
  private long active;
  private long received;
  private long sent;
  // The timers of the route this loop last timed a request of: requests after requests of
  // one route find them without a lookup.
  private String lastRoute;
  private RouteTimers lastTimers;

  LoopMeters(ServerMetrics metrics, EventExecutor loop, int index) {
    this.metrics = metrics;
    this.loop = loop;
    this.index = index;
    this.lastTimers = metrics == null ? null : metrics.routeTimers(null);
  }

  /** A request the server will answer (its limits checked next). On the loop. */
  public void requestStarted() {
    ACTIVE.setOpaque(this, active + 1);
  }

  /**
   * A request {@link #requestStarted started} is done: answered, or its
   * connection or stream gone first. On the loop.
   */
  public void requestEnded() {
    ACTIVE.setOpaque(this, active - 1);
  }

  /**
   * Times an exchange that ended at {@code end} (System.nanoTime) after
   * {@code nanos}: {@code route} the template of the route that took it (null:
   * none), {@code status} the response's (0: none went out). On the loop.
   */
  public void requestFinished(String route, HttpMethod method, int status, long nanos, long end) {
    RouteTimers timers = lastTimers;
    if (route != lastRoute && (route == null || !route.equals(lastRoute))) {
      timers = metrics.routeTimers(route);
      lastRoute = route;
      lastTimers = timers;
    }
    HttpMethod m = ServerMetrics.known(method);
    RouteTimers.Entry e = timers.find(m, status);
    if (e == null) e = timers.add(metrics, m, status);
    if (e.tally() != null) {
      e.tally().of(index).record(nanos, end);
    } else {
      e.timer().record(nanos, TimeUnit.NANOSECONDS);
    }
  }

  // The connections' bytes, as the transport reads and writes them. On the loop.
  void received(long bytes) {
    RECEIVED.setOpaque(this, received + bytes);
  }

  void sent(long bytes) {
    SENT.setOpaque(this, sent + bytes);
  }

  // Any thread: what the registry reports.
  long active() {
    return (long) ACTIVE.getOpaque(this);
  }

  long received() {
    return (long) RECEIVED.getOpaque(this);
  }

  long sent() {
    return (long) SENT.getOpaque(this);
  }
}
