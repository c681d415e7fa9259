package onager.kernel.exchange;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.ssl.SslHandler;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;

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
   * The certificate the client presented in the TLS handshake (mutual TLS), or
   * null: none asked for, none sent, or no TLS. The channel's TLS session has
   * it, whatever protocol runs over it. From any thread.
   */
  default X509Certificate clientCertificate() {
    SslHandler tls = channel().pipeline().get(SslHandler.class);
    if (tls == null) return null;
    try {
      Certificate[] chain = tls.engine().getSession().getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate leaf ? leaf : null;
    } catch (SSLPeerUnverifiedException none) {
      return null;
    }
  }

  /**
   * True once the connection drains because the server stops: each response
   * from then on tells its client that the connection closes after it. HTTP/2
   * says so once, with GOAWAY. From any thread.
   */
  default boolean draining() {
    return false;
  }

  /** True when a request's answer may switch the connection to a WebSocket (HTTP/1.1's). */
  default boolean switchesToWebSocket() {
    return false;
  }

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
