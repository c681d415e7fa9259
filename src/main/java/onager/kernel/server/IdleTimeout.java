package onager.kernel.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection that has read and written nothing for the idle timeout.
 *
 * <p>Instead of Netty's IdleStateHandler (what Vert.x's idle timeout installs), which
 * adds a listener to the promise of every write to learn when it completes: that
 * listener turns each response's void write promise into a real one and costs a
 * task on the event loop when it completes, about a third of a microsecond per
 * response, a fifth of what a pipelined response costs in all. Here a read or a
 * write only sets a flag; a check every quarter of the timeout closes the
 * connection after four checks in a row found the flag unset, so between the
 * timeout and five quarters of it after the last activity. A write counts when
 * it is made, not when it completes: a client that stops reading stops the
 * writes (back-pressure), and the connection is then closed as idle.
 */
final class IdleTimeout extends ChannelDuplexHandler implements Runnable {
  static final String NAME = "onager-idle-timeout";
  private static final int CHECKS = 4;

  private final long periodNanos;
  private ChannelHandlerContext ctx;
  private ScheduledFuture<?> check;
  private boolean active;
  private int quiet;

  IdleTimeout(long timeoutMs) {
    this.periodNanos = Math.max(1, TimeUnit.MILLISECONDS.toNanos(timeoutMs) / CHECKS);
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    schedule();
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    cancel();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    cancel();
    ctx.fireChannelInactive();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    active = true;
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    active = true;
    ctx.write(msg, promise);
  }

  /** A check, on the event loop. */
  @Override
  public void run() {
    check = null;
    if (!ctx.channel().isOpen()) return;
    if (active) {
      active = false;
      quiet = 0;
    } else if (++quiet >= CHECKS) {
      ctx.close();
      return;
    }
    schedule();
  }

  private void schedule() {
    check = ctx.executor().schedule(this, periodNanos, TimeUnit.NANOSECONDS);
  }

  private void cancel() {
    ScheduledFuture<?> c = check;
    check = null;
    if (c != null) c.cancel(false);
  }
}
