package onager.kernel.http1;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpRequest;

/**
 * Answers a request without Vert.x's request and response objects, which cost
 * about a third of raw Vert.x's whole per-request work when requests are
 * pipelined. The {@link ConnectionGuard} offers it only requests that are
 * plain: HTTP/1.1, well formed, kept alive, without a body, Expect or Upgrade,
 * and with no earlier response of the connection still owed, so that an answer
 * written at once is also written in order.
 *
 * <p>A request whose handler may block is queued instead: the requests one read
 * of a connection brings are answered together, in order, on one thread
 * ({@link #runQueued}), while the connection waits for them.
 */
public interface Shortcut {
  /** The response is written, not flushed. */
  int WRITTEN = 0;
  /** The request goes on to Vert.x as any other does. */
  int DECLINED = 1;
  /** The request joins the connection's queue, run at the end of the read. */
  int QUEUED = 2;

  /**
   * Answers {@code request}, or queues it, or declines it.
   *
   * @param secure the connection is TLS
   * @param mayWrite false while requests are queued: an answer written now would
   *     overtake theirs, so the shortcut queues the request or declines it
   */
  int answer(ChannelHandlerContext ctx, HttpRequest request, boolean secure, boolean mayWrite);

  /**
   * Runs the handlers of {@code requests}, queued by {@link #answer} during one
   * read, in order on a thread of their own, then reports to {@code guard} on
   * the event loop: {@link ConnectionGuard#queuedAnswered} or
   * {@link ConnectionGuard#queuedTimedOut}.
   */
  void runQueued(ChannelHandlerContext ctx, HttpRequest[] requests, boolean secure, ConnectionGuard guard);
}
