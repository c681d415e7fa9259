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
 *
 * <p>A first line of three words whose last is no HTTP version is neither: a
 * client that meant HTTP/2 and sent another preface, which §3.4 makes a
 * connection error. It is closed without an answer, where HTTP/1.1 would
 * write a 400 that client could not read.
 */
public final class PriorKnowledge extends ChannelInboundHandlerAdapter {
  static final String NAME = "onager-h2c-preface";
  private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

  private static final byte[] HTTP = "HTTP/".getBytes(StandardCharsets.US_ASCII);

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
        if (isNoHttpLine(in)) {
          seen = null;
          in.release();
          ctx.close();
        } else {
          pass(ctx, in);
        }
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

  // The first line, when it is all in: three words, the last not starting "HTTP/" in any case.
  private static boolean isNoHttpLine(ByteBuf in) {
    int start = in.readerIndex();
    int end = in.indexOf(start, in.writerIndex(), (byte) '\r');
    if (end < 0) return false;
    int spaces = 0;
    int lastWord = start;
    for (int i = start; i < end; i++) {
      if (in.getByte(i) == ' ') {
        spaces++;
        lastWord = i + 1;
      }
    }
    if (spaces != 2) return false;
    if (end - lastWord < HTTP.length) return true;
    for (int i = 0; i < HTTP.length; i++) {
      if ((in.getByte(lastWord + i) & 0xDF) != (HTTP[i] & 0xDF)) return true;
    }
    return false;
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
