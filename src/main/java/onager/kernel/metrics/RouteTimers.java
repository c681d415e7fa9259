package onager.kernel.metrics;

import io.micrometer.core.instrument.Timer;
import io.netty.handler.codec.http.HttpMethod;
import java.util.Arrays;

/**
 * The request timers of one route, by method and status: a route sees a few
 * combinations, so a scan of a small array, replaced whole when one is added,
 * finds a timer without a lock and without building tags.
 */
final class RouteTimers {
  private record Entry(HttpMethod method, int status, Timer timer) {}

  private final String route;
  private volatile Entry[] entries = new Entry[0];

  RouteTimers(String route) {
    this.route = route;
  }

  /** The timer of {@code method} (null: another method) and {@code status}, or null if not made yet. */
  Timer find(HttpMethod method, int status) {
    for (Entry e : entries) {
      if (e.method == method && e.status == status) return e.timer;
    }
    return null;
  }

  /** Makes the timer of {@code method} and {@code status}, unless another thread just did. */
  synchronized Timer add(ServerMetrics metrics, HttpMethod method, int status) {
    Timer t = find(method, status);
    if (t != null) return t;
    t = metrics.timer(route, method, status);
    Entry[] now = entries;
    Entry[] next = Arrays.copyOf(now, now.length + 1);
    next[now.length] = new Entry(method, status, t);
    entries = next;
    return t;
  }
}
