package onager.kernel.client;

import clojure.lang.ExceptionInfo;
import clojure.lang.IFn;
import clojure.lang.IPersistentMap;
import clojure.lang.IPersistentVector;
import clojure.lang.PersistentVector;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import onager.kernel.http.ContentType;
import onager.kernel.limits.Deadline;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.log.Logs;
import onager.kernel.request.StreamingBody;
import onager.kernel.vertx.VertxInternals;

/**
 * One request from the map to the response map: the request sent, redirects
 * followed by its policy, a stale pooled connection retried once for an
 * idempotent request, the body read as {@code :as} asks within
 * {@code :max-body}, and the whole of it within {@code :request-timeout-ms}.
 * From when it has its connection until its response ends, the call is tracked
 * by the {@code :idle-timeout-ms} clock of its event loop, anew from each piece
 * of the response.
 *
 * <p>Everything but {@link #start} runs on the call's context, one event loop,
 * so its state needs no locks. It ends once: the future completes, and the
 * respond or raise callback (when given) is called on that event loop.
 */
final class ClientCall extends Deadline {
  private static final Handler<Throwable> IGNORE = t -> { };

  private final OnagerClient client;
  private final ClientRequest request;
  private final Context context;
  private final CompletableFuture<Object> result = new CompletableFuture<>();
  private final IFn respond;
  private final IFn raise;

  // What the next attempt sends: redirects change them.
  private Target target;
  private HttpMethod method;
  private RequestBody body;
  private MultiMap headers;
  private IPersistentVector redirects = PersistentVector.EMPTY;
  private boolean retried;
  private long timer = -1;
  private boolean done;
  private HttpClientRequest current;
  private StreamingBody stream;
  // The :idle-timeout-ms clock that tracks the call; null without one, or before the first attempt sends.
  private RequestTimeouts idle;

  ClientCall(OnagerClient client, ClientRequest request, IFn respond, IFn raise) {
    this.client = client;
    this.request = request;
    this.respond = respond;
    this.raise = raise;
    this.context = client.context();
    this.target = request.target;
    this.method = request.method;
    this.body = request.body;
    this.headers = request.headers;
  }

  /** Sends the request; its future completes with the response map or the ex-info. */
  CompletableFuture<Object> start() {
    context.runOnContext(v -> {
      if (request.requestTimeoutMs > 0) timer = client.vertx.setTimer(request.requestTimeoutMs, id -> timedOut());
      attempt();
    });
    return result;
  }

  /** Gives up the exchange, as when the caller waiting for it is interrupted. */
  void cancel(Throwable why) {
    context.runOnContext(v -> fail(ClientFailure.of(ClientFailure.CONNECTION_CLOSED,
        "the request was cancelled: " + ClientFailure.reason(why), request.map, target.url(), why)));
  }

  private void attempt() {
    // The idle clock is for the exchange: a redirect's or retry's connection has its own timeout.
    if (idle != null) idle.reset(this);
    RequestOptions options = new RequestOptions()
        .setMethod(method)
        .setServer(target.server)
        .setHost(target.host)
        .setPort(target.port)
        .setSsl(target.ssl)
        .setURI(target.pathAndQuery)
        .setHeaders(request.cookies == null ? headers : ClientCookies.outgoing(request.cookies, target, headers))
        .setFollowRedirects(false)
        .setProtocolVersion(client.protocol(target.ssl));
    if (request.proxy != null) options.setProxyOptions(request.proxy);
    if (request.connectTimeoutMs > 0) options.setConnectTimeout(request.connectTimeoutMs);
    client.agent.request(options).onComplete(ar -> {
      if (ar.failed()) {
        fail(ClientFailure.classify(ar.cause(), true, request.connectTimeoutMs, request.map, target.url()));
      } else {
        send(ar.result());
      }
    });
  }

  private void send(HttpClientRequest req) {
    if (done) {
      req.reset();
      return;
    }
    // Failures reach the call through the futures; without a handler Vert.x would log each again.
    req.exceptionHandler(IGNORE);
    current = req;
    if (request.idleTimeoutMs > 0) {
      if (idle == null) idle = client.idleClock(VertxInternals.eventLoop(context), request.idleTimeoutMs);
      idle.start(this);
    }
    body.send(req, client.vertx).onComplete(ar -> {
      if (ar.succeeded()) {
        response(ar.result());
      } else if (req == current) {
        failed(ar.cause());
      }
    });
  }

