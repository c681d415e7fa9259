package onager.kernel.http2;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import onager.kernel.limits.SocketStall;
import onager.kernel.log.Logs;

/**
 * The timeouts of one HTTP/2 connection: the idle timeout (no stream open and no
 * request frame for that long: GOAWAY and close), the header timeout (a header
 * block begun and not ended for that long: GOAWAY and close, since the
 * connection's other frames cannot come before the block's end, RFC 9113 §6.10),
 * the body timeout per stream (a request body the handler reads that stalls:
 * 408 and the stream reset), and the write stall per stream (response bytes
 * wait for a window the client does not open for the idle timeout: the stream
 * is reset and its body's source let go; a socket that takes nothing for as
 * long closes the connection). One timer per connection ticks at a quarter of
 * the shortest timeout, on the event loop.
 */
final class H2Clock implements Runnable {

  private final H2Connection connection;
  private final long headerTimeoutNanos;
  private final long bodyTimeoutNanos;
  private final long idleTimeoutNanos;
  private final long tickMs;

  private ScheduledFuture<?> timer;
  private Channel channel;
  private boolean active;
  private boolean windowMoved;
  private long idleSince;
  private final SocketStall socket = new SocketStall();
  // The header block open at the last tick (by its number), and since when it has been seen open.
  private long block;
  private long blockSince;

  H2Clock(H2Connection connection, Http2Limits limits) {
    this.connection = connection;
    this.headerTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.headerTimeoutMs());
    this.bodyTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.bodyTimeoutMs());
    this.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.idleTimeoutMs());
    this.tickMs = SocketStall.tickMs(limits.headerTimeoutMs(), limits.bodyTimeoutMs(), limits.idleTimeoutMs());
  }

  void start(ChannelHandlerContext ctx) {
    channel = ctx.channel();
    if (tickMs == 0) return;
    long now = System.nanoTime();
    idleSince = now;
    socket.reset(now);
    timer = ctx.executor().scheduleAtFixedRate(this, tickMs, tickMs, TimeUnit.MILLISECONDS);
  }

  void stop() {
    ScheduledFuture<?> t = timer;
    if (t != null) {
      timer = null;
      t.cancel(false);
    }
  }

  /** A request's frame came: the connection is not idle. */
  void active() {
    active = true;
  }

  /** The client opened the connection's window. */
  void windowMoved() {
    windowMoved = true;
  }

  @Override
  public void run() {
    if (connection.ended() || !channel.isActive()) {
      stop();
      return;
    }
    long now = System.nanoTime();
    if (active) {
      active = false;
      idleSince = now;
    }
    if (headerTimeoutNanos > 0 && blockStalled(now)) {
      Logs.CLIENT.debug("closing {}: a header block took longer than :header-timeout-ms", channel.remoteAddress());
      connection.headerTimeout();
      return;
    }
    boolean connectionWindow = windowMoved;
    windowMoved = false;
    if (connection.connection().numActiveStreams() == 0) {
      if (idleTimeoutNanos > 0 && !socket.outboundMoved(channel) && now - idleSince >= idleTimeoutNanos) {
        Logs.SERVER.debug("closing {}: idle for :idle-timeout-ms", channel.remoteAddress());
        connection.closeGracefully();
      }
      return;
    }
    idleSince = now;
    if (idleTimeoutNanos > 0 && socket.stalled(channel, now, idleTimeoutNanos)) {
      Logs.CLIENT.debug("closing {}: the client took no response bytes for :idle-timeout-ms", channel.remoteAddress());
      connection.closeNow();
      return;
    }
    Http2RemoteFlowController flow = connection.encoder.flowController();
    try {
      checkStreams(flow, now, connectionWindow);
    } catch (Http2Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void checkStreams(Http2RemoteFlowController flow, long now, boolean connectionWindow)
      throws Http2Exception {
    connection.connection().forEachActiveStream(s -> {
      H2Stream h = connection.streamOf(s);
      if (h == null) return true;
      if (bodyTimeoutNanos > 0 && h.receivingBody()) {
        if (h.bodyMoved || h.paused()) {
          h.bodyMoved = false;
          h.bodyQuietSince = now;
        } else if (h.bodyQuietSince == 0) {
          h.bodyQuietSince = now;
        } else if (now - h.bodyQuietSince >= bodyTimeoutNanos) {
          h.bodyStalled();
          return true;
        }
      }
      if (idleTimeoutNanos > 0 && h.responding()) {
        boolean moved = h.windowMoved || connectionWindow;
        h.windowMoved = false;
        if (moved || !flow.hasFlowControlled(s) || h.writeQuietSince == 0) {
          h.writeQuietSince = now;
        } else if (now - h.writeQuietSince >= idleTimeoutNanos) {
          Logs.CLIENT.debug("{}: stream {} reset: the client opened no window for :idle-timeout-ms",
              channel.remoteAddress(), s.id());
          h.writeStalled();
        }
      }
      return true;
    });
  }

  // True when the header block open now was open for the header timeout: counted from the tick
  // that first saw it, so never early.
  private boolean blockStalled(long now) {
    HeaderBlocks blocks = connection.blocks;
    if (!blocks.open()) return false;
    if (blocks.opened() != block) {
      block = blocks.opened();
      blockSince = now;
      return false;
    }
    return now - blockSince >= headerTimeoutNanos;
  }
}
