package onager.kernel.http1;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpRequest;

/**
 * Answers a request without Vert.x's request and response objects, which cost
 * about a third of raw Vert.x's whole per-request work when requests are
 * pipelined. The {@link ConnectionGuard} offers it only requests that are
 * plain: HTTP/1.1, well formed, kept alive, without a body, Expect or Upgrade,
 * and with no earlier response of the connection still owed, so that its
 * answers are written in order.
 *
 * <p>The requests it takes from one read of a connection are queued, and
 * answered together, in order, at the end of the read ({@link #runQueued}),
 * while the connection waits for them.
 */
public interface Shortcut {
  /**
   * True when the shortcut takes {@code request}, which then joins the
   * connection's queue; false, and it goes on to Vert.x as any other does.
   *
   * @param first the queue is empty: later requests of the read join it only
   *     if their handlers run where this one's does
   */
  boolean takes(HttpRequest request, boolean first);

  /**
   * Runs the handlers of {@code requests}, queued during one read, in order,
   * then reports to {@code guard} on the event loop:
   * {@link ConnectionGuard#queuedAnswered} or {@link ConnectionGuard#queuedTimedOut}.
   * Handlers that run on the loop run within this call, and report within it.
   *
   * @param secure the connection is TLS
   */
  void runQueued(ChannelHandlerContext ctx, HttpRequest[] requests, boolean secure, ConnectionGuard guard);
}
