package onager.kernel.tls;

import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslHandler;

/**
 * Puts TLS in front of a connection: the handshake, SNI-aware when certificates
 * are chosen by name, then {@link Alpn}.
 */
public final class TlsFront {
  private TlsFront() {}

  public static final String NAME = "onager-tls";
  // Bounds what a client may send before its ClientHello is whole; one with a post-quantum
  // key share and every extension is a few KiB, and TLS allows 16 MiB (RFC 8446 §4.1.2).
  private static final int MAX_CLIENT_HELLO = 64 * 1024;
  // When the header timeout is off: Netty's own default.
  private static final long DEFAULT_HANDSHAKE_TIMEOUT_MS = 10_000;

  /**
   * Installs TLS first in {@code pipeline}: the certificate chosen by the
   * ClientHello's server name from {@code certificates} when it has several, the handshake to be
   * done within {@code handshakeTimeoutMs} (0 for Netty's 10 s), then {@code alpn}.
   */
  public static void install(ChannelPipeline pipeline, Certificates certificates, long handshakeTimeoutMs,
                             Alpn alpn) {
    long timeout = handshakeTimeoutMs > 0 ? handshakeTimeoutMs : DEFAULT_HANDSHAKE_TIMEOUT_MS;
    pipeline.addFirst(Alpn.NAME, alpn);
    if (certificates.byName()) {
      // The timeout covers the wait for the ClientHello and, in the SslHandler, the handshake.
      pipeline.addFirst(NAME, new SniHandler(certificates, MAX_CLIENT_HELLO, timeout));
      return;
    }
    // One certificate for every name: the handshake starts without parsing the ClientHello first.
    SslHandler tls = certificates.map(null).newHandler(pipeline.channel().alloc());
    tls.setHandshakeTimeoutMillis(timeout);
    pipeline.addFirst(NAME, tls);
  }
}
