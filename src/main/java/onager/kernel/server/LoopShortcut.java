package onager.kernel.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpRequest;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpUtils;
import io.vertx.core.http.impl.http1.Http1ServerRequest;
import onager.kernel.http1.ConnectionGuard;
import onager.kernel.http1.Shortcut;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.response.FullResponses;
import onager.kernel.response.ResponseMaps;

/**
 * The {@link Shortcut} of one event loop, for servers whose sync handlers run
 * on the loop or on virtual threads: the plain requests one read of a
 * connection brings are run in order by one {@link QueuedRun}, at the end of
 * the read on the loop or on one virtual thread, and their answers with a body
 * in memory written together, past Vert.x's request and response objects
 * (measured: a third of raw Vert.x's per-request work when pipelined). Any
 * other outcome (a streamed or file body, a Transfer-Encoding or Connection
 * header, a response map that cannot be sent, the handler throwing) goes on to
 * Vert.x with the request, and the request's {@link Exchange} sends it as it
 * sends any other: one path decides those.
 */
final class LoopShortcut implements Shortcut {
  private final Dispatcher server;
  private final VirtualStarts starts;
  // Null when :request-timeout-ms is 0.
  private final RequestTimeouts timeouts;
  // Where the handlers of the queue being filled run: set by its first request, as one
  // read of one connection fills it (the loop reads no other connection meanwhile).
  private HandlerMode queuedMode;

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
  public boolean takes(HttpRequest request, boolean first) {
    String uri = request.uri();
    // Refusals and the goodbye of a stopping server are the Vert.x path's.
    if (server.draining || uri.length() > server.maxUriLength) return false;
    HandlerMode mode = modeOf(request);
    if (mode == HandlerMode.WORKER) return false;
    if (first) {
      queuedMode = mode;
      return true;
    }
    return mode == queuedMode;
  }

  @Override
  public void runQueued(ChannelHandlerContext ctx, HttpRequest[] requests, boolean secure, ConnectionGuard guard) {
    if (queuedMode == HandlerMode.EVENT_LOOP) {
      new QueuedRun(this, ctx, requests, secure, guard, true).run();
      return;
    }
    QueuedRun run = new QueuedRun(this, ctx, requests, secure, guard, false);
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

  // The path is parsed only for a router's modes: the run parses it again for the request map.
  private HandlerMode modeOf(HttpRequest request) {
    if (server.routeModes == null) return server.mode;
    HandlerMode chosen = server.routeModes.modeFor(request.method().name(), HttpUtils.parsePath(request.uri()));
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
