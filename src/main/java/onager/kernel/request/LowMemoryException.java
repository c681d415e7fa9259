package onager.kernel.request;

import java.io.IOException;

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

  /** True when {@code t} or one of its causes is a LowMemoryException. */
  public static boolean isCause(Throwable t) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof LowMemoryException) return true;
    }
    return false;
  }
}
