package onager.kernel.proxy;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.haproxy.HAProxyProxiedProtocol;
import io.netty.util.NetUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.TimeUnit;
import onager.kernel.log.Logs;
import onager.kernel.log.Reasons;

/**
 * The PROXY protocol header (v1 or v2) that opens a connection, read by
 * Netty's decoder at the very front of the pipeline, before TLS and HTTP. Its
 * source address becomes the connection's peer ({@link ProxyProtocol#peer});
 * then the decoder and this handler go, and the bytes that came after the
 * header reach the protocol's first handler. A connection whose header is
 * malformed, or missing (its first bytes are no header), or not there in time
 * is closed without an answer: no proxy that means it sends such a thing.
 *
 * <p>Vert.x's own support (HttpServerOptions.setUseProxyProtocol) is not used:
 * it hands the connection over while its decoder still sits in the pipeline,
 * and Onager's handlers, put in front, would miss the bytes that arrived in
 * the same read as the header (a TLS ClientHello, an HTTP/2 preface).
 */
final class ProxyHeader extends ChannelInboundHandlerAdapter {
  private static final String DECODER = "onager-proxy-protocol-decoder";
  private static final String NAME = "onager-proxy-protocol";

  private ScheduledFuture<?> timeout;

  private ProxyHeader() {}

  /**
   * Puts the decoder in front of the pipeline {@code channel} already has, the
   * header to arrive within {@code timeoutMs} (0: no limit).
   */
  static void install(Channel channel, long timeoutMs) {
    ProxyHeader handler = new ProxyHeader();
    channel.pipeline().addFirst(NAME, handler);
    channel.pipeline().addFirst(DECODER, new HAProxyMessageDecoder());
    if (timeoutMs > 0) {
      handler.timeout = channel.eventLoop().schedule(() -> {
        if (channel.pipeline().get(NAME) != null) {
          Logs.CLIENT.debug("PROXY protocol: {} sent no header within :header-timeout-ms; closed",
              channel.remoteAddress());
          channel.close();
        }
      }, timeoutMs, TimeUnit.MILLISECONDS);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof HAProxyMessage header)) {
      ctx.fireChannelRead(msg);
      return;
    }
    try {
      InetSocketAddress source = source(header);
      if (source != null) ProxyProtocol.remember(ctx.channel(), source);
    } finally {
      header.release();
    }
    if (timeout != null) timeout.cancel(false);
    ctx.pipeline().remove(this);
  }

  // The client's address, for TCP over IPv4 or IPv6; null for a LOCAL command (a proxy's own
  // connection, as its health checks) and for an unknown or other family: the socket's address stays.
  private static InetSocketAddress source(HAProxyMessage header) {
    HAProxyProxiedProtocol protocol = header.proxiedProtocol();
    if (protocol != HAProxyProxiedProtocol.TCP4 && protocol != HAProxyProxiedProtocol.TCP6) return null;
    byte[] ip = NetUtil.createByteArrayFromIpAddressString(header.sourceAddress());
    if (ip == null) return null;
    try {
      return new InetSocketAddress(InetAddress.getByAddress(ip), header.sourcePort());
    } catch (UnknownHostException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  // The decoder closed the connection on a bad header (HAProxyProtocolException): the client's doing.
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (timeout != null) timeout.cancel(false);
    Logs.CLIENT.debug("PROXY protocol: closed {}: {}", ctx.channel().remoteAddress(), Reasons.innermost(cause));
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (timeout != null) timeout.cancel(false);
    ctx.fireChannelInactive();
  }
}
