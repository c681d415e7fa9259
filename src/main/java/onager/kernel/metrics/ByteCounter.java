package onager.kernel.metrics;

import io.micrometer.core.instrument.Counter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.FileRegion;
import java.util.concurrent.atomic.AtomicLong;

/**
 * First in each connection's pipeline: counts the bytes read and written on
 * the wire, and the connection as open until it closes. One for the server.
 */
@ChannelHandler.Sharable
final class ByteCounter extends ChannelDuplexHandler {
  private final AtomicLong open;
  private final Counter received;
  private final Counter sent;

  ByteCounter(AtomicLong open, Counter received, Counter sent) {
    this.open = open;
    this.received = received;
    this.sent = sent;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (msg instanceof ByteBuf b) received.increment(b.readableBytes());
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    long n = msg instanceof ByteBuf b ? b.readableBytes()
        : msg instanceof FileRegion f ? f.count() - f.transferred()
        : msg instanceof ByteBufHolder h ? h.content().readableBytes()
        : 0;
    if (n > 0) sent.increment(n);
    ctx.write(msg, promise);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    open.decrementAndGet();
    ctx.fireChannelInactive();
  }
}
