package onager.kernel.metrics;

import io.micrometer.core.instrument.Timer;
import io.netty.handler.codec.http.HttpMethod;
import java.util.Arrays;

/**
 * The request meters of one route, by method and status: a route sees a few
 * combinations, so a scan of a small array, replaced whole when one is added,
 * finds one without a lock and without building tags.
 */
final class RouteTimers {
  /**
   * The meter of one method and status: a Micrometer {@code timer} when the
   * server publishes a histogram, else the loops' {@code tally}.
   */
  record Entry(HttpMethod method, int status, Timer timer, RequestTally tally) {}

  private final String route;
  private volatile Entry[] entries = new Entry[0];

  RouteTimers(String route) {
    this.route = route;
  }

  /** The meter of {@code method} (null: another method) and {@code status}, or null if not made yet. */
  Entry find(HttpMethod method, int status) {
    for (Entry e : entries) {
      if (e.method == method && e.status == status) return e;
    }
    return null;
  }

  /** Makes the meter of {@code method} and {@code status}, unless another thread just did. */
  synchronized Entry add(ServerMetrics metrics, HttpMethod method, int status) {
    Entry e = find(method, status);
    if (e != null) return e;
    e = metrics.requestMeter(route, method, status);
    Entry[] now = entries;
    Entry[] next = Arrays.copyOf(now, now.length + 1);
    next[now.length] = e;
    entries = next;
    return e;
  }
}
