package onager.kernel.server;

import io.netty.channel.Channel;
import io.netty.channel.ChannelPipeline;
import io.vertx.core.http.Http1ServerConfig;
import java.util.List;
import java.util.function.Consumer;
import onager.kernel.exchange.Dispatcher;
import onager.kernel.exchange.VirtualStarts;
import onager.kernel.http1.Http1Limits;
import onager.kernel.http1.Http1Pipeline;
import onager.kernel.http1.Upgrade;
import onager.kernel.http2.H2cUpgrade;
import onager.kernel.http2.Http2Pipeline;
import onager.kernel.http2.Http2Limits;
import onager.kernel.http2.PriorKnowledge;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.tls.Alpn;
import onager.kernel.tls.Certificates;
import onager.kernel.tls.TlsFront;

/**
 * What an accepted connection's pipeline becomes, by the listener that accepted
 * it: HTTP/1.1 at once in clear text; on the TLS port the handshake first, then
 * the protocol ALPN chose. One per event loop.
 */
final class ConnectionSetup {
  /** The protocols the TLS listener offers by ALPN: HTTP/2 first. */
  static final List<String> ALPN = Alpn.protocols(true);

  private final Http1ServerConfig http1;
  private final Http1Limits limits;
  private final Dispatcher dispatcher;
  private final VirtualStarts starts;
  private final RequestTimeouts timeouts;
  private final Certificates certificates;
  private final long handshakeTimeoutMs;
  private final Http2Limits http2;
  // h2c by prior knowledge on the clear-text port.
  private final boolean h2c;
  // h2c by Upgrade on the clear-text port; null when off.
  private final Upgrade upgrade;
  private final Consumer<ChannelPipeline> installHttp1 = this::http1;
  private final Consumer<ChannelPipeline> installHttp2 = this::http2;

  ConnectionSetup(Http1ServerConfig http1, Http1Limits limits, Dispatcher dispatcher, VirtualStarts starts,
                  RequestTimeouts timeouts, Certificates certificates, long handshakeTimeoutMs, Http2Limits http2,
                  boolean h2c, boolean h2cUpgrade) {
    this.http2 = http2;
    this.h2c = h2c;
    this.upgrade = h2cUpgrade ? new H2cUpgrade(http2, dispatcher, starts, timeouts) : null;
    this.http1 = http1;
    this.limits = limits;
    this.dispatcher = dispatcher;
    this.starts = starts;
    this.timeouts = timeouts;
    this.certificates = certificates;
    this.handshakeTimeoutMs = handshakeTimeoutMs;
  }

  /** A connection to the clear-text port. */
  void clearText(Channel channel) {
    Http1Pipeline.install(channel.pipeline(), http1, limits, dispatcher, starts, timeouts, upgrade);
    if (h2c) PriorKnowledge.install(channel.pipeline(), http2, dispatcher, starts, timeouts);
  }

  /** A connection to the TLS port. */
  void tls(Channel channel) {
    TlsFront.install(channel.pipeline(), certificates, handshakeTimeoutMs, new Alpn(installHttp1, installHttp2));
  }

  private void http2(ChannelPipeline pipeline) {
    Http2Pipeline.install(pipeline, http2, dispatcher, starts, timeouts);
  }

  private void http1(ChannelPipeline pipeline) {
    Http1Pipeline.install(pipeline, http1, limits, dispatcher, starts, timeouts);
  }
}
