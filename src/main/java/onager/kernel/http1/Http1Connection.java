package onager.kernel.http1;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLException;
import onager.kernel.exchange.Dispatcher;
import onager.kernel.exchange.Exchange;
import onager.kernel.exchange.RequestStream;
import onager.kernel.exchange.VirtualStarts;
import onager.kernel.http.RejectedRequestException;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.log.Logs;
import onager.kernel.request.ClientAbortException;
import onager.kernel.response.Responses;
import onager.kernel.metrics.Refusals;
import onager.kernel.vertx.VertxInternals;
import onager.kernel.websocket.WebSocketPipeline;
import onager.kernel.websocket.WebSocketSwitch;

/**
 * One HTTP/1.x connection, after the decoder: it makes an {@link Exchange} of
 * each request, feeds it the request body, starts its handler through the
 * {@link Dispatcher}, and writes the answers in the order the requests came
 * (RFC 9112 §9.3.2), keeping the connection alive between them or closing it.
 *
 * <p>The requests without a body that one read brings and whose sync handlers
 * run in the same place form a batch, started at the end of the read: on the
 * event loop they run there and then, elsewhere on one thread in turn, and
 * their answers are written together and flushed once. A request that cannot
 * join the answers still owed (a body, an async handler, another handler mode)
 * is held back with everything after it, and reading stops, until those
 * answers are out.
 *
 * <p>What the connection reads next is its {@link Input} state; its timeouts
 * are the {@link ConnectionClock}'s. All methods run on the event loop.
 */
public final class Http1Connection extends ChannelDuplexHandler implements RequestStream, HeadListener {
  static final String NAME = "onager-http1";

  /** What the connection reads next. */
  enum Input {
    /** The next request's head; none of it is here yet. */
    AWAITING,
    /** A request head, part of which is here. */
    HEAD,
    /** A request body. */
    BODY,
    /** Requests that wait for the answers before them: held back, reading paused. */
    HELD,
    /** Nothing more: the connection ends once the answers owed are out. */
    CLOSED
  }

  // A request held back, with what the decoder said of its head.
  private record Held(HttpRequest request, int kind) {}

  private final Dispatcher server;
  private final VirtualStarts starts;
  // Null when :request-timeout-ms is 0.
  private final RequestTimeouts timeouts;
  private final CharSequence serverHeader;
  private final ConnectionClock clock;
  private final long shutdownIdleMs;
  // Null when no protocol may be switched to.
  private final Upgrade upgrade;

  private ChannelHandlerContext ctx;
  private boolean secure;
  private Input input = Input.AWAITING;
  private int headKind = HEAD_BODY;

  // Exchanges whose answers are owed, oldest first; the head's may be streaming.
  private final ArrayDeque<Exchange> owed = new ArrayDeque<>(4);
  private boolean streaming;
  // The exchanges of this read that start together at its end.
  private Exchange[] batch = new Exchange[8];
  private int batched;
  private boolean runningBatch;
  // What arrived while requests were held, in order; null when nothing is.
  private ArrayList<Object> held;
  private boolean replaying;
  // Part of a request head arrived while requests were held back.
  private boolean heldHead;

  // The exchange whose request body is arriving, and whether it got its 100 Continue;
  // the empty end of a request without a body is still to come; the current request is the last.
  private Exchange bodyOf;
  private boolean continued;
  private boolean skipEnd;
  private boolean lastRequest;
  // The latest request asked to close the connection; something arrived after it.
  private boolean clientCloses;
  private boolean trailing;
  // Null when the connection has no lingering close in front (a test's pipeline).
  private LingeringClose lingering;

  private boolean reading;
  private boolean unflushed;
  private boolean writing;
  private boolean writeAgain;
  // Why reading is paused: a body reader behind, requests held, a client not taking bytes.
  private boolean bodyPaused;
  private boolean heldPaused;
  private boolean writePaused;
  // The connection is closing; the server chose that while the socket was open; the socket
  // failed under us (a reset).
  private boolean closing;
  private boolean serverClosed;
  private boolean peerFailed;
  // The latest request, named in the log when its client leaves.
  private HttpRequest latest;
  // A 101 went out: the connection becomes this WebSocket once it is flushed.
  private WebSocketSwitch switching;
  // The server stops: each response says the connection closes after it. Read by handler threads.
  private volatile boolean draining;
  private boolean quietCloseArmed;

