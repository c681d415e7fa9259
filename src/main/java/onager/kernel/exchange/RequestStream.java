package onager.kernel.exchange;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpObject;

/**
 * The protocol side of the exchanges it carries: how their requests arrived and
 * how their responses leave. An HTTP/1.1 connection is one (its exchanges
 * answered in order); an HTTP/2 stream would be another. The protocol makes an
 * {@link Exchange} per request, feeds it the request body, and hands it to the
 * {@link Dispatcher}; the exchange answers through these methods, each called
 * on the channel's event loop.
 */
public interface RequestStream {
  /** The channel: its event loop, its allocator, its addresses. */
  Channel channel();

  /** True when the connection is TLS. */
  boolean secure();

  /**
   * Exchanges have {@link Exchange#takeAnswer answers} published: write those
   * whose turn has come, in order, and flush them.
   */
  void answersReady();

  /**
   * Writes a part of {@code x}'s streamed response (its head first, its
   * {@code LastHttpContent} last), flushed, completing {@code promise}.
   */
  void writePart(Exchange x, HttpObject part, ChannelPromise promise);

  /** Stops reading {@code x}'s request body until {@link #resumeBody}: its reader is behind. */
  void pauseBody(Exchange x);

  /** Reads {@code x}'s request body on. */
  void resumeBody(Exchange x);

  /** {@code x}'s handler reads the body its client waits to send: 100 Continue (RFC 9110 §10.1.1). */
  void sendContinue(Exchange x);

  /**
   * {@code x}'s response cannot be completed (it failed after its head went out, or its
   * body is over the limit and still coming): only ending the connection tells the client.
   */
  void abort(Exchange x);
}
