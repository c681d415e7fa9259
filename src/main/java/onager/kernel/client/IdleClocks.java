package onager.kernel.client;

import io.netty.util.concurrent.EventExecutor;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import onager.kernel.limits.RequestTimeouts;

/**
 * The :idle-timeout-ms clocks of one client on one event loop: a
 * {@link RequestTimeouts} per timeout its requests give, made when first given.
 * A call is tracked there from when it has its connection until its response
 * ends, and tracked anew from each piece of the response that arrives, so that
 * a request costs a few pointer writes instead of a timer set and cancelled.
 * All methods but {@link #closeOnLoop} run on the loop.
 */
final class IdleClocks {
  final EventExecutor loop;
  // Nearly every request gives the client's default: it is found without the map.
  private long lastMs = -1;
  private RequestTimeouts last;
  private final Map<Long, RequestTimeouts> byTimeout = new HashMap<>();

  IdleClocks(EventExecutor loop) {
    this.loop = loop;
  }

  /** The clock of {@code timeoutMs} (greater than 0) on this loop. */
  RequestTimeouts of(long timeoutMs) {
    if (timeoutMs == lastMs) return last;
    RequestTimeouts t = byTimeout.computeIfAbsent(timeoutMs, ms -> new RequestTimeouts(loop, ms));
    lastMs = timeoutMs;
    last = t;
    return t;
  }

  /** Stops the clocks' sweeps, on their loop; calls still tracked are left unexpired. Any thread. */
  void closeOnLoop() {
    try {
      loop.execute(() -> {
        for (RequestTimeouts t : byTimeout.values()) t.close();
        byTimeout.clear();
        lastMs = -1;
        last = null;
      });
    } catch (RejectedExecutionException e) {
      // The loop has stopped, and its sweeps with it.
    }
  }
}
