package onager.kernel.http1;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import onager.kernel.limits.SocketStall;
import onager.kernel.log.Logs;

/**
 * The timeouts of one HTTP/1.x connection, so that a slow or silent client
 * cannot hold it: the header timeout (a head that began must be complete in
 * time: 408), the body timeout (a body the server reads must not stall: 408),
 * the idle timeout (the next request must begin in time once every answer has
 * left, and a client must take the bytes of a full socket in time; either way
 * the connection closes). Time spent by the handler is the request timeout's.
 *
 * <p>One timer per connection ticks at a quarter of the shortest timeout; what
 * the connection does per request costs a few field writes, with no clock read
 * and no timer set. The ticks run on the event loop.
 */
final class ConnectionClock implements Runnable {

  private final Http1Connection connection;
  private final long headerTimeoutNanos;
  private final long bodyTimeoutNanos;
  private final long idleTimeoutNanos;
  private final long idleAfterNanos;
  private final long tickMs;

  private ChannelHandlerContext ctx;
  private ScheduledFuture<?> timer;
  private boolean done;

  // Something moved since the last tick: a request, an answer, body bytes.
  private boolean active;
  private boolean bodyMoved;
  private long idleSince;
  private long headSince;
  private long bodyQuietSince;
  private final SocketStall socket = new SocketStall();

  ConnectionClock(Http1Connection connection, Http1Limits limits) {
    this.connection = connection;
    this.headerTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.headerTimeoutMs());
    this.bodyTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.bodyTimeoutMs());
    this.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.idleTimeoutMs());
    this.tickMs = SocketStall.tickMs(limits.headerTimeoutMs(), limits.bodyTimeoutMs(), limits.idleTimeoutMs());
    // idleSince is the tick that saw the connection busy, a little after it was; a later
    // tick may run on time where that one ran late by a little, which must not cost a tick.
    this.idleAfterNanos = idleTimeoutNanos - TimeUnit.MILLISECONDS.toNanos(tickMs) / 8;
  }

  void start(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    if (tickMs == 0) return;
    long now = System.nanoTime();
    idleSince = now;
    bodyQuietSince = now;
    socket.reset(now);
    timer = ctx.executor().scheduleAtFixedRate(this, tickMs, tickMs, TimeUnit.MILLISECONDS);
  }

  void stop() {
    done = true;
    ScheduledFuture<?> t = timer;
    if (t != null) {
      timer = null;
      t.cancel(false);
    }
  }

  /** A request or an answer went by: the connection is not idle. */
  void active() {
    active = true;
  }

  /** Body bytes arrived. */
  void bodyMoved() {
    bodyMoved = true;
  }

  /** The first bytes of a request head arrived. */
  void headBegan() {
    headSince = System.nanoTime();
  }

  @Override
  public void run() {
    Channel channel = ctx.channel();
    if (done || !channel.isActive()) {
      stop();
      return;
    }
    long now = System.nanoTime();
    if (active) {
      active = false;
      idleSince = now;
    }
    if (bodyMoved || !channel.config().isAutoRead() || connection.awaitingContinue()) {
      // Reading paused is the server holding the client back, not the client stalling; so
      // is a client waiting for the 100 Continue the handler has not asked for yet.
      bodyMoved = false;
      bodyQuietSince = now;
    }
    Http1Connection.Input input = connection.input();
    boolean owes = connection.owesAnswers();
    if (input == Http1Connection.Input.HEAD) {
      if (headerTimeoutNanos > 0 && !owes && now - headSince >= headerTimeoutNanos) {
        connection.refuseHead(408, "the request head did not arrive within :header-timeout-ms");
        return;
      }
    } else if (!owes && input != Http1Connection.Input.BODY && idleTimeoutNanos > 0) {
      // The last response may still be leaving: the connection is idle once its bytes stop moving.
      if (socket.outboundMoved(channel)) idleSince = now;
      if (now - idleSince >= idleAfterNanos) {
        Logs.SERVER.debug("closing {}: idle for :idle-timeout-ms", channel.remoteAddress());
        connection.closeNow();
        return;
      }
    }
    if (input == Http1Connection.Input.BODY && bodyTimeoutNanos > 0 && now - bodyQuietSince >= bodyTimeoutNanos) {
      connection.failBody(408, "the request body stalled for :body-timeout-ms", null);
      return;
    }
    if (owes && idleTimeoutNanos > 0 && socket.stalled(channel, now, idleTimeoutNanos)) {
      Logs.CLIENT.debug("closing {}: the client took no response bytes for :idle-timeout-ms", channel.remoteAddress());
      connection.closeNow();
    }
  }
}
