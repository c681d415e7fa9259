package onager.kernel.server;

import io.vertx.core.http.HttpServerRequest;
import onager.kernel.limits.HeapPressure;
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

  private static final System.Logger LOG = System.getLogger("onager.server");

  /** Logs a failure of {@code request}'s handler as what it is; returns the status its client gets. */
  static int report(HttpServerRequest request, Throwable cause) {
    if (causedBy(cause, BodyTooLargeException.class)) {
      LOG.log(System.Logger.Level.DEBUG, "413: the body of {0} {1} is over :max-body", request.method(),
          request.uri());
      return 413;
    }
    if (LowMemoryException.isCause(cause)) {
      LOG.log(System.Logger.Level.WARNING, "handler for {0} {1} stopped: {2}; the client got 503",
          request.method(), request.uri(), cause.getMessage());
      HeapPressure.requestCollection();
      return 503;
    }
    if (ClientAbortException.isCause(cause)) {
      LOG.log(System.Logger.Level.DEBUG, "handler for {0} {1} stopped: {2}", request.method(), request.uri(),
          cause.getMessage());
      return ClientAbortException.statusOf(cause, 500);
    }
    LOG.log(System.Logger.Level.ERROR,
        "handler for " + request.method() + " " + request.uri() + " failed; the client got 500", cause);
    return 500;
  }

  /** Logs a failure that came after the response was under way, unless the client caused it. */
  static void reportLate(HttpServerRequest request, Throwable cause) {
    if (!ClientAbortException.isCause(cause)) {
      LOG.log(System.Logger.Level.ERROR, "handler for " + request.method() + " " + request.uri()
          + " failed after its response was under way", cause);
    }
  }

  static boolean causedBy(Throwable t, Class<? extends Throwable> kind) {
    for (int depth = 0; t != null && depth < 16; depth++, t = t.getCause()) {
      if (kind.isInstance(t)) return true;
    }
    return false;
  }
}
