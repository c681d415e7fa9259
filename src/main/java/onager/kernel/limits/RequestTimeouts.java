package onager.kernel.limits;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The requests of one event loop whose handlers have not answered yet, oldest
 * first, and a sweep that expires those older than the request timeout.
 *
 * <p>Every request gets the same timeout, so the order they start in is the
 * order they expire in: a linked list kept in start order is a priority queue
 * with O(1) insert and removal. That costs a request one clock read and a few
 * pointer writes, where a timer each would cost a scheduled task and two heap
 * operations. The sweep runs every tenth of the timeout (5 ms to 1 s), so a
 * request expires at most that late. All methods run on the event loop.
 */
public final class RequestTimeouts implements Runnable {
  private static final System.Logger LOG = System.getLogger("onager.server");

  private final EventExecutor loop;
  private final long timeoutMs;
  private final long timeoutNanos;
  private final ScheduledFuture<?> sweeper;
  private Deadline head;
  private Deadline tail;

  public RequestTimeouts(EventExecutor loop, long timeoutMs) {
    this.loop = loop;
    this.timeoutMs = timeoutMs;
    this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    long period = Math.max(5, Math.min(1_000, timeoutMs / 10));
    this.sweeper = loop.scheduleAtFixedRate(this, period, period, TimeUnit.MILLISECONDS);
  }

  /** Starts the clock for {@code d}; a second call does nothing. */
  public void start(Deadline d) {
    assert loop.inEventLoop() : "request timeouts are kept on their event loop";
    if (d.state != Deadline.NEW) return;
    d.state = Deadline.TRACKED;
    d.startNanos = System.nanoTime();
    d.prev = tail;
    if (tail == null) {
      head = d;
    } else {
      tail.next = d;
    }
    tail = d;
  }

  /** Starts the clock for {@code d} over, from now, after it expired. */
  public void restart(Deadline d) {
    if (d.state == Deadline.TRACKED) unlink(d);
    d.state = Deadline.NEW;
    start(d);
  }

  /** {@code d} is done in time (or will never need the clock): stop tracking it. */
  public void done(Deadline d) {
    if (d.state == Deadline.TRACKED) unlink(d);
    d.state = Deadline.OVER;
  }

  private void unlink(Deadline d) {
    if (d.prev == null) {
      head = d.next;
    } else {
      d.prev.next = d.next;
    }
    if (d.next == null) {
      tail = d.prev;
    } else {
      d.next.prev = d.prev;
    }
    d.prev = null;
    d.next = null;
  }

  @Override
  public void run() {
    long now = System.nanoTime();
    Deadline d;
    while ((d = head) != null && now - d.startNanos >= timeoutNanos) {
      unlink(d);
      d.state = Deadline.OVER;
      try {
        d.expired(timeoutMs);
      } catch (RuntimeException e) {
        LOG.log(System.Logger.Level.ERROR, "expiring a request failed", e);
      }
    }
  }

  /** Stops the sweep; what is still tracked is dropped unexpired. */
  public void close() {
    sweeper.cancel(false);
    Deadline d;
    while ((d = head) != null) {
      unlink(d);
      d.state = Deadline.OVER;
    }
  }
}