  // The exchange failed before a response came: a stale pooled connection is retried once.
  private void failed(Throwable cause) {
    if (done) return;
    ExceptionInfo e = exchangeFailure(cause);
    if (!retried && e.getData().valAt(ClientFailure.ERROR) == ClientFailure.CONNECTION_CLOSED
        && !(cause instanceof RequestBodyException) && idempotent(method) && body.repeatable()) {
      retried = true;
      current = null;
      Logs.HTTP_CLIENT.debug("retrying {} {}: the connection closed before a response ({})", method,
          target.url(), ClientFailure.reason(cause));
      attempt();
      return;
    }
    fail(e);
  }

  // RFC 9110 §9.2.2: a request that may be repeated without changing the outcome.
  private static boolean idempotent(HttpMethod m) {
    return m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS || m == HttpMethod.TRACE
        || m == HttpMethod.PUT || m == HttpMethod.DELETE;
  }

  private void response(HttpClientResponse resp) {
    resp.exceptionHandler(IGNORE);
    if (done) return;
    if (request.cookies != null) ClientCookies.incoming(request.cookies, target, resp.headers());
    int status = resp.statusCode();
    if (isRedirect(status) && request.redirects != Redirects.NONE && redirect(resp, status)) return;
    boolean refused = request.throwExceptions && (status < 200 || status > 399);
    if (request.as.buffered() || refused) {
      collect(resp, status, refused);
    } else {
      streamBody(resp, status);
    }
  }

  private static boolean isRedirect(int status) {
    return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
  }

