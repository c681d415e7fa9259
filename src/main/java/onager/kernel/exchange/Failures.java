package onager.kernel.exchange;

import io.netty.handler.codec.http.HttpRequest;
import onager.kernel.limits.HeapPressure;
import onager.kernel.log.Logs;
import onager.kernel.request.BodyTooLargeException;
import onager.kernel.request.ClientAbortException;
import onager.kernel.request.LowMemoryException;

/**
 * What a handler's failure means for its client and for the log. Most are the
 * handler's own (500, logged as errors with their cause); some are about the
 * request instead, found by the body it was reading: too large (413), the heap
 * nearly full (503, a warning), or broken by the client (its status, logged
 * only at debug level, since a client that goes away is no server's fault).
 */
final class Failures {
  private Failures() {}

  /** Logs a failure of {@code request}'s handler as what it is; returns the status its client gets. */
  static int report(HttpRequest request, Throwable cause) {
    if (causedBy(cause, BodyTooLargeException.class)) {
      Logs.CLIENT.debug("413: the body of {} {} is over :max-body", request.method(), request.uri());
      return 413;
    }
    if (LowMemoryException.isCause(cause)) {
      Logs.SERVER.warn("handler for {} {} stopped: {}; the client got 503", request.method(), request.uri(),
          cause.getMessage());
      HeapPressure.requestCollection();
      return 503;
    }
    if (ClientAbortException.isCause(cause)) {
      int status = ClientAbortException.statusOf(cause, 500);
      if (ClientAbortException.unlogged(cause)) clientAborted(request, cause, status);
      return status;
    }
    Logs.HANDLER.error("handler for {} {} failed; the client got 500", request.method(), request.uri(), cause);
    return 500;
  }

  /** Logs a failure that came after the response was under way. */
  static void reportLate(HttpRequest request, Throwable cause) {
    if (ClientAbortException.isCause(cause)) {
      if (ClientAbortException.unlogged(cause)) clientAborted(request, cause, 0);
    } else {
      Logs.HANDLER.error("handler for {} {} failed after its response was under way", request.method(),
          request.uri(), cause);
    }
  }

  /**
   * The client broke its request off (a malformed compressed body): one line at debug level,
   * without the trace, since it is the client's doing. A client that left is logged by its
   * connection (see ClientAbortException#logged).
   */
  static void clientAborted(HttpRequest request, Throwable cause, int status) {
    if (Logs.CLIENT.isDebugEnabled()) {
      Logs.CLIENT.debug("{} {}: {}{}", request.method(), request.uri(), reason(cause),
          status > 0 ? "; the client got " + status : "");
    }
  }

  // What Onager saw, and the innermost cause when it adds to that.
  private static String reason(Throwable t) {
    String outer = t.getMessage();
    String inner = null;
    Throwable c = t.getCause();
    for (int depth = 0; c != null && depth < 16; depth++, c = c.getCause()) {
      if (c.getMessage() != null) inner = c.getMessage();
    }
    if (outer == null) return inner != null ? inner : t.getClass().getSimpleName();
    return inner == null || outer.contains(inner) ? outer : outer + " (" + inner + ")";
  }

  static boolean causedBy(Throwable t, Class<? extends Throwable> kind) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (kind.isInstance(t)) return true;
    }
    return false;
  }
}
