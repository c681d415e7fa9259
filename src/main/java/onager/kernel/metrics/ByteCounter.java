package onager.kernel.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import java.util.concurrent.atomic.LongAdder;

/**
 * First in each connection's pipeline: counts the bytes read and written on
 * the wire, into adders that the registry reads as counters when it reports
 * (cheaper per read than a registry's own counter). One for the server.
 */
@ChannelHandler.Sharable
final class ByteCounter extends ChannelDuplexHandler {
  private final LongAdder received;
  private final LongAdder sent;

  ByteCounter(LongAdder received, LongAdder sent) {
    this.received = received;
    this.sent = sent;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf b) received.add(b.readableBytes());
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    long n = msg instanceof ByteBuf b ? b.readableBytes()
        : msg instanceof FileRegion f ? f.count() - f.transferred()
        : msg instanceof ByteBufHolder h ? h.content().readableBytes()
        : 0;
    if (n > 0) sent.add(n);
    ctx.write(msg, promise);
  }
}
