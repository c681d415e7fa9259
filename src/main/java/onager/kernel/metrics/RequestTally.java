package onager.kernel.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The requests of one route, method and status, when no histogram is asked
 * for: each event loop counts them, adds up their time and keeps the longest in
 * plain fields of its own, and the registry reads the loops' fields when it
 * publishes (a {@code FunctionTimer} and a max gauge). Micrometer's
 * {@code Timer} would have every request update adders all loops share and a
 * time-window max that reads the wall clock; the request path pays a few field
 * writes instead.
 */
final class RequestTally {
  // The max covers the period a request ended in and the one before it, periods of 2^36 ns
  // (about 69 s): the longest request of the last one to two minutes, close to the two
  // minutes in three steps of Micrometer's own time-window max.
  static final int PERIOD_SHIFT = 36;

  private volatile Loop[] loops = new Loop[0];

  /** The counts of the loop numbered {@code loop}, made the first time it asks. */
  Loop of(int loop) {
    Loop[] now = loops;
    if (loop < now.length && now[loop] != null) return now[loop];
    return add(loop);
  }

  private synchronized Loop add(int loop) {
    Loop[] now = loops;
    if (loop < now.length && now[loop] != null) return now[loop];
    Loop[] next = Arrays.copyOf(now, Math.max(now.length, loop + 1));
    next[loop] = new Loop();
    loops = next;
    return next[loop];
  }

  /** Requests counted. Any thread. */
  long count() {
    long sum = 0;
    for (Loop l : loops) {
      if (l != null) sum += (long) Loop.COUNT.getOpaque(l);
    }
    return sum;
  }

  /** Their time, in nanoseconds. Any thread. */
  double totalNanos() {
    long sum = 0;
    for (Loop l : loops) {
      if (l != null) sum += (long) Loop.TOTAL.getOpaque(l);
    }
    return sum;
  }

  /** The longest of the last one to two minutes, in seconds. Any thread. */
  double maxSeconds() {
    return maxSeconds(System.nanoTime());
  }

  /** The longest of the period of {@code now} (System.nanoTime) and the one before, in seconds. */
  double maxSeconds(long now) {
    long period = now >> PERIOD_SHIFT;
    long max = 0;
    for (Loop l : loops) {
      if (l != null) max = Math.max(max, l.max(period));
    }
    return max / 1e9;
  }

  /** One loop's counts: only that loop writes them, with opaque stores the registry reads. */
  static final class Loop {
    static final VarHandle COUNT;
    static final VarHandle TOTAL;
    private static final VarHandle MAX;
    private static final VarHandle BEFORE;
    private static final VarHandle PERIOD;

    static {
      try {
        MethodHandles.Lookup lookup = MethodHandles.lookup();
        COUNT = lookup.findVarHandle(Loop.class, "count", long.class);
        TOTAL = lookup.findVarHandle(Loop.class, "total", long.class);
        MAX = lookup.findVarHandle(Loop.class, "max", long.class);
        BEFORE = lookup.findVarHandle(Loop.class, "before", long.class);
        PERIOD = lookup.findVarHandle(Loop.class, "period", long.class);
      } catch (ReflectiveOperationException e) {
        throw new ExceptionInInitializerError(e);
      }
    }

    private long count;
    private long total;
    // The longest of the current period, and of the one before it.
    private long max;
    private long before;
    private long period;

    /** A request of {@code nanos} ended at {@code end} (System.nanoTime). On the loop. */
    void record(long nanos, long end) {
      long p = end >> PERIOD_SHIFT;
      if (p != period) {
        BEFORE.setOpaque(this, p == period + 1 ? max : 0L);
        PERIOD.setOpaque(this, p);
        MAX.setOpaque(this, nanos);
      } else if (nanos > max) {
        MAX.setOpaque(this, nanos);
      }
      COUNT.setOpaque(this, count + 1);
      TOTAL.setOpaque(this, total + nanos);
    }

    // A reader may see a new period with the old one's max for one read: a max a little too
    // high, once, is all that the loop's unordered stores can cost.
    long max(long now) {
      long p = (long) PERIOD.getOpaque(this);
      if (p == now) return Math.max((long) MAX.getOpaque(this), (long) BEFORE.getOpaque(this));
      return p == now - 1 ? (long) MAX.getOpaque(this) : 0;
    }
  }
}
