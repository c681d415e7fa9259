package onager.kernel.http1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.impl.ConnectionBase;
import java.io.IOException;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import onager.kernel.log.Logs;
import onager.kernel.request.ClientAbortException;

/**
 * Keeps one HTTP/1.x connection from being held by a slow or silent client.
 * Sits between the codec and Vert.x, so it sees the decoded requests going in
 * and the responses coming out, and knows at each moment what the connection
 * waits for:
 * <ul>
 *   <li>a request head that began to arrive: it must be complete within the
 *   header timeout, or the client gets 408 and the connection closes;</li>
 *   <li>a request body: it must not stall longer than the body timeout while the
 *   server reads it (a pause the server asked for, to hold back a slow handler,
 *   does not count), or the client gets 408 and the handler's read throws
 *   {@link ClientAbortException};</li>
 *   <li>a malformed chunked body: the client gets 400 and the read throws (Vert.x
 *   alone would drop the connection without a word);</li>
 *   <li>the next request: when it does not begin within the idle timeout of the
 *   connection going idle (every response written and its bytes gone out, no
 *   request begun), the connection closes;</li>
 *   <li>the client to take response bytes: if it takes none for the idle timeout
 *   while the socket is full, the connection closes, which fails the response's
 *   writer instead of holding it forever.</li>
 * </ul>
 * Time spent by the handler itself is the request timeout's to limit.
 *
 * <p>One timer per connection ticks at a quarter of the shortest timeout; the
 * per-request work is a few field writes, with no clock read and no timer set.
 *
 * <p>It also hands a request body to a {@link BodySink} that asks for it while
 * the request is being dispatched ({@link #takeBody}): the decoder's buffers go
 * to the sink as they are, and Vert.x sees only the body's end. Vert.x would
 * otherwise copy each 8 KiB piece from the socket's direct buffer to a new heap
 * array before the handler copies it once more into its own. The sink holds back
 * the client through {@link #holdReads} and {@link #releaseReads}.
 */
public final class ConnectionGuard extends ChannelDuplexHandler implements Runnable {
  static final String NAME = "onager-guard";
  private static final long MIN_TICK_MS = 5;
  private static final long MAX_TICK_MS = 2_500;

  /** What the decoder found in a request head (see {@link #headSeen}): none of the headers below. */
  static final int HEAD_PLAIN = 0;
  /** Content-Length, Expect, Upgrade or Connection: plain only for some values. */
  static final int HEAD_TO_CHECK = 1;
  /** Transfer-Encoding: a body follows. */
  static final int HEAD_BODY = 2;

  private final long headerTimeoutNanos;
  private final long bodyTimeoutNanos;
  private final long idleTimeoutNanos;
  private final long idleAfterNanos;
  private final long tickMs;
  private final CharSequence serverHeader;
  private final long shutdownTimeoutMs;
  private final Shortcut shortcut;

  private ChannelHandlerContext ctx;
  private boolean secure;
  private ScheduledFuture<?> timer;
  private boolean done;

  // Requests received whose responses have not ended, and whether the oldest one's head went out.
  private int owed;
  private boolean responseStarted;

  // The latest request, named in the log when its client leaves; whether
  // more of a response is queued than the socket took (past the high-water mark).
  private HttpRequest latest;
  private boolean backlogged;
  // The socket failed under us (a reset): Vert.x closes the connection then, as we would.
  private boolean peerFailed;
  // The request whose body is coming, and whether it asked for 100 Continue and got it.
  private HttpRequest bodyOf;
  private boolean continued;
  private boolean headPending;
  private long headSince;
  private boolean bodyPending;
  private boolean bodyMoved;
  private long bodyQuietSince;
  private boolean active;
  private long idleSince;
  private long writeQuietSince;
  private Object lastEntry;
  private long lastProgress;
  private long lastPending;

