package onager.kernel.request;

import java.io.IOException;

/**
 * The request cannot be read to its end because of the client: it closed the
 * connection, sent a malformed body (bad chunks, bad gzip), or let the body
 * stall past {@code :body-timeout-ms}. A handler reading the body gets this; the server
 * answers (or has answered) with {@link #status}, or with nothing when the
 * client is gone, and logs it as the client's fault, not the handler's: once,
 * where it was found (see {@link #logged}).
 */
public final class ClientAbortException extends IOException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final boolean logged;

  /**
   * {@code status}: what the client is told (400 or 408), or 0 when the client is gone;
   * {@code logged}: the connection has logged it (or will, when it closes), so the
   * request whose body read failed need not.
   */
  public ClientAbortException(int status, String message, Throwable cause, boolean logged) {
    super(message, cause);
    this.status = status;
    this.logged = logged;
  }

  public int status() {
    return status;
  }

  /** The status of the first ClientAbortException in {@code t}'s causes that has one, else {@code otherwise}. */
  public static int statusOf(Throwable t, int otherwise) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof ClientAbortException c && c.status > 0) return c.status;
    }
    return otherwise;
  }

  /** True when the first ClientAbortException among {@code t} and its causes is still to be logged. */
  public static boolean unlogged(Throwable t) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof ClientAbortException c) return !c.logged;
    }
    return false;
  }

  /** True when {@code t} or one of its causes is a ClientAbortException. */
  public static boolean isCause(Throwable t) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (t instanceof ClientAbortException) return true;
    }
    return false;
  }
}
