package onager.kernel.http1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

/**
 * Closes connections the way RFC 9112 §9.6 asks of a server: send what is
 * queued, shut down the sending side only, and keep reading (and dropping) what
 * the client still sends until it closes, or for {@link #LINGER_MS} at most.
 *
 * <p>A plain close with unread request bytes in the socket makes the kernel
 * answer with a reset, and a reset can destroy the response the client was about
 * to read: a 413 for a body it is still sending, a 414 for a line it has not
 * finished. Sits first in the pipeline, so it sees every close and every byte.
 *
 * <p>A connection the client ends itself needs none of that once its last
 * request is read whole: such a client sends nothing more (§9.6), and a plain
 * close spares a connection per request the half-close, the wait and its timer.
 */
final class LingeringClose extends ChannelDuplexHandler {
  static final String NAME = "onager-lingering-close";
  static final long LINGER_MS = 2_000;
  // A client that keeps sending past this while we wait to close is cut off at once. It is
  // large because the reset that cuts it off can destroy the answer it has not read yet: a
  // client still pushing a huge body over loopback sends a mebibyte in a millisecond.
  static final long MAX_DISCARD = 64L << 20;

  private boolean lingering;
  private boolean plain;
  private long discarded;

  /** The next close is a plain one: the client has said it sends nothing more, and has sent it all. */
  void closePlainly() {
    plain = true;
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    Channel channel = ctx.channel();
    if (lingering) {
      channel.closeFuture().addListener(f -> promise.trySuccess());
      return;
    }
    if (plain || !(channel instanceof DuplexChannel duplex) || !channel.isActive()
        || duplex.isInputShutdown() || duplex.isOutputShutdown()) {
      ctx.close(promise);
      return;
    }
    lingering = true;
    channel.closeFuture().addListener(f -> promise.trySuccess());
    var timer = ctx.executor().schedule(() -> ctx.close(), LINGER_MS, TimeUnit.MILLISECONDS);
    channel.closeFuture().addListener(f -> timer.cancel(false));
    // The empty write completes once everything queued before it is written.
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
      if (!written.isSuccess()) {
        ctx.close();
        return;
      }
      duplex.shutdownOutput().addListener(shut -> {
        if (!shut.isSuccess()) ctx.close();
      });
    });
    channel.config().setAutoRead(true);
    channel.read();
  }

  // After close nothing more goes out: a response written once the connection is
  // closing (a handler's answer to a request the connection already refused) would
  // follow one that told the client the connection ends.
  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (lingering) {
      ReferenceCountUtil.release(msg);
      promise.tryFailure(new ClosedChannelException());
      return;
    }
    ctx.write(msg, promise);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!lingering) {
      ctx.fireChannelRead(msg);
      return;
    }
    if (msg instanceof ByteBuf buf) {
      discarded += buf.readableBytes();
    } else if (msg instanceof ByteBufHolder holder) {
      discarded += holder.content().readableBytes();
    }
    ReferenceCountUtil.release(msg);
    if (discarded > MAX_DISCARD) ctx.close();
  }
}