  // The body last handed to a sink, until the connection lets go of it; whether its
  // bytes are still coming; whether a request head with a body is being dispatched;
  // whether reading is paused for the sink.
  private BodySink sink;
  private boolean diverting;
  private boolean dispatching;
  private boolean holding;

  // The latest head's kind; the shortcut took the latest request (its end is still to
  // come and goes nowhere); the shortcut wrote since the last flush; the read is ending.
  private int head = HEAD_BODY;
  private boolean skipEnd;
  private boolean unflushed;
  private boolean completing;

  // Requests the shortcut took during this read; the ones it runs now; what
  // came in since, held back in order (null: nothing), with reading paused for it; a
  // close asked for while they run, done once their answers are written.
  private final ArrayList<HttpRequest> queued = new ArrayList<>();
  private HttpRequest[] running;
  private ArrayList<Object> held;
  private boolean readsPausedForQueue;
  private ChannelPromise closeAfterRun;

  // A request held back that was plain when it came: it may take the shortcut once replayed.
  private record PlainRequest(HttpRequest request) {}

  /** @param shortcut answers plain requests before Vert.x sees them; may be null */
  public ConnectionGuard(Http1Limits limits, Shortcut shortcut) {
    this.shortcut = shortcut;
    this.headerTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.headerTimeoutMs());
    this.bodyTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.bodyTimeoutMs());
    this.idleTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(limits.idleTimeoutMs());
    this.serverHeader = limits.serverHeader();
    this.shutdownTimeoutMs = limits.shutdownTimeoutMs();
    long shortest = Long.MAX_VALUE;
    for (long ms : new long[] {limits.headerTimeoutMs(), limits.bodyTimeoutMs(), limits.idleTimeoutMs()}) {
      if (ms > 0) shortest = Math.min(shortest, ms);
    }
    this.tickMs = shortest == Long.MAX_VALUE ? 0 : Math.max(MIN_TICK_MS, Math.min(MAX_TICK_MS, shortest / 4));
    // idleSince is the tick that saw the connection busy, a little after it was; a later
    // tick may run on time where that one ran late by a little, which must not cost a tick.
    this.idleAfterNanos = idleTimeoutNanos - TimeUnit.MILLISECONDS.toNanos(tickMs) / 8;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    secure = ctx.pipeline().get(SslHandler.class) != null;
    if (tickMs == 0) return;
    long now = System.nanoTime();
    idleSince = now;
    bodyQuietSince = now;
    writeQuietSince = now;
    timer = ctx.executor().scheduleAtFixedRate(this, tickMs, tickMs, TimeUnit.MILLISECONDS);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    stop();
    letGoOfBody();
    letGoOfQueue();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    // Every close the server decides on stops first: one that finds us running is the client's.
    if ((!done || peerFailed) && (bodyPending || owed > 0 || running != null || backlogged)) clientLeft();
    stop();
    letGoOfBody();
    letGoOfQueue();
    ctx.fireChannelInactive();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof IOException) peerFailed = true;
    ctx.fireExceptionCaught(cause);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    backlogged = !ctx.channel().isWritable();
    ctx.fireChannelWritabilityChanged();
  }

  private void stop() {
    done = true;
    ScheduledFuture<?> t = timer;
    if (t != null) {
      timer = null;
      t.cancel(false);
    }
  }

  /** From the decoder: the head of the request it is about to hand on passed its checks, and is of this kind. */
  void headSeen(int kind) {
    head = kind;
  }

  /** From the decoder: part of a request head is here and the rest is not. */
  void headPending() {
    if (!headPending) {
      headPending = true;
      headSince = System.nanoTime();
    }
  }

  // ---- the request body, handed to a sink ----

  /**
   * Hands the body of {@code request} to {@code sink} from now on, and returns the
   * guard to ask for pauses; null when the body comes through Vert.x instead (no
   * guard on the connection, or the request was not dispatched as its head
   * arrived, so part of its body may already wait in Vert.x). Call on the event
   * loop from the request handler.
   */
  public static ConnectionGuard takeBody(HttpServerRequest request, BodySink sink) {
    if (!(request.connection() instanceof ConnectionBase connection)) return null;
    ChannelHandler handler = connection.channel().pipeline().get(NAME);
    if (!(handler instanceof ConnectionGuard guard) || !guard.dispatching) return null;
    guard.dispatching = false;
    guard.sink = sink;
    guard.diverting = true;
    return guard;
  }

  /** Stops reading from the client while {@code from}'s body is still coming. On the event loop. */
  public void holdReads(BodySink from) {
    if (from == sink && diverting && !holding) {
      holding = true;
      ctx.channel().config().setAutoRead(false);
    }
  }

  /** Reads on after {@link #holdReads}. On the event loop. */
  public void releaseReads(BodySink from) {
    if (from == sink) resumeReading();
  }

  private void resumeReading() {
    if (holding) {
      holding = false;
      ctx.channel().config().setAutoRead(true);
    }
  }

  private void letGoOfBody() {
    BodySink s = sink;
    if (s != null) {
      sink = null;
      diverting = false;
      resumeReading();
      s.detach();
    }
  }

  // The sink owns the bytes; Vert.x hears of the end only, with the trailers if any.
  private void divert(ChannelHandlerContext ctx, HttpContent content) {
    boolean end = content instanceof LastHttpContent;
    // Nothing more of the body comes after its last piece: holding the client back then
    // saves nothing, and pausing and resuming would cost two system calls.
    if (end) diverting = false;
    ByteBuf data = content.content();
    if (data.isReadable()) {
      sink.bodyData(data);
    } else {
      data.release();
    }
    if (end) {
      LastHttpContent last = (LastHttpContent) content;
      resumeReading();
      ctx.fireChannelRead(last.trailingHeaders().isEmpty()
          ? LastHttpContent.EMPTY_LAST_CONTENT
          : new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, last.trailingHeaders()));
    }
  }

  // ---- what goes in and out ----

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    active = true;
    if (msg instanceof HttpRequest request) {
      headPending = false;
      latest = request;
      boolean plain = plain(request);
      if (running == null && held == null) {
        if (plain && owed == 0 && shortcut != null && shortcut.takes(request, queued.isEmpty())) {
          letGoOfBody();
          queued.add(request);
          skipEnd = !(msg instanceof LastHttpContent);
          bodyPending = false;
          bodyOf = null;
          return;
        }
        if (queued.isEmpty()) {
          letGoOfBody();
          if (toVertx(ctx, request)) return;
          ctx.fireChannelRead(msg);
          return;
        }
      }
      // Queued requests come first: this one waits for their answers.
      hold(plain ? new PlainRequest(request) : request);
      return;
    } else if (msg instanceof HttpContent content) {
      if (skipEnd) {
        skipEnd = !(msg instanceof LastHttpContent);
        ReferenceCountUtil.release(msg);
        return;
      }
      if (running != null || held != null) {
        hold(msg);
        return;
      }
      if (content.decoderResult().isFailure()) {
        Throwable cause = content.decoderResult().cause();
        ReferenceCountUtil.release(msg);
        failBody(InvalidRequests.statusFor(cause), "malformed request body: " + cause.getMessage(), cause);
        return;
      }
      bodyMoved = true;
      if (msg instanceof LastHttpContent) {
        bodyPending = false;
        bodyOf = null;
      }
      if (diverting) {
        divert(ctx, content);
        return;
      }
    }
    ctx.fireChannelRead(msg);
  }

  // Counts a request Vert.x is to answer; true when it was handed on here (it has a body).
  private boolean toVertx(ChannelHandlerContext ctx, HttpRequest request) {
    owed++;
    // A request the decoder refused has no body to wait for: the connection closes after its 400.
    bodyPending = !(request instanceof LastHttpContent) && request.decoderResult().isSuccess();
    bodyOf = bodyPending ? request : null;
    continued = false;
    bodyMoved = true;
    if (!bodyPending) return false;
    // Vert.x runs the request handler within this call when no response is in progress.
    dispatching = true;
    try {
      ctx.fireChannelRead(request);
    } finally {
      dispatching = false;
    }
    return true;
  }

  // ---- requests queued for the shortcut ----

  private void hold(Object msg) {
    if (held == null) held = new ArrayList<>();
    held.add(msg);
    // A client that sends on while its queued requests run is held back at the socket.
    if (running != null && !readsPausedForQueue) {
      readsPausedForQueue = true;
      ctx.channel().config().setAutoRead(false);
    }
  }

  private void runQueued() {
    HttpRequest[] requests = queued.toArray(new HttpRequest[0]);
    queued.clear();
    running = requests;
    shortcut.runQueued(ctx, requests, secure, this);
  }

  /**
   * The shortcut answered the first {@code count} of the queued
   * requests with {@code responses}. If {@code handedOn}, the next one's
   * handler ran too, and its outcome waits for it in Vert.x; any after it have
   * not run. They go on in order, as if they had just come, and so does what
   * was held back meanwhile. On the event loop.
   */
  public void queuedAnswered(FullHttpResponse[] responses, int count, boolean handedOn) {
    HttpRequest[] requests = running;
    running = null;
    if (done || requests == null) {
      release(responses, count);
      letGoOfQueue();
      return;
    }
    for (int i = 0; i < count; i++) ctx.write(responses[i], ctx.voidPromise());
    // These answers pass by write() below: the idle clock starts again from them.
    active = true;
    unflushed |= count > 0;
    ChannelPromise close = closeAfterRun;
    if (close != null) {
      closeAfterRun = null;
      letGoOfQueue();
      ctx.flush();
      stop();
      ctx.close(close);
      return;
    }
    ArrayList<Object> replay = held;
    held = null;
    if (readsPausedForQueue) {
      readsPausedForQueue = false;
      if (!holding) ctx.channel().config().setAutoRead(true);
    }
    for (int i = count; i < requests.length; i++) {
      HttpRequest request = requests[i];
      if (i == count && handedOn) {
        // Vert.x takes it at once (nothing is owed) and finds its outcome made.
        if (!toVertx(ctx, request)) ctx.fireChannelRead(request);
      } else {
        replayPlain(ctx, request);
      }
      if (!(request instanceof LastHttpContent)) channelRead(ctx, LastHttpContent.EMPTY_LAST_CONTENT);
    }
    if (replay != null) {
      for (Object msg : replay) {
        if (msg instanceof PlainRequest p) {
          replayPlain(ctx, p.request());
        } else {
          channelRead(ctx, msg);
        }
      }
    }
    // As at the end of a read: run what was queued, flush, and let Vert.x flush what it
    // wrote (the read this run ended within does that last part itself).
    if (completing) {
      endOfRead(ctx);
    } else {
      channelReadComplete(ctx);
    }
  }

  // A request that was plain when it came goes through channelRead again, as it came.
  private void replayPlain(ChannelHandlerContext ctx, HttpRequest request) {
    head = HEAD_PLAIN;
    channelRead(ctx, request);
  }

  /**
   * The queued requests' time ran out: the first {@code count} have their
   * {@code responses}; the client gets those, then 503 for the rest, and the
   * connection closes. On the event loop.
   */
  public void queuedTimedOut(FullHttpResponse[] responses, int count) {
    running = null;
    letGoOfQueue();
    if (done) {
      release(responses, count);
      return;
    }
    for (int i = 0; i < count; i++) ctx.write(responses[i], ctx.voidPromise());
    ChannelPromise close = closeAfterRun;
    closeAfterRun = null;
    stop();
    ctx.writeAndFlush(ErrorResponses.of(503, serverHeader));
    if (close != null) {
      ctx.close(close);
    } else {
      ctx.close();
    }
  }

  private static void release(FullHttpResponse[] responses, int count) {
    for (int i = 0; i < count; i++) ReferenceCountUtil.release(responses[i]);
  }

  // What waits for queued requests goes nowhere now.
  private void letGoOfQueue() {
    queued.clear();
    ArrayList<Object> h = held;
    held = null;
    if (h != null) {
      for (Object msg : h) ReferenceCountUtil.release(msg instanceof PlainRequest p ? p.request() : msg);
    }
    ChannelPromise close = closeAfterRun;
    if (close != null && running == null) {
      closeAfterRun = null;
      ctx.close(close);
    }
  }

  // HTTP/1.1, well formed, without a body, an Expect or an Upgrade, kept alive: a Shortcut may answer it.
  private boolean plain(HttpRequest request) {
    int kind = head;
    head = HEAD_BODY;
    if (!request.decoderResult().isSuccess() || request.protocolVersion() != HttpVersion.HTTP_1_1) return false;
    return kind == HEAD_PLAIN || (kind == HEAD_TO_CHECK && plainAfterAll(request.headers()));
  }

  private static boolean plainAfterAll(HttpHeaders headers) {
    String length = headers.get(HttpHeaderNames.CONTENT_LENGTH);
    if (length != null && !length.equals("0")) return false;
    if (headers.contains(HttpHeaderNames.EXPECT) || headers.contains(HttpHeaderNames.UPGRADE)) return false;
    for (String connection : headers.getAll(HttpHeaderNames.CONNECTION)) {
      if (!connection.equalsIgnoreCase("keep-alive")) return false;
    }
    return true;
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    completing = true;
    try {
      endOfRead(ctx);
    } finally {
      completing = false;
    }
    ctx.fireChannelReadComplete();
  }

  private void endOfRead(ChannelHandlerContext ctx) {
    if (!queued.isEmpty() && running == null) runQueued();
    // Vert.x flushes what it wrote during the read; the shortcut's answers are ours to flush.
    if (unflushed) {
      unflushed = false;
      ctx.flush();
    }
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    if (msg instanceof HttpResponse r) {
      // 1xx (100 Continue) goes before the response proper, which is still to come.
      if (r.status().code() < 200) {
        continued = true;
        ctx.write(msg, promise);
        return;
      }
      responseStarted = true;
    }
    if (msg instanceof LastHttpContent && owed > 0) {
      owed--;
      responseStarted = false;
      active = true;
    }
    ctx.write(msg, promise);
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    // Closed already, by the socket failing (the client left): Vert.x closes after it.
    if (!ctx.channel().isActive()) {
      ctx.close(promise);
      return;
    }
    // Vert.x closes a connection it thinks idle when the server stops, but queued requests
    // may be running: their answers go first, if they come within the shutdown timeout.
    if (running != null && closeAfterRun == null && !done) {
      closeAfterRun = promise;
      ctx.executor().schedule(() -> {
        if (closeAfterRun == promise) {
          closeAfterRun = null;
          stop();
          ctx.close(promise);
        }
      }, shutdownTimeoutMs, TimeUnit.MILLISECONDS);
      return;
    }
    stop();
    ctx.close(promise);
  }

  // ---- the timer ----

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
    if (bodyMoved || !channel.config().isAutoRead() || awaitingContinue()) {
      // Reading paused is the server holding the client back, not the client stalling; so
      // is a client waiting for the 100 Continue the handler has not asked for yet.
      bodyMoved = false;
      bodyQuietSince = now;
    }
    if (headPending) {
      if (headerTimeoutNanos > 0 && owed == 0 && running == null && now - headSince >= headerTimeoutNanos) {
        refuse(408, "the request head did not arrive within :header-timeout-ms");
        return;
      }
    } else if (owed == 0 && !bodyPending && running == null && idleTimeoutNanos > 0) {
      // The last response may still be leaving: the connection is idle once its bytes stop moving.
      if (outboundMoved(channel)) idleSince = now;
      if (now - idleSince >= idleAfterNanos) {
        Logs.SERVER.debug("closing {}: idle for :idle-timeout-ms", channel.remoteAddress());
        closeNow();
        return;
      }
    }
    if (bodyPending && bodyTimeoutNanos > 0 && now - bodyQuietSince >= bodyTimeoutNanos) {
      failBody(408, "the request body stalled for :body-timeout-ms", null);
      return;
    }
    if (owed > 0 && idleTimeoutNanos > 0 && writeStalled(channel, now)) {
      Logs.CLIENT.debug("closing {}: the client took no response bytes for :idle-timeout-ms", channel.remoteAddress());
      closeNow();
    }
  }

  private boolean awaitingContinue() {
    HttpRequest r = bodyOf;
    return r != null && !continued && HttpUtil.is100ContinueExpected(r);
  }

  // True when the client has taken none of a full socket's bytes for the idle timeout.
  private boolean writeStalled(Channel channel, long now) {
    if (channel.isWritable() || outboundMoved(channel)) {
      writeQuietSince = now;
      return false;
    }
    return now - writeQuietSince >= idleTimeoutNanos;
  }

  // True when bytes waiting to go out changed since the last tick: some left, or more came.
  private boolean outboundMoved(Channel channel) {
    ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
    if (out == null) return false;
    Object entry = out.current();
    long progress = out.currentProgress();
    long pending = out.totalPendingWriteBytes();
    if (entry == lastEntry && progress == lastProgress && pending == lastPending) return false;
    lastEntry = entry;
    lastProgress = progress;
    lastPending = pending;
    return true;
  }

  // ---- answers ----

  // Nothing is owed: answer the client ourselves, then close.
  private void refuse(int status, String why) {
    if (Logs.CLIENT.isDebugEnabled()) Logs.CLIENT.debug("{} to {}: {}", status, ctx.channel().remoteAddress(), why);
    stop();
    ctx.writeAndFlush(ErrorResponses.of(status, serverHeader));
    ctx.close();
  }

  /**
   * The body of the latest request cannot be read on. If its response is the
   * next to go and has not begun, the client gets {@code status}; the request
   * learns why through Vert.x (its body read throws), and the connection closes.
   */
  private void failBody(int status, String why, Throwable cause) {
    if (Logs.CLIENT.isDebugEnabled()) Logs.CLIENT.debug("{} to {}: {}", status, ctx.channel().remoteAddress(), why);
    boolean answer = owed == 1 && !responseStarted;
    stop();
    if (answer) ctx.writeAndFlush(ErrorResponses.of(status, serverHeader));
    ctx.fireExceptionCaught(new ClientAbortException(status, why, cause, true));
    ctx.close();
  }

  /**
   * The client closed the connection mid-exchange: routine for a server, so one line at
   * debug level, here where every kind of exchange and handler meets, rather than from
   * each request's body read or response write that it broke off.
   */
  private void clientLeft() {
    if (!Logs.CLIENT.isDebugEnabled()) return;
    SocketAddress from = ctx.channel().remoteAddress();
    HttpRequest[] run = running;
    if (run != null && run.length > 0) {
      Logs.CLIENT.debug("{} {}: {} closed the connection before the response was sent", run[0].method(),
          run[0].uri(), from);
    } else if (bodyPending && bodyOf != null) {
      Logs.CLIENT.debug("{} {}: {} closed the connection before the request body ended", bodyOf.method(),
          bodyOf.uri(), from);
    } else if (latest != null && (owed > 0 || backlogged)) {
      Logs.CLIENT.debug("{} {}: {} closed the connection {}", latest.method(), latest.uri(), from,
          responseStarted || backlogged ? "while the response was being sent" : "before the response was sent");
    } else {
      Logs.CLIENT.debug("{} closed the connection before its responses were sent", from);
    }
  }

  private void closeNow() {
    stop();
    ctx.close();
  }
}
