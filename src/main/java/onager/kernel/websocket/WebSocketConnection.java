package onager.kernel.websocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.VoidChannelPromise;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CloseWebSocketFrame;
import io.netty.handler.codec.http.websocketx.ContinuationWebSocketFrame;
import io.netty.handler.codec.http.websocketx.CorruptedWebSocketFrameException;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import onager.kernel.log.Logs;
import onager.kernel.vertx.VertxInternals;

/**
 * One WebSocket connection, after the frame codec, on either {@link Side}:
 * assembles messages from their fragments within the size limit, answers the
 * control frames, runs the closing handshake, keeps the idle, ping and write
 * clocks, and hands what the peer sent to the listener through the {@link
 * Inbox}, whose backlog pauses reading. The channel methods run on the event
 * loop. The comments say "client" for the peer as the server sees it; on the
 * client's side the roles swap, except who closes the TCP connection first.
 */
final class WebSocketConnection extends ChannelDuplexHandler {
  static final String NAME = "onager-websocket";

  // RFC 6455 §7.4.1 codes the server closes with, and those it reports without a close frame.
  static final int GOING_AWAY = 1001;
  static final int NO_STATUS = 1005;
  static final int ABNORMAL = 1006;
  static final int TOO_BIG = 1009;
  static final int INTERNAL_ERROR = 1011;

  // How long the server waits for the client's close frame after sending its own (§7.1.1), and
  // the client for the server to close the connection once the close frames have crossed.
  private static final long CLOSE_WAIT_MS = 5_000;
  // Messages and control frames the listener may have waiting before the connection stops reading.
  private static final int MAX_QUEUED = 64;
  // The first buffer of a message that arrives in fragments; it doubles as they come.
  private static final int FIRST_PARTS_CAPACITY = 1024;

  private final WebSocketListener listener;
  private final WebSocketLimits limits;
  private final OpenSockets sockets;
  private final Side side;
  private final String protocol;
  private final Inbox inbox;
  private final Runnable resume = this::resume;
  private ChannelHandlerContext ctx;
  private WebSocket socket;
  // For writes no one waits on (the server's pings and pongs, the socket's sends): it completes
  // no one, so a write allocates no promise, and a failed write reaches exceptionCaught, which
  // leaves a closed connection's refusals to on-close.
  private ChannelPromise unwatched;

  // The message arriving in fragments, copied into one buffer: a flood of tiny fragments costs
  // their bytes, not a buffer and a component each.
  private ByteBuf parts;
  private boolean partsText;
  // Events handed to the inbox and not yet taken by the listener, counted up on the event loop
  // and down where the listener runs; reading pauses while too many wait, while the client
  // takes no bytes (so a ping flood cannot pile up pongs), and once the server stops.
  private final AtomicInteger queued = new AtomicInteger();
  private boolean paused;
  private boolean stopping;

  // The closing handshake: what went out, what came in, and the code reported to on-close.
  private volatile boolean closeSent;
  private volatile boolean closeReceived;
  private int code = ABNORMAL;
  private String reason = "";
  private boolean peerClosedFirst;
  // How the connection ended, for the sends it fails: set once it is inactive.
  private volatile String ending;
  // on-open was posted: on-close will be, once.
  private boolean opened;

  // The clocks: something was read since the last tick; when the last read and ping were.
  private boolean readSinceTick;
  private long lastRead;
  private long lastPing;
  private ScheduledFuture<?> tick;
  private ScheduledFuture<?> writeTimer;
  private ScheduledFuture<?> closeTimer;

  WebSocketConnection(WebSocketSwitch ws, WebSocketLimits limits) {
    this.listener = ws.listener();
    this.sockets = ws.sockets();
    this.side = ws.side();
    this.protocol = ws.protocol();
    this.limits = limits;
    this.inbox = new Inbox(ws.runner());
  }

  /** A message goes out: whoever counts them is told. */
  void messageSent(boolean text) {
    MessageMeter meter = sockets.messages;
    if (meter != null) meter.sent(text);
  }

  WebSocket socket() {
    return socket;
  }

  /** True while messages may be sent: no close frame went either way, the connection is up. */
  boolean sending() {
    return !closeSent && !closeReceived && ctx.channel().isActive();
  }

  /** How the connection ended (who closed it, with what code and reason), or null while it is open. */
  String ending() {
    return ending;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    unwatched = new VoidChannelPromise(ctx.channel(), true);
    socket = new WebSocket(this, ctx.channel(), unwatched, limits.writeTimeoutMs(), protocol);
  }

