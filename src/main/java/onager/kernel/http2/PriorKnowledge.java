package onager.kernel.http2;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import java.nio.charset.StandardCharsets;
import onager.kernel.exchange.Dispatcher;
import onager.kernel.exchange.VirtualStarts;
import onager.kernel.limits.RequestTimeouts;

/**
 * h2c by prior knowledge (RFC 9113 §3.3) on the clear-text listener: looks at a
 * connection's first bytes, in front of the HTTP/1.x pipeline already there.
 * Those of the HTTP/2 connection preface (§3.4) make it an HTTP/2 connection
 * ({@link Http2Pipeline}); the first byte that differs leaves it HTTP/1.x, and
 * this handler goes. Safe to have on: only a client that means HTTP/2 sends the
 * preface, which is no valid HTTP/1.1 request a proxy would pass on.
 */
public final class PriorKnowledge extends ChannelInboundHandlerAdapter {
  static final String NAME = "onager-h2c-preface";
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private final Http2Limits limits;
  private final Dispatcher server;
  private final VirtualStarts starts;
  private final RequestTimeouts timeouts;
  // The bytes seen so far, all of them a beginning of the preface.
  private CompositeByteBuf seen;

  private PriorKnowledge(Http2Limits limits, Dispatcher server, VirtualStarts starts, RequestTimeouts timeouts) {
    this.limits = limits;
    this.server = server;
    this.starts = starts;
    this.timeouts = timeouts;
  }

  /** Puts the detector in front of a connection's HTTP/1.x pipeline, before it reads. */
  public static void install(ChannelPipeline pipeline, Http2Limits limits, Dispatcher server, VirtualStarts starts,
                             RequestTimeouts timeouts) {
    pipeline.addFirst(NAME, new PriorKnowledge(limits, server, starts, timeouts));
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof ByteBuf data)) {
      ctx.fireChannelRead(msg);
      return;
    }
    ByteBuf in = data;
    if (seen != null) {
      seen.addComponent(true, data);
      in = seen;
    }
    int n = Math.min(in.readableBytes(), PREFACE.length);
    int at = in.readerIndex();
    for (int i = 0; i < n; i++) {
      if (in.getByte(at + i) != PREFACE[i]) {
        pass(ctx, in);
        return;
      }
    }
    if (n < PREFACE.length) {
      if (seen == null) seen = ctx.alloc().compositeBuffer().addComponent(true, data);
      return;
    }
    Http2Pipeline.install(ctx.pipeline(), limits, server, starts, timeouts);
    pass(ctx, in);
  }

  private void pass(ChannelHandlerContext ctx, ByteBuf in) {
    seen = null;
    ctx.pipeline().remove(this);
    ctx.fireChannelRead(in);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    CompositeByteBuf s = seen;
    seen = null;
    if (s != null) s.release();
  }
}
