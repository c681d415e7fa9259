package onager.kernel.limits;

import io.netty.util.concurrent.EventExecutor;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import onager.kernel.log.Logs;

/**
 * The requests of one event loop whose handlers have not answered yet, oldest
 * first, and a sweep that expires those older than the request timeout. The
 * client keeps its calls' idle timeouts the same way (client/IdleClocks).
 *
 * <p>Every request gets the same timeout, so the order they start in is the
 * order they expire in: a linked list kept in start order is a priority queue
 * with O(1) insert and removal. A request costs a few pointer writes, where a
 * timer each would cost a scheduled task and two heap operations, and no clock
 * read: the sweep stamps the requests that started since it last ran with its
 * own time, which is never before their start. Most requests are answered
 * before any sweep sees them, so a clock read each would be wasted on them.
 * The sweep runs every twentieth of the timeout (5 ms to 1 s): a request
 * expires no sooner than the timeout after it started, and at most two sweeps
 * later (a tenth of a timeout from 100 ms to 20 s, less of a longer one). All
 * methods run on the event loop.
 */
public final class RequestTimeouts implements Runnable {

  private final EventExecutor loop;
  private final long timeoutMs;
  private final long timeoutNanos;
  private final ScheduledFuture<?> sweeper;
  private Deadline head;
  private Deadline tail;
  /** The first deadline the sweep has not stamped with a start time yet; those after it are not stamped either. */
  private Deadline unstamped;

  public RequestTimeouts(EventExecutor loop, long timeoutMs) {
    this.loop = loop;
    this.timeoutMs = timeoutMs;
    this.timeoutNanos = TimeUnit.MILLISECONDS.toNanos(timeoutMs);
    long period = Math.max(5, Math.min(1_000, timeoutMs / 20));
    this.sweeper = loop.scheduleAtFixedRate(this, period, period, TimeUnit.MILLISECONDS);
  }

  /** Starts the clock for {@code d}; a second call does nothing. */
  public void start(Deadline d) {
    assert loop.inEventLoop() : "request timeouts are kept on their event loop";
    if (d.state != Deadline.NEW) return;
    d.state = Deadline.TRACKED;
    d.prev = tail;
    if (tail == null) {
      head = d;
    } else {
      tail.next = d;
    }
    tail = d;
    if (unstamped == null) unstamped = d;
  }

  /** Starts the clock for {@code d} over, from now, after it expired. */
  public void restart(Deadline d) {
    if (d.state == Deadline.TRACKED) unlink(d);
    d.state = Deadline.NEW;
    start(d);
  }

  /** Stops tracking {@code d} unless it expired, so that {@link #start} starts its clock anew. */
  public void reset(Deadline d) {
    if (d.state == Deadline.TRACKED) unlink(d);
    if (d.state != Deadline.OVER) d.state = Deadline.NEW;
  }

  /** {@code d} is done in time (or will never need the clock): stop tracking it. */
  public void done(Deadline d) {
    if (d.state == Deadline.TRACKED) unlink(d);
    d.state = Deadline.OVER;
  }

  private void unlink(Deadline d) {
    if (d == unstamped) unstamped = d.next;
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
    while ((d = head) != null && d != unstamped && now - d.startNanos >= timeoutNanos) {
      unlink(d);
      d.state = Deadline.OVER;
      try {
        d.expired(timeoutMs);
      } catch (RuntimeException e) {
        Logs.SERVER.error("expiring a request failed", e);
      }
    }
    for (d = unstamped; d != null; d = d.next) d.startNanos = now;
    unstamped = null;
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
