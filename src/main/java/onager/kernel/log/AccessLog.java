package onager.kernel.log;

import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;

/**
 * A server's access log: each finished exchange's {@link AccessRecord} goes into
 * a bounded queue, and one virtual thread of the log's own formats and logs it,
 * at INFO, to the SLF4J logger {@code :access-log} names. The event loop only
 * adds a record: it never formats, never calls the logging library (whose
 * appenders may write files or sockets), and never waits. A record that finds
 * the queue full is dropped and counted; the thread reports the count, at most
 * once a second, as a WARN of {@code onager.server}.
 */
public final class AccessLog {
  private static final long REPORT_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final AccessFormat format;
  private final Logger logger;
  private final Queue<AccessRecord> queue;
  private final AtomicLong dropped = new AtomicLong();
  private final Thread writer;
  // The writer is parked, or about to: an adder must wake it.
  private volatile boolean parked;
  private volatile boolean closing;
  private long lastReport = System.nanoTime() - REPORT_NANOS;

  public AccessLog(AccessFormat format) {
    this.format = format;
    this.logger = Logs.logger(format.logger);
    // Many event loops add, one thread takes: a lock-free array queue, no allocation per record.
    this.queue = PlatformDependent.newFixedMpscQueue(format.queueSize);
    this.writer = Thread.ofVirtual().name("onager-access-log").start(this::run);
  }

  /** Logs {@code r} soon, or drops it when too many wait. From any thread; never blocks. */
  public void add(AccessRecord r) {
    if (!queue.offer(r)) {
      dropped.incrementAndGet();
      return;
    }
    // The offer and this read, the writer's write of parked and its check of the queue, are
    // each ordered (volatile): either it sees the record or we see it parked.
    if (parked) LockSupport.unpark(writer);
  }

  /**
   * Writes what waits, then ends the writer: the server stopped. Waits for it
   * at most {@code timeoutMs} (0: not at all); records added later are not written.
   */
  public void close(long timeoutMs) {
    closing = true;
    LockSupport.unpark(writer);
    try {
      if (timeoutMs > 0) writer.join(timeoutMs);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    while (true) {
      AccessRecord r = queue.poll();
      if (r != null) {
        write(r);
        continue;
      }
      reportDropped(true);
      if (closing) return;
      parked = true;
      if (queue.isEmpty() && !closing) LockSupport.park(this);
      parked = false;
    }
  }

  private void write(AccessRecord r) {
    try {
      if (logger.isInfoEnabled()) logger.info(format.format(r));
    } catch (RuntimeException e) {
      Logs.SERVER.error("the access log could not write a record", e);
    }
    if (dropped.get() > 0) reportDropped(false);
  }

  // Under a steady overload the queue never empties: report once a second all the same.
  private void reportDropped(boolean caughtUp) {
    if (dropped.get() == 0) return;
    long now = System.nanoTime();
    if (!caughtUp && now - lastReport < REPORT_NANOS) return;
    lastReport = now;
    long n = dropped.getAndSet(0);
    if (n > 0) {
      Logs.SERVER.warn("{} access log records dropped: {} were waiting to be written (the :access-log"
          + " :queue-size)", n, format.queueSize);
    }
  }
}
