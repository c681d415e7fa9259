package onager.kernel.metrics;

import io.micrometer.core.instrument.Timer;
import io.netty.channel.EventLoop;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A task an event loop runs every {@link #PERIOD_NANOS}, timing how late it
 * runs: the time the loop was busy with other work (a handler that blocks it,
 * a burst of reads) past when the task was due. Its cost is one scheduled
 * task per period.
 */
public final class LoopDelay implements Runnable {
  /** How often the loop is sampled: often enough to see a stall, rarely enough to cost nothing. */
  static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(250);

  private final EventLoop loop;
  private final Timer delay;
  private long due;
  private ScheduledFuture<?> next;
  private boolean closed;

  LoopDelay(EventLoop loop, Timer delay) {
    this.loop = loop;
    this.delay = delay;
    schedule();
  }

  private void schedule() {
    due = System.nanoTime() + PERIOD_NANOS;
    try {
      next = loop.schedule(this, PERIOD_NANOS, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException stopping) {
      closed = true;
    }
  }

  @Override
  public void run() {
    if (closed) return;
    delay.record(Math.max(0, System.nanoTime() - due), TimeUnit.NANOSECONDS);
    schedule();
  }

  /** Stops sampling. On the loop. */
  public void close() {
    closed = true;
    ScheduledFuture<?> n = next;
    if (n != null) n.cancel(false);
  }
}
