package onager.kernel.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpUtils;
import io.vertx.core.http.impl.http1.Http1ServerRequest;
import onager.kernel.http1.Shortcut;
import onager.kernel.response.FullResponses;
import onager.kernel.response.ResponseMaps;
import onager.kernel.ring.RingRequest;

/**
 * The {@link Shortcut} of one event loop, for servers whose sync handlers run
 * on the loop: a plain request's handler runs as the request is read, and an
 * answer with its body in memory is written to the connection at once, past
 * Vert.x's request and response objects (measured: a third of raw Vert.x's
 * per-request work when pipelined). Any other outcome (a streamed or file body,
 * a Transfer-Encoding or Connection header, a response map that cannot be sent,
 * the handler throwing) goes on to Vert.x with the request, and the request's
 * {@link Exchange} sends it as it sends any other: one path decides those.
 */
final class LoopShortcut implements Shortcut {
  private final Dispatcher server;

  // The request handed on to Vert.x with its outcome made, until its Exchange takes it.
  private HttpRequest handedOn;
  private Object answer;
  private Throwable failure;

  private LoopShortcut(Dispatcher server) {
    this.server = server;
  }

  /** The shortcut for a loop of {@code server}, or null when no handler of it runs on the loop as a sync one. */
  static LoopShortcut of(Dispatcher server) {
    boolean someOnLoop = server.mode == HandlerMode.EVENT_LOOP || server.routeModes != null;
    return !server.async && someOnLoop ? new LoopShortcut(server) : null;
  }

  @Override
  public boolean answer(ChannelHandlerContext ctx, HttpRequest request, boolean secure) {
    String uri = request.uri();
    // Refusals and the goodbye of a stopping server are the Vert.x path's.
    if (server.draining || uri.length() > server.maxUriLength) return false;
    String path = HttpUtils.parsePath(uri);
    if (!onLoop(request.method(), path)) return false;
    Object outcome;
    try {
      outcome = server.handler.invoke(new RingRequest(new ShortcutRequest(request, ctx.channel(), path, secure)));
    } catch (Throwable t) {
      handOn(request, null, t);
      return false;
    }
    FullHttpResponse response = fullResponse(outcome, request.method() == HttpMethod.HEAD);
    if (response == null) {
      handOn(request, outcome, null);
      return false;
    }
    ctx.write(response, ctx.voidPromise());
    return true;
  }

  private boolean onLoop(HttpMethod method, String path) {
    if (server.routeModes == null) return server.mode == HandlerMode.EVENT_LOOP;
    HandlerMode chosen = server.routeModes.modeFor(method.name(), path);
    return (chosen == null ? server.mode : chosen) == HandlerMode.EVENT_LOOP;
  }

  // The answer as one message, or null when the Vert.x path must send it (or refuse it).
  private FullHttpResponse fullResponse(Object outcome, boolean head) {
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

  // Vert.x handles the request within the guard's call, as the connection owes no response.
  private void handOn(HttpRequest request, Object outcome, Throwable thrown) {
    handedOn = request;
    answer = outcome;
    failure = thrown;
  }

  /** True when the handler already ran here for {@code request}, which then goes to {@link #deliver}. */
  boolean ranFor(HttpServerRequest request) {
    HttpRequest made = handedOn;
    return made != null && request instanceof Http1ServerRequest r && r.nettyRequest() == made;
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