  /** The pipeline is whole: the listener hears of the socket, and its frames are read. */
  void open() {
    // A client gone before its 101 went out never had a socket: no on-open, so no on-close.
    if (!ctx.channel().isActive()) return;
    opened = true;
    sockets.opened();
    lastRead = lastPing = System.nanoTime();
    scheduleTick();
    post(() -> listener.onOpen(socket));
    // HTTP/1.1 may have left reading paused, or on without a read pending: ask for frames.
    updateReading();
    if (ctx.channel().config().isAutoRead()) ctx.read();
  }

  // ---- what comes in ----

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    readSinceTick = true;
    if (!(msg instanceof WebSocketFrame frame)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (closeReceived) {
      frame.release();
      return;
    }
    if (frame instanceof TextWebSocketFrame || frame instanceof BinaryWebSocketFrame
        || frame instanceof ContinuationWebSocketFrame) {
      onData(frame);
    } else if (frame instanceof PingWebSocketFrame ping) {
      onPing(ping);
    } else if (frame instanceof PongWebSocketFrame pong) {
      ByteBuffer data = copy(pong.content());
      pong.release();
      if (!closeSent) enqueue(() -> listener.onPong(socket, data));
    } else if (frame instanceof CloseWebSocketFrame close) {
      onClose(close);
    } else {
      frame.release();
    }
  }

  private void onData(WebSocketFrame frame) {
    // After the server's close frame, messages are not delivered (§5.5.1); the client's close is awaited.
    if (closeSent) {
      frame.release();
      return;
    }
    ByteBuf content = frame.content();
    int size = content.readableBytes() + (parts == null ? 0 : parts.readableBytes());
    if (size > limits.maxMessageSize()) {
      frame.release();
      fail(TOO_BIG, "message over " + side.option("max-message-size"), null);
      return;
    }
    if (parts == null && frame.isFinalFragment()) {
      deliver(frame instanceof TextWebSocketFrame, content);
      frame.release();
      return;
    }
    if (parts == null) {
      parts = ctx.alloc().buffer(Math.max(FIRST_PARTS_CAPACITY, content.readableBytes()));
      partsText = frame instanceof TextWebSocketFrame;
    }
    parts.writeBytes(content);
    boolean last = frame.isFinalFragment();
    frame.release();
    if (last) {
      ByteBuf whole = parts;
      parts = null;
      deliver(partsText, whole);
      whole.release();
    }
  }

  private void deliver(boolean text, ByteBuf content) {
    MessageMeter meter = sockets.messages;
    if (meter != null) meter.received(text);
    Object message = text ? content.toString(StandardCharsets.UTF_8) : copy(content);
    enqueue(() -> listener.onMessage(socket, message));
  }

  // Hands the listener something the client sent, counted against the backlog.
  private void enqueue(Runnable call) {
    if (queued.incrementAndGet() >= MAX_QUEUED && !paused) {
      paused = true;
      updateReading();
    }
    post(() -> {
      try {
        call.run();
      } finally {
        taken();
      }
    });
  }

  // The listener took an event. Only the one that brings the backlog down to the mark where
  // reading resumes goes to the event loop: a task per message, from a virtual thread, would
  // cost the loop a hand-over for each.
  private void taken() {
    if (queued.decrementAndGet() != MAX_QUEUED / 2) return;
    if (ctx.executor().inEventLoop()) {
      resume();
    } else {
      ctx.executor().execute(resume);
    }
  }

  // Reading goes on once the listener has few events left; the count may have risen again
  // since the mark was reached, and then the next time it falls to the mark resumes it.
  private void resume() {
    if (paused && queued.get() <= MAX_QUEUED / 2) {
      paused = false;
      updateReading();
    }
  }

  /**
   * Reads while the listener keeps up and the client takes what it is sent. After the
   * server's close frame only the client's is awaited (§7.1.1), and what else comes is
   * dropped unanswered, so reading goes on then whatever the backlog.
   */
  private void updateReading() {
    if (closeReceived || !ctx.channel().isActive()) return;
    boolean read = closeSent || !(paused || stopping || !ctx.channel().isWritable());
    if (read == ctx.channel().config().isAutoRead()) return;
    ctx.channel().config().setAutoRead(read);
    if (read) ctx.read();
  }

