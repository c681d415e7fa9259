package onager.kernel.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpUtils;
import io.vertx.core.http.impl.http1.Http1ServerRequest;
import onager.kernel.http1.ConnectionGuard;
import onager.kernel.http1.Shortcut;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.response.FullResponses;
import onager.kernel.response.ResponseMaps;
import onager.kernel.ring.RingRequest;

/**
 * The {@link Shortcut} of one event loop, for servers whose sync handlers run
 * on the loop or on virtual threads. On the loop, a plain request's handler
 * runs as the request is read, and an answer with its body in memory is
 * written to the connection at once, past Vert.x's request and response
 * objects (measured: a third of raw Vert.x's per-request work when pipelined).
 * On virtual threads, the plain requests one read brings are queued and run in
 * order on one thread ({@link QueuedRun}), and their answers written together.
 * Any other outcome (a streamed or file body, a Transfer-Encoding or Connection
 * header, a response map that cannot be sent, the handler throwing) goes on to
 * Vert.x with the request, and the request's {@link Exchange} sends it as it
 * sends any other: one path decides those.
 */
final class LoopShortcut implements Shortcut {
  private final Dispatcher server;
  private final VirtualStarts starts;
  // Null when :request-timeout-ms is 0.
  private final RequestTimeouts timeouts;

  // The request handed on to Vert.x with its outcome made, until its Exchange takes it.
  private HttpRequest handedOn;
  private Object answer;
  private Throwable failure;

  private LoopShortcut(Dispatcher server, VirtualStarts starts, RequestTimeouts timeouts) {
    this.server = server;
    this.starts = starts;
    this.timeouts = timeouts;
  }

  /**
   * The shortcut for a loop of {@code server} whose {@code starts} and
   * {@code timeouts} (null: none) they are, or null when no sync handler of
   * the server runs on the loop or on a virtual thread.
   */
  static LoopShortcut of(Dispatcher server, VirtualStarts starts, RequestTimeouts timeouts) {
    boolean some = server.mode != HandlerMode.WORKER || server.routeModes != null;
    return !server.async && some ? new LoopShortcut(server, starts, timeouts) : null;
  }

  @Override
  public int answer(ChannelHandlerContext ctx, HttpRequest request, boolean secure, boolean mayWrite) {
    String uri = request.uri();
    // Refusals and the goodbye of a stopping server are the Vert.x path's.
    if (server.draining || uri.length() > server.maxUriLength) return DECLINED;
    String path = HttpUtils.parsePath(uri);
    HandlerMode mode = modeOf(request.method(), path);
    if (mode == HandlerMode.VIRTUAL) return QUEUED;
    if (mode != HandlerMode.EVENT_LOOP || !mayWrite) return DECLINED;
    Object outcome;
    try {
      outcome = server.handler.invoke(request(ctx, request, path, secure));
    } catch (Throwable t) {
      handOn(request, null, t);
      return DECLINED;
    }
    FullHttpResponse response = fullResponse(outcome, request.method() == HttpMethod.HEAD);
    if (response == null) {
      handOn(request, outcome, null);
      return DECLINED;
    }
    ctx.write(response, ctx.voidPromise());
    return WRITTEN;
  }

  @Override
  public void runQueued(ChannelHandlerContext ctx, HttpRequest[] requests, boolean secure, ConnectionGuard guard) {
    QueuedRun run = new QueuedRun(this, ctx, requests, secure, guard);
    if (timeouts != null) timeouts.start(run);
    starts.start(run);
  }

  Dispatcher server() {
    return server;
  }

  /** {@code run} is over: its request timeout no longer counts. On the loop. */
  void stopClock(QueuedRun run) {
    if (timeouts != null) timeouts.done(run);
  }

  /** The request map of {@code request}, whose path is {@code path}. */
  static RingRequest request(ChannelHandlerContext ctx, HttpRequest request, String path, boolean secure) {
    return new RingRequest(new ShortcutRequest(request, ctx.channel(), path, secure));
  }

  private HandlerMode modeOf(HttpMethod method, String path) {
    if (server.routeModes == null) return server.mode;
    HandlerMode chosen = server.routeModes.modeFor(method.name(), path);
    return chosen == null ? server.mode : chosen;
  }

  /** The answer as one message, or null when the Vert.x path must send it (or refuse it). Any thread. */
  FullHttpResponse fullResponse(Object outcome, boolean head) {
    if (!ResponseMaps.isResponse(outcome)) return null;
    Object body = ResponseMaps.get(outcome, ResponseMaps.BODY);
    if (!FullResponses.inMemory(body)) return null;
    try {
      return FullResponses.of(ResponseMaps.status(outcome), ResponseMaps.get(outcome, ResponseMaps.HEADERS), body,
          head, server.serverHeader);
    } catch (RuntimeException e) {
      return null;
    }
  }

  /**
   * Vert.x is handed {@code request} with its handler's outcome made, and handles
   * it within the guard's call, as the connection owes no response. On the loop.
   */
  void handOn(HttpRequest request, Object outcome, Throwable thrown) {
    handedOn = request;
    answer = outcome;
    failure = thrown;
  }

  /** True when the handler already ran here for {@code request}, which then goes to {@link #deliver}. */
  boolean ranFor(HttpServerRequest request) {
    HttpRequest made = handedOn;
    return made != null && request instanceof Http1ServerRequest r && r.nettyRequest() == made;
  }

  /**
   * Lets go of the outcome made for {@code request} if Vert.x did not take it
   * (its connection closed), and returns the answer in it, if any.
   */
  Object forget(HttpRequest request) {
    if (handedOn != request) return null;
    Object left = answer;
    handedOn = null;
    answer = null;
    failure = null;
    return left;
  }

  /** Hands the outcome {@link #ranFor} found to the request's exchange. On the event loop. */
  void deliver(Exchange exchange) {
    Object outcome = answer;
    Throwable thrown = failure;
    handedOn = null;
    answer = null;
    failure = null;
    exchange.answered(outcome, thrown);
  }
}