  public Http1Connection(Dispatcher server, VirtualStarts starts, RequestTimeouts timeouts, Http1Limits limits) {
    this(server, starts, timeouts, limits, null);
  }

  /** {@code upgrade}: what a request asking to switch protocols may switch to, or null for none. */
  public Http1Connection(Dispatcher server, VirtualStarts starts, RequestTimeouts timeouts, Http1Limits limits,
                         Upgrade upgrade) {
    this.upgrade = upgrade;
    this.server = server;
    this.starts = starts;
    this.timeouts = timeouts;
    this.serverHeader = limits.serverHeader();
    this.clock = new ConnectionClock(this, limits);
    this.shutdownIdleMs = limits.shutdownIdleMs();
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    secure = ctx.pipeline().get(SslHandler.class) != null;
    lingering = ctx.pipeline().get(LingeringClose.class);
    clock.start(ctx);
  }

  // ---- RequestStream ----

  @Override
  public Channel channel() {
    return ctx.channel();
  }

  @Override
  public boolean secure() {
    return secure;
  }

  @Override
  public void answersReady() {
    if (writing) {
      writeAgain = true;
      return;
    }
    writing = true;
    try {
      do {
        writeAgain = false;
        writeAnswers();
      } while (writeAgain);
    } finally {
      writing = false;
    }
    if (switching != null) {
      switchToWebSocket();
      return;
    }
    replayIfDue();
    if (!reading) flush();
  }

  @Override
  public boolean switchesToWebSocket() {
    return true;
  }

  @Override
  public boolean draining() {
    return draining;
  }

  // The 101 is written: nothing after it is HTTP/1.1 (RFC 9110 §15.2.2). What the client sent
  // behind the handshake and the decoder still holds is the WebSocket's first bytes; a client
  // waits for the 101 before it sends any (RFC 6455 §4.1), so no request can be held.
  private void switchToWebSocket() {
    WebSocketSwitch ws = switching;
    switching = null;
    input = Input.CLOSED;
    clock.stop();
    flush();
    WebSocketPipeline.install(ctx.pipeline(), ws, server.webSockets);
  }

  private void writeAnswers() {
    Exchange x;
    while (!closing && !streaming && switching == null && (x = owed.peek()) != null) {
      HttpResponse answer = x.takeAnswer();
      if (answer == null) return;
      DefaultFileRegion file = x.takeAnswerFile();
      ctx.write(answer, ctx.voidPromise());
      WebSocketSwitch ws = x.takeWebSocket();
      if (ws != null) {
        owed.poll();
        x.ended();
        switching = ws;
        unflushed = true;
        return;
      }
      if (file != null) {
        ctx.write(file, ctx.voidPromise());
        ctx.write(LastHttpContent.EMPTY_LAST_CONTENT, ctx.voidPromise());
      }
      unflushed = true;
      answered(x);
    }
  }

  @Override
  public void writePart(Exchange x, HttpObject part, ChannelPromise promise) {
    if (closing || owed.peek() != x) {
      ReferenceCountUtil.release(part);
      promise.tryFailure(new ClosedChannelException());
      return;
    }
    if (part instanceof HttpResponse) streaming = true;
    ctx.write(part, promise);
    unflushed = true;
    if (part instanceof LastHttpContent) {
      streaming = false;
      answered(x);
      answersReady();
    } else if (!reading) {
      flush();
    }
  }

  @Override
  public void pauseBody(Exchange x) {
    if (x == bodyOf && !bodyPaused) {
      bodyPaused = true;
      updateReading();
    }
  }

  @Override
  public void resumeBody(Exchange x) {
    if (bodyPaused) {
      bodyPaused = false;
      updateReading();
    }
  }

  @Override
  public void sendContinue(Exchange x) {
    if (closing || x != bodyOf || continued) return;
    continued = true;
    ctx.writeAndFlush(new DefaultFullHttpResponse(x.request().protocolVersion(), HttpResponseStatus.CONTINUE),
        ctx.voidPromise());
  }

  @Override
  public void abort(Exchange x) {
    if (owed.contains(x)) closeNow();
  }

  // ---- what the decoder tells ----

