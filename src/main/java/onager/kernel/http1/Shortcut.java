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
 */
public interface Shortcut {
  /**
   * Answers {@code request}, writing the response through {@code ctx} without
   * flushing it, and returns true; or returns false, and the request goes on to
   * Vert.x as any other does.
   *
   * @param secure the connection is TLS
   */
  boolean answer(ChannelHandlerContext ctx, HttpRequest request, boolean secure);
}
