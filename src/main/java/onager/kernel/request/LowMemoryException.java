package onager.kernel.request;

import java.io.IOException;
import java.io.InterruptedIOException;
import onager.kernel.limits.HeapPressure;

/**
 * Reading a request body failed because the live objects may nearly fill the
 * heap (over {@code :low-memory-percent}, see {@code HeapPressure}): whatever the reader
 * holds is better let go now than when every thread runs out. The client gets
 * 503 Service Unavailable.
 */
public final class LowMemoryException extends IOException {
  private static final long serialVersionUID = 1L;

  public LowMemoryException(int percent, int limitPercent) {
    super("live objects may fill " + percent + "% of the heap, over :low-memory-percent " + limitPercent
        + "; the request body is not read further");
  }

  /**
   * The failure for a body read now, or null while the heap has room (see
   * {@link HeapPressure}).
   *
   * @param mayWait the reader's thread may block until the heap's state is settled
   */
  public static LowMemoryException ifOver(int limitPercent, boolean mayWait) throws InterruptedIOException {
    boolean over;
    try {
      over = mayWait ? HeapPressure.overWaiting(limitPercent) : HeapPressure.over(limitPercent);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for a garbage collection");
    }
    return over ? new LowMemoryException(HeapPressure.percent(), limitPercent) : null;
  }

  /** True when {@code t} or one of its causes is a LowMemoryException. */
  public static boolean isCause(Throwable t) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof LowMemoryException) return true;
    }
    return false;
  }
}