  private void onPing(PingWebSocketFrame ping) {
    if (closeSent) {
      ping.release();
      return;
    }
    if (!listener.answersPings()) {
      // §5.5.2: the pong carries the ping's data.
      ctx.writeAndFlush(new PongWebSocketFrame(ping.content()), unwatched);
      return;
    }
    ByteBuffer data = copy(ping.content());
    ping.release();
    enqueue(() -> listener.onPing(socket, data));
  }

  private void onClose(CloseWebSocketFrame close) {
    closeReceived = true;
    int status = close.statusCode();
    if (closeSent) {
      close.release();
      // The close frames have crossed: the server closes the connection, the client waits for it.
      if (side == Side.SERVER) ctx.close();
      return;
    }
    // The client closes: on-close gets its code and reason. (When the server closed first, its own.)
    peerClosedFirst = true;
    code = status < 0 ? NO_STATUS : status;
    String text = close.reasonText();
    reason = text == null ? "" : text;
    closeSent = true;
    // §5.5.1: the answer echoes the code; then the server closes the connection first (§7.1.1),
    // and the client closes it only when the server has not within the close wait.
    CloseWebSocketFrame answer = status < 0 ? new CloseWebSocketFrame() : new CloseWebSocketFrame(status, "");
    close.release();
    if (side == Side.SERVER) {
      ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
    } else {
      ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
      closeTimer = ctx.executor().schedule(() -> ctx.close(), CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
    }
  }

  // ---- the closing handshake and failures ----

  /** Sends this side's close frame, from any thread; the connection ends when the peer answers. */
  void close(int status, String why) {
    if (ctx.executor().inEventLoop()) {
      closeNow(status, why);
    } else {
      ctx.executor().execute(() -> closeNow(status, why));
    }
  }

  private void closeNow(int status, String why) {
    if (closeSent || !ctx.channel().isActive()) return;
    closeSent = true;
    code = status;
    reason = why;
    ctx.writeAndFlush(new CloseWebSocketFrame(status, why)).addListener(f -> {
      if (!f.isSuccess()) ctx.close();
    });
    if (closeReceived) {
      ctx.close();
      return;
    }
    // The client's close frame must be read even while the listener is behind.
    updateReading();
    closeTimer = ctx.executor().schedule(() -> ctx.close(), CLOSE_WAIT_MS, TimeUnit.MILLISECONDS);
  }

  // The client broke a rule: the listener hears why, the client gets the close code.
  private void fail(int status, String why, Throwable cause) {
    if (parts != null) {
      parts.release();
      parts = null;
    }
    if (side.log.isDebugEnabled()) {
      side.log.debug("{} {} closed with {}: {}", side.socketOf(), ctx.channel().remoteAddress(), status, why);
    }
    Throwable error = cause != null ? cause
        : new CorruptedWebSocketFrameException(WebSocketCloseStatus.valueOf(status), why);
    post(() -> listener.onError(socket, error));
    closeNow(status, why);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof ClosedChannelException || cause instanceof IOException && !ctx.channel().isActive()) {
      // A write the closed or closing connection refused: on-close tells the listener.
      return;
    }
    if (cause instanceof CorruptedWebSocketFrameException bad) {
      // The frame decoder or the UTF-8 check sent its close frame, and closes the connection once it is out.
      closeSent = true;
      code = bad.closeStatus().code();
      reason = bad.closeStatus().reasonText();
      if (side.log.isDebugEnabled()) {
        side.log.debug("{} {} closed with {}: {}", side.socketOf(), ctx.channel().remoteAddress(), code,
            cause.getMessage());
      }
      post(() -> listener.onError(socket, cause));
    } else if (cause instanceof DecoderException) {
      // permessage-deflate could not inflate a message within the size limit.
      fail(TOO_BIG, "message over " + side.option("max-message-size") + " once inflated", cause);
    } else if (cause instanceof IOException || cause.getCause() instanceof SSLException) {
      post(() -> listener.onError(socket, cause));
      ctx.close();
    } else {
      side.errors.error("{} {} failed", side.socketOf(), ctx.channel().remoteAddress(), cause);
      post(() -> listener.onError(socket, cause));
      ctx.close();
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    stopClocks();
    if (parts != null) {
      parts.release();
      parts = null;
    }
    closeReceived = true;
    int status = code;
    String why = reason;
    ending = status == ABNORMAL ? "the connection ended without a closing handshake"
        : (peerClosedFirst ? "the peer closed it with " : "this side closed it with ") + status
            + (why.isEmpty() ? "" : " \"" + why + "\"");
    if (opened) {
      inbox.post(() -> {
        try {
          call(() -> listener.onClose(socket, status, why));
        } finally {
          sockets.closed();
        }
      });
    }
    socket.wakeSenders();
    ctx.fireChannelInactive();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (VertxInternals.isShutdown(event)) {
      // The server stops, or the client closes: the messages already in go to the listener, then
      // the socket closes (1001).
      stopping = true;
      updateReading();
      post(() -> close(GOING_AWAY, side.stopping()));
      return;
    }
    ReferenceCountUtil.release(event);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    updateReading();
    if (ctx.channel().isWritable()) {
      if (writeTimer != null) {
        writeTimer.cancel(false);
        writeTimer = null;
      }
      socket.wakeSenders();
    } else if (limits.writeTimeoutMs() > 0 && writeTimer == null) {
      // A client that takes nothing while the server has bytes for it is cut off, not buffered for.
      writeTimer = ctx.executor().schedule(() -> {
        writeTimer = null;
        if (ctx.channel().isWritable()) return;
        String option = side.option("write-timeout-ms");
        side.log.debug("{} {} took nothing for {}; closed", side.socketOf(), ctx.channel().remoteAddress(), option);
        post(() -> listener.onError(socket, new IOException("the peer took no bytes for " + option)));
        ctx.close();
      }, limits.writeTimeoutMs(), TimeUnit.MILLISECONDS);
    }
    ctx.fireChannelWritabilityChanged();
  }

  // ---- the idle and ping clock ----

  private long period() {
    long idle = limits.idleTimeoutMs();
    long ping = limits.pingIntervalMs();
    long shortest = idle == 0 ? ping : ping == 0 ? idle : Math.min(idle, ping);
    // Four ticks per period: a connection idles out within a quarter of its timeout's time.
    return Math.max(1, shortest / 4);
  }

  private void scheduleTick() {
    if (limits.idleTimeoutMs() == 0 && limits.pingIntervalMs() == 0) return;
    tick = ctx.executor().schedule(this::tick, period(), TimeUnit.MILLISECONDS);
  }

  private void tick() {
    tick = null;
    if (!ctx.channel().isActive()) return;
    long now = System.nanoTime();
    if (readSinceTick) {
      readSinceTick = false;
      lastRead = now;
    }
    long quietMs = TimeUnit.NANOSECONDS.toMillis(now - lastRead);
    if (limits.idleTimeoutMs() > 0 && quietMs >= limits.idleTimeoutMs()) {
      side.log.debug("{} {} idle for {}; closed", side.socketOf(), ctx.channel().remoteAddress(),
          side.option("idle-timeout-ms"));
      if (closeSent) {
        ctx.close();
      } else {
        closeNow(GOING_AWAY, "idle");
      }
      return;
    }
    long ping = limits.pingIntervalMs();
    if (ping > 0 && !closeSent && quietMs >= ping && TimeUnit.NANOSECONDS.toMillis(now - lastPing) >= ping) {
      lastPing = now;
      ctx.writeAndFlush(new PingWebSocketFrame(), unwatched);
    }
    scheduleTick();
  }

  private void stopClocks() {
    for (ScheduledFuture<?> f : new ScheduledFuture<?>[] {tick, writeTimer, closeTimer}) {
      if (f != null) f.cancel(false);
    }
    tick = writeTimer = closeTimer = null;
  }

  // ---- the listener ----

  private void post(Runnable call) {
    inbox.post(() -> call(call));
  }

  // A listener that throws: logged, told through on-error, and the socket closes with 1011. One
  // whose send found the socket closing is no failure: the socket is going anyway.
  private void call(Runnable call) {
    try {
      call.run();
    } catch (Throwable t) {
      if (t instanceof WebSocket.Closed closed) {
        side.log.debug("{} {}: {}", side.socketOf(), ctx.channel().remoteAddress(), closed.getMessage());
        try {
          listener.onError(socket, closed);
        } catch (Throwable again) {
          side.listeners.error("WebSocket listener's on-error failed", again);
        }
        return;
      }
      side.listeners.error("WebSocket listener for {} failed; closing with 1011", ctx.channel().remoteAddress(), t);
      try {
        listener.onError(socket, t);
      } catch (Throwable again) {
        side.listeners.error("WebSocket listener's on-error failed too", again);
      }
      close(INTERNAL_ERROR, "internal error");
    }
  }

  private static ByteBuffer copy(ByteBuf content) {
    return ByteBuffer.wrap(ByteBufUtil.getBytes(content));
  }
}