  // Follows the redirect when the policy lets it; false leaves the 3xx response as the answer.
  private boolean redirect(HttpClientResponse resp, int status) {
    String location = resp.getHeader(HttpHeaders.LOCATION);
    if (location == null) return false;
    Target next;
    try {
      next = target.resolve(location);
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (!request.redirects.allows(target, next)) return false;
    // RFC 9110 §15.4: 303 asks for a GET; 301 and 302 turn a POST into one, as every browser does.
    boolean toGet = (status == 303 && method != HttpMethod.HEAD)
        || ((status == 301 || status == 302) && method == HttpMethod.POST);
    if (!toGet && body != RequestBody.NONE && !body.repeatable()) return false;
    if (redirects.count() >= request.maxRedirects) {
      resp.request().reset();
      fail(ClientFailure.of(ClientFailure.TOO_MANY_REDIRECTS, "more than " + request.maxRedirects
          + " redirects (:max-redirects)", request.map, next.url(), null));
      return true;
    }
    MultiMap nextHeaders = MultiMap.caseInsensitiveMultiMap().addAll(headers);
    if (toGet) {
      method = HttpMethod.GET;
      body = RequestBody.NONE;
      nextHeaders.remove(HttpHeaders.CONTENT_TYPE).remove(HttpHeaders.CONTENT_LENGTH)
          .remove(HttpHeaders.TRANSFER_ENCODING);
    }
    // Credentials meant for one origin do not go to another (RFC 9110 §15.4).
    if (!target.sameOrigin(next)) {
      nextHeaders.remove(HttpHeaders.AUTHORIZATION).remove(HttpHeaders.COOKIE).remove("Proxy-Authorization");
    }
    Logs.HTTP_CLIENT.debug("{} {}: {} to {}", method, target.url(), status, next.url());
    // The redirect's own body is read and dropped, so that its connection goes back to the pool.
    resp.end();
    headers = nextHeaders;
    target = next;
    redirects = redirects.cons(next.url());
    current = null;
    attempt();
    return true;
  }

  private void collect(HttpClientResponse resp, int status, boolean refused) {
    BodyCollector collector = new BodyCollector(contentLength(resp), request.maxBody);
    HttpClientRequest req = current;
    resp.handler(piece -> {
      if (done) return;
      bytesArrived();
      if (!collector.add(piece)) {
        fail(ClientFailure.of(ClientFailure.TOO_LARGE, "the response body is larger than :max-body ("
            + request.maxBody + " bytes)", request.map, target.url(), null));
        req.reset();
      }
    });
    resp.end().onComplete(ar -> {
      if (done) return;
      if (ar.failed()) {
        fail(exchangeFailure(ar.cause()));
        return;
      }
      // The exchange is over: nothing of it is left to reset, whatever the body turns out to be.
      current = null;
      Object converted;
      try {
        converted = convert(collector, resp, refused);
      } catch (IOException | RuntimeException e) {
        fail(ClientFailure.of(ClientFailure.BODY, "the response body is not " + (request.as == As.JSON
            || request.as == As.JSON_STRING_KEYS ? "JSON" : "readable") + ": " + ClientFailure.reason(e),
            request.map, target.url(), e));
        return;
      }
      IPersistentMap response = responseMap(resp, status, converted);
      if (refused) {
        fail(ClientFailure.status(status, response, request.map, target.url()));
      } else {
        complete(response);
      }
    });
  }

  // What a failure once the connection was had means.
  private ExceptionInfo exchangeFailure(Throwable cause) {
    return ClientFailure.classify(cause, false, request.connectTimeoutMs, request.map, target.url());
  }

  private static long contentLength(HttpClientResponse resp) {
    String length = resp.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (length == null) return -1;
    try {
      return Long.parseLong(length.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  // The body as :as asks; a refused status's body, asked for as a stream, as a string.
  private Object convert(BodyCollector c, HttpClientResponse resp, boolean refused) throws IOException {
    return switch (request.as) {
      case STRING, STREAM -> c.toString(charset(resp));
      case BYTES -> c.toBytes();
      case BYTE_BUFFER -> c.toByteBuffer();
      case JSON -> c.length() == 0 ? null : client.config.jsonKeywordReader.read(c.toStream());
      case JSON_STRING_KEYS -> c.length() == 0 ? null : client.config.jsonStringReader.read(c.toStream());
    };
  }

  private static Charset charset(HttpClientResponse resp) {
    String name = ContentType.charsetParam(resp.getHeader(HttpHeaders.CONTENT_TYPE));
    if (name == null) return StandardCharsets.UTF_8;
    try {
      return Charset.forName(name);
    } catch (IllegalArgumentException e) {
      return StandardCharsets.UTF_8;
    }
  }

  // The response goes out at its head; the body is read as it arrives. The call stays
  // open until the body ends, fails or is closed, for :request-timeout-ms.
  private void streamBody(HttpClientResponse resp, int status) {
    HttpClientRequest req = current;
    StreamingBody s = new StreamingBody(new ResponseFlow(req, resp), VertxInternals.eventLoop(context),
        request.maxStreamBody, 0, false);
    stream = s;
    resp.handler(piece -> {
      if (stream == s) bytesArrived();
      s.bodyData(VertxInternals.byteBuf(piece));
    });
    resp.end().onComplete(ar -> {
      if (ar.succeeded()) {
        s.bodyEnd();
      } else {
        s.bodyFailed(new IOException(exchangeFailure(ar.cause()).getMessage(), ar.cause()));
      }
      cancelTimer();
      stopIdle();
      stream = null;
    });
    complete(responseMap(resp, status, s));
  }

  private IPersistentMap responseMap(HttpClientResponse resp, int status, Object converted) {
    HttpVersion version = resp.version();
    return ClientResponses.of(status, resp.headers(), converted, version, target.url(), redirects);
  }

  private void timedOut() {
    timer = -1;
    giveUp(ClientFailure.timeout(ClientFailure.WHOLE, request.requestTimeoutMs, request.map, target.url()));
  }

  // No byte came from the server for :idle-timeout-ms. On the call's event loop, from its clock's sweep.
  @Override
  protected void expired(long timeoutMs) {
    giveUp(ClientFailure.timeout(ClientFailure.IDLE, timeoutMs, request.map, target.url()));
  }

  // A timeout passed: the response's streamed body fails with it, or else the call.
  private void giveUp(ExceptionInfo e) {
    StreamingBody s = stream;
    if (s != null) {
      stream = null;
      s.bodyFailed(new IOException(e.getMessage(), e));
      if (current != null) current.reset();
      return;
    }
    fail(e);
  }

  // A piece of the response arrived: the idle clock counts from now.
  private void bytesArrived() {
    if (idle != null) idle.restart(this);
  }

  private void stopIdle() {
    if (idle != null) idle.done(this);
  }

  private void cancelTimer() {
    if (timer >= 0) {
      client.vertx.cancelTimer(timer);
      timer = -1;
    }
  }

  private void complete(IPersistentMap response) {
    if (done) return;
    done = true;
    if (stream == null) {
      cancelTimer();
      stopIdle();
    }
    result.complete(response);
    callback(respond, response);
  }

  private void fail(ExceptionInfo e) {
    if (done) return;
    done = true;
    cancelTimer();
    stopIdle();
    if (current != null) current.reset();
    result.completeExceptionally(e);
    callback(raise, e);
  }

  private static void callback(IFn fn, Object value) {
    if (fn == null) return;
    try {
      fn.invoke(value);
    } catch (Throwable t) {
      Logs.HTTP_CLIENT.error("a respond or raise callback threw", t);
    }
  }
}