  @Override
  public void headPending() {
    if (input == Input.AWAITING) {
      input = Input.HEAD;
      clock.headBegan();
    } else if (input == Input.CLOSED) {
      trailing = true;
    } else if (input == Input.HELD && !heldHead) {
      // A head behind the requests held back: its clock runs once they have gone in.
      heldHead = true;
      clock.headBegan();
    }
  }

  @Override
  public void headSeen(int kind) {
    headKind = kind;
  }

  // ---- what comes in ----

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    reading = true;
    clock.active();
    dispatch(msg);
  }

  private void dispatch(Object msg) {
    if (msg instanceof HttpRequest request) {
      int kind = headKind;
      headKind = HEAD_BODY;
      onRequest(request, kind);
    } else if (msg instanceof Held h) {
      onRequest(h.request(), h.kind());
    } else if (msg instanceof HttpContent content) {
      onContent(content);
    } else {
      ReferenceCountUtil.release(msg);
    }
  }

  private void onRequest(HttpRequest request, int kind) {
    if (input == Input.HELD) {
      hold(new Held(request, kind));
      return;
    }
    if (input == Input.CLOSED) {
      trailing = true;
      ReferenceCountUtil.release(request);
      return;
    }
    input = Input.AWAITING;
    latest = request;
    boolean valid = request.decoderResult().isSuccess();
    boolean hasBody = valid && !(request instanceof LastHttpContent)
        && (kind == HEAD_BODY || kind == HEAD_TO_CHECK && HttpUtil.getContentLength(request, 0L) > 0);
    if (upgrade != null && valid && !hasBody && owed.isEmpty() && batched == 0
        && request.headers().contains(HttpHeaderNames.UPGRADE) && upgrade.upgrade(ctx, request)) {
      // The connection speaks another protocol from here; the request is answered there.
      input = Input.CLOSED;
      return;
    }
    boolean keepAlive = valid && (kind == HEAD_PLAIN
        ? request.protocolVersion() == HttpVersion.HTTP_1_1
        : HttpUtil.isKeepAlive(request));
    Exchange x = new Exchange(server, this, request, keepAlive, hasBody, starts, timeouts);
    if (!owed.isEmpty() && !(valid && batched > 0 && server.batchesWith(batch[0], x))) {
      input = Input.HELD;
      hold(new Held(request, kind));
      return;
    }
    owed.add(x);
    lastRequest = !keepAlive;
    clientCloses = valid && !keepAlive;
    skipEnd = !hasBody && !(request instanceof LastHttpContent);
    if (!valid) {
      refuseMalformed(x, request.decoderResult().cause());
      return;
    }
    if (!server.admit(x)) {
      input = Input.CLOSED;
      return;
    }
    if (hasBody) {
      bodyOf = x;
      continued = false;
      input = Input.BODY;
    } else if (lastRequest) {
      input = Input.CLOSED;
    }
    if (owed.size() == 1 && !server.batches(x)) {
      server.start(x);
    } else {
      if (batched == batch.length) batch = Arrays.copyOf(batch, batched * 2);
      batch[batched++] = x;
    }
  }

  // Nothing after a request that could not be read can be trusted to start where the client meant.
  private void refuseMalformed(Exchange x, Throwable cause) {
    input = Input.CLOSED;
    if (StrictRequestDecoder.isStandIn(x.request())) x.requestLineUnread();
    if (cause instanceof PrematureChannelClosureException) {
      owed.removeLast();
      x.streamClosed();
      return;
    }
    x.refuse(statusFor(cause), cause == null ? "malformed request" : cause.getMessage());
  }

  static int statusFor(Throwable cause) {
    if (cause instanceof RejectedRequestException r) return r.status();
    if (cause instanceof TooLongHttpLineException) return 414;
    if (cause instanceof TooLongHttpHeaderException) return 431;
    return 400;
  }

  private void onContent(HttpContent content) {
    if (input == Input.HELD) {
      hold(content);
      return;
    }
    if (skipEnd) {
      skipEnd = !(content instanceof LastHttpContent);
      content.release();
      return;
    }
    Exchange x = bodyOf;
    if (x == null) {
      content.release();
      return;
    }
    if (content.decoderResult().isFailure()) {
      Throwable cause = content.decoderResult().cause();
      content.release();
      failBody(statusFor(cause), "malformed request body: " + cause.getMessage(), cause);
      return;
    }
    clock.bodyMoved();
    boolean last = content instanceof LastHttpContent;
    if (last) {
      // Nothing more of the body comes: holding the client back saves nothing now.
      bodyOf = null;
      input = lastRequest ? Input.CLOSED : Input.AWAITING;
      if (bodyPaused || writePaused) {
        bodyPaused = false;
        updateReading();
      }
    }
    ByteBuf data = content.content();
    if (data.isReadable()) {
      x.bodyData(data);
    } else {
      content.release();
    }
    if (last) x.bodyEnd();
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    startBatch();
    reading = false;
    flush();
  }

  private void startBatch() {
    int n = batched;
    if (n == 0) return;
    batched = 0;
    runningBatch = true;
    try {
      server.startAll(batch, n);
    } finally {
      runningBatch = false;
      Arrays.fill(batch, 0, n, null);
    }
    replayIfDue();
  }

  private void flush() {
    if (unflushed) {
      unflushed = false;
      ctx.flush();
    }
  }

  // ---- requests held back ----

  private void hold(Object msg) {
    if (held == null) held = new ArrayList<>();
    held.add(msg);
    if (!heldPaused) {
      heldPaused = true;
      updateReading();
    }
  }

  // Once every answer owed is out, what was held comes in again, in order.
  private void replayIfDue() {
    if (replaying) return;
    replaying = true;
    try {
      while (held != null && owed.isEmpty() && !closing && !runningBatch) {
        ArrayList<Object> replay = held;
        held = null;
        input = Input.AWAITING;
        heldPaused = false;
        updateReading();
        for (Object msg : replay) dispatch(msg);
        if (heldHead && input == Input.AWAITING) {
          heldHead = false;
          input = Input.HEAD;
        }
        startBatch();
      }
    } finally {
      replaying = false;
    }
  }

  private void letGoOfHeld() {
    ArrayList<Object> h = held;
    held = null;
    if (h != null) {
      for (Object msg : h) ReferenceCountUtil.release(msg instanceof Held r ? r.request() : msg);
    }
  }

  // A body still arrives whatever the client takes: its handler may answer as it reads.
  private void updateReading() {
    boolean read = !(bodyPaused || heldPaused || writePaused && bodyOf == null) || closing;
    if (ctx.channel().config().isAutoRead() != read) ctx.channel().config().setAutoRead(read);
  }

  // ---- answers and the connection's end ----

  // x's response went out whole.
  private void answered(Exchange x) {
    owed.poll();
    clock.active();
    if (x.ended()) {
      // Its head went out before the drain began, without Connection: close.
      if (draining) closeWhenQuiet();
      return;
    }
    // The client ended the connection with a request read whole and sent nothing after it:
    // it reads its answer and closes too, and no unread byte can turn the close into a reset.
    if (lingering != null && clientCloses && owed.isEmpty() && bodyOf == null && held == null && !trailing) {
      lingering.closePlainly();
    }
    closeAfterAnswers();
  }

  // No more requests: the connection closes once what is written has gone.
  private void closeAfterAnswers() {
    input = Input.CLOSED;
    letGoOfHeld();
    Exchange x;
    while ((x = owed.poll()) != null) x.streamClosed();
    closeNow();
  }

  /** Closes now; what is written still goes out first (see {@link LingeringClose}). */
  void closeNow() {
    closed();
    clock.stop();
    flush();
    ctx.close();
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    // Every close the server decides on passes here: one that finds exchanges open is not the client's.
    closed();
    clock.stop();
    ctx.close(promise);
  }

  /**
   * The server closes. A close asked for after the socket already failed (a body writer
   * that learnt of the reset before the event loop told us) is still the client's doing.
   */
  private void closed() {
    if (ctx.channel().isActive()) serverClosed = true;
    closing = true;
  }

  /** Answers a request head that could not arrive, then closes. */
  void refuseHead(int status, String why) {
    if (Logs.CLIENT.isDebugEnabled()) Logs.CLIENT.debug("{} to {}: {}", status, ctx.channel().remoteAddress(), why);
    if (server.metrics != null) server.metrics.refused(Refusals.HEADER_TIMEOUT);
    input = Input.CLOSED;
    ctx.write(Responses.error(status, HttpVersion.HTTP_1_1, true, serverHeader), ctx.voidPromise());
    unflushed = true;
    closeNow();
  }

  /**
   * The body arriving cannot be read on: its exchange is refused with {@code
   * status} if it has not answered yet, its reader learns why, and the connection ends.
   */
  void failBody(int status, String why, Throwable cause) {
    Exchange x = bodyOf;
    bodyOf = null;
    input = Input.CLOSED;
    if (x == null) {
      closeNow();
      return;
    }
    x.refuse(status, why);
    x.bodyFailed(new ClientAbortException(status, why, cause, true));
    if (!closing && owed.peek() == x && streaming) closeNow();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (!VertxInternals.isShutdown(event)) {
      ReferenceCountUtil.release(event);
      return;
    }
    // The server stops: answers still owed say so and the connection ends after them. A
    // request whose head is arriving is answered the same way.
    draining = true;
    closeWhenQuiet();
  }

  /**
   * Closes the connection if it waits for its next request, once it has waited
   * {@code shutdownIdleMs}. Nothing tells an HTTP/1.1 client that an idle
   * connection is about to close (RFC 9112 §9.6): a load balancer may be
   * sending a request down it at that very moment, and a request that meets a
   * closed connection is lost (one already sent is never retried when it is not
   * idempotent, RFC 9110 §9.2.2). Kept open a while, such a request is answered
   * with Connection: close instead, and a client that stopped using the
   * connection has time to notice the server going.
   */
  private void closeWhenQuiet() {
    if (closing || quietCloseArmed || !waitsForRequest()) return;
    if (shutdownIdleMs == 0) {
      closeNow();
      return;
    }
    quietCloseArmed = true;
    ctx.executor().schedule(() -> {
      quietCloseArmed = false;
      if (!closing && waitsForRequest()) {
        Logs.SERVER.debug("closing {}: idle while the server stops", ctx.channel().remoteAddress());
        closeNow();
      }
    }, shutdownIdleMs, TimeUnit.MILLISECONDS);
  }

  private boolean waitsForRequest() {
    return owed.isEmpty() && bodyOf == null && input == Input.AWAITING;
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    // A client that takes no answers is sent no more of them: its next requests are not read.
    writePaused = !ctx.channel().isWritable();
    updateReading();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // A TLS record the client broke after the handshake is the client's fault, as a reset is.
    if (cause instanceof IOException || cause.getCause() instanceof SSLException) {
      peerFailed = true;
    } else {
      Logs.SERVER.error("connection from {} failed", ctx.channel().remoteAddress(), cause);
    }
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if ((!serverClosed || peerFailed) && (bodyOf != null || !owed.isEmpty() || writePaused)) clientLeft();
    closing = true;
    clock.stop();
    Exchange body = bodyOf;
    bodyOf = null;
    if (body != null) {
      body.bodyFailed(new ClientAbortException(0, "the connection closed before the request body ended", null,
          true));
    }
    input = Input.CLOSED;
    letGoOfHeld();
    Exchange x;
    while ((x = owed.poll()) != null) x.streamClosed();
    Arrays.fill(batch, 0, batched, null);
    batched = 0;
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    clock.stop();
    letGoOfHeld();
  }

  /**
   * The client closed the connection mid-exchange: routine for a server, so one line at
   * debug level, here where every kind of exchange and handler meets.
   */
  private void clientLeft() {
    if (!Logs.CLIENT.isDebugEnabled()) return;
    SocketAddress from = ctx.channel().remoteAddress();
    Exchange x = bodyOf != null ? bodyOf : owed.peek();
    if (bodyOf != null) {
      HttpRequest r = bodyOf.request();
      Logs.CLIENT.debug("{} {}: {} closed the connection before the request body ended", r.method(), r.uri(), from);
    } else if (x != null || latest != null) {
      HttpRequest r = x != null ? x.request() : latest;
      Logs.CLIENT.debug("{} {}: {} closed the connection {}", r.method(), r.uri(), from,
          streaming || writePaused ? "while the response was being sent" : "before the response was sent");
    } else {
      Logs.CLIENT.debug("{} closed the connection before its responses were sent", from);
    }
  }

  // ---- for the clock ----

  Input input() {
    return input;
  }

  boolean owesAnswers() {
    return !owed.isEmpty();
  }

  boolean awaitingContinue() {
    Exchange x = bodyOf;
    return x != null && !continued && HttpUtil.is100ContinueExpected(x.request());
  }
}
