package onager.kernel.client;

import clojure.lang.ExceptionInfo;
import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.core.http.HttpClosedException;
import io.vertx.core.http.StreamResetException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import onager.kernel.log.Reasons;

/**
 * The errors a request ends in: an ex-info whose message says what happened to
 * which URL, with {@code {:onager/error kind :request req :url url}} and, for a
 * refused status, {@code :response}. The kinds are keywords a program can
 * dispatch on:
 * <ul>
 * <li>{@code :invalid-request}: the request map cannot be sent (also {@code :key}, {@code :value});
 * <li>{@code :connect-failed}, {@code :connect-timeout}, {@code :unknown-host}: no connection;
 * <li>{@code :pool-full}: too many requests wait for a connection to the origin;
 * <li>{@code :tls}: the handshake failed, the server's certificate or name among the reasons;
 * <li>{@code :timeout}: {@code :idle-timeout-ms} or {@code :request-timeout-ms} passed ({@code :timeout} says which);
 * <li>{@code :connection-closed}: the server closed or reset it before the response was whole;
 * <li>{@code :invalid-response}: the server's response broke HTTP;
 * <li>{@code :too-large}: the body went past {@code :max-body};
 * <li>{@code :too-many-redirects}: more than {@code :max-redirects};
 * <li>{@code :status}: a status that is not 2xx or 3xx, with {@code :throw-exceptions?} on;
 * <li>{@code :body}: the request body could not be read, or the response body not converted.
 * </ul>
 */
final class ClientFailure {
  private ClientFailure() {}

  static final Keyword ERROR = Keyword.intern("onager", "error");
  static final Keyword REQUEST = Keyword.intern("request");
  static final Keyword URL = Keyword.intern("url");
  static final Keyword KEY = Keyword.intern("key");
  static final Keyword VALUE = Keyword.intern("value");
  static final Keyword RESPONSE = Keyword.intern("response");
  static final Keyword STATUS = Keyword.intern("status");
  static final Keyword TIMEOUT = Keyword.intern("timeout");
  static final Keyword IDLE = Keyword.intern("idle");
  static final Keyword WHOLE = Keyword.intern("request");

  static final Keyword INVALID_REQUEST = Keyword.intern("invalid-request");
  static final Keyword CONNECT_FAILED = Keyword.intern("connect-failed");
  static final Keyword CONNECT_TIMEOUT = Keyword.intern("connect-timeout");
  static final Keyword UNKNOWN_HOST = Keyword.intern("unknown-host");
  static final Keyword POOL_FULL = Keyword.intern("pool-full");
  static final Keyword TLS = Keyword.intern("tls");
  static final Keyword TIMED_OUT = Keyword.intern("timeout");
  static final Keyword CONNECTION_CLOSED = Keyword.intern("connection-closed");
  static final Keyword INVALID_RESPONSE = Keyword.intern("invalid-response");
  static final Keyword TOO_LARGE = Keyword.intern("too-large");
  static final Keyword TOO_MANY_REDIRECTS = Keyword.intern("too-many-redirects");
  static final Keyword BODY = Keyword.intern("body");
  static final Keyword HANDSHAKE = Keyword.intern("handshake");
  static final Keyword HEADERS = Keyword.intern("headers");

  /** A request key whose value cannot be sent: its name, the value and what it takes. */
  static ExceptionInfo invalid(IPersistentMap request, String key, Object value, String allowed) {
    return new ExceptionInfo("invalid request: :" + key + " must be " + allowed + ", not " + shown(value),
        map(ERROR, INVALID_REQUEST, KEY, Keyword.intern(key), VALUE, value, REQUEST, request), null);
  }

  /** An error of {@code kind} for the request to {@code url}, saying {@code what}. */
  static ExceptionInfo of(Keyword kind, String what, IPersistentMap request, String url, Throwable cause) {
    return new ExceptionInfo(what + " (" + url + ")", map(ERROR, kind, REQUEST, request, URL, url), cause);
  }

  /** A timeout: {@code which} is {@link #IDLE} or {@link #WHOLE}. */
  static ExceptionInfo timeout(Keyword which, long ms, IPersistentMap request, String url) {
    String what = which == IDLE ? "no bytes from the server for " + ms + " ms (:idle-timeout-ms)"
        : "the exchange took longer than " + ms + " ms (:request-timeout-ms)";
    return new ExceptionInfo(what + " (" + url + ")",
        map(ERROR, TIMED_OUT, TIMEOUT, which, REQUEST, request, URL, url), null);
  }

  /**
   * A WebSocket handshake the server refused ({@code status} not 101, with its
   * {@code headers}) or answered wrongly (status 101), saying {@code what}.
   */
  static ExceptionInfo handshake(String what, int status, IPersistentMap headers, IPersistentMap request, String url) {
    return new ExceptionInfo(what + " (" + url + ")",
        map(ERROR, HANDSHAKE, STATUS, status, HEADERS, headers, REQUEST, request, URL, url), null);
  }

  /** A WebSocket handshake not answered within {@code ms}. */
  static ExceptionInfo handshakeTimeout(long ms, IPersistentMap request, String url) {
    return new ExceptionInfo("no answer to the WebSocket handshake within " + ms + " ms (:handshake-timeout-ms) ("
        + url + ")", map(ERROR, TIMED_OUT, TIMEOUT, HANDSHAKE, REQUEST, request, URL, url), null);
  }

  /** A status {@code :throw-exceptions?} refuses, with the whole response. */
  static ExceptionInfo status(int status, IPersistentMap response, IPersistentMap request, String url) {
    return new ExceptionInfo("the server answered " + status + " (" + url + ")",
        map(ERROR, STATUS, STATUS, status, RESPONSE, response, REQUEST, request, URL, url), null);
  }

  /**
   * What a failure Vert.x or Netty reported means for the request: {@code connecting}
   * when no connection was had yet.
   */
  static ExceptionInfo classify(Throwable t, boolean connecting, long connectTimeoutMs, IPersistentMap request,
                                String url) {
    if (t instanceof ExceptionInfo e) return e;
    Keyword kind;
    String what;
    if (find(t, ConnectTimeoutException.class) != null || (connecting && t instanceof TimeoutException)) {
      kind = CONNECT_TIMEOUT;
      what = "no connection within " + connectTimeoutMs + " ms (:connect-timeout-ms)";
    } else if (find(t, UnknownHostException.class) != null) {
      kind = UNKNOWN_HOST;
      what = "unknown host: " + reason(t);
    } else if (find(t, ConnectException.class) != null || find(t, NoRouteToHostException.class) != null) {
      kind = CONNECT_FAILED;
      what = "cannot connect: " + systemWords(reason(t));
    } else if (t instanceof ConnectionPoolTooBusyException) {
      kind = POOL_FULL;
      what = "too many requests wait for a connection (:max-waiting): " + reason(t);
    } else if (find(t, SSLException.class) != null) {
      kind = TLS;
      what = "TLS failed: " + reason(t);
    } else if (find(t, RequestBodyException.class) != null) {
      kind = BODY;
      what = find(t, RequestBodyException.class).getMessage();
    } else if (find(t, TooLongFrameException.class) != null) {
      kind = INVALID_RESPONSE;
      what = "the response's head is too large (:max-header-size): " + reason(t);
    } else if (find(t, DecoderException.class) != null) {
      kind = INVALID_RESPONSE;
      what = "the response is not valid HTTP: " + reason(t);
    } else if (t instanceof HttpClosedException || t instanceof StreamResetException
        || find(t, ClosedChannelException.class) != null || find(t, IOException.class) != null) {
      kind = CONNECTION_CLOSED;
      what = "the connection closed before the response was whole: " + reason(t);
    } else {
      kind = CONNECTION_CLOSED;
      what = "the exchange failed: " + reason(t);
    }
    return of(kind, what, request, url, t);
  }

  /** {@code t} or its first cause of type {@code type}; null when none is. */
  static <T extends Throwable> T find(Throwable t, Class<T> type) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (type.isInstance(c)) return type.cast(c);
    }
    return null;
  }

  // The system's words without what the transport puts around them: Netty's native
  // "finishConnect(..) failed with error(-111): Connection refused" and its NIO
  // "Connection refused: /127.0.0.1:8080" both say "connection refused".
  private static String systemWords(String message) {
    String words = message.replaceFirst("^.*error\\(-?\\d+\\): ", "").replaceFirst(": /\\S+$", "").strip();
    if (words.isEmpty()) words = message;
    return Character.toLowerCase(words.charAt(0)) + words.substring(1);
  }

  /** The innermost message of {@code t}: the reason a library gave. */
  static String reason(Throwable t) {
    return Reasons.innermost(t);
  }

  private static String shown(Object value) {
    String s = value instanceof String str ? '"' + str + '"' : String.valueOf(value);
    return s.length() > 200 ? s.substring(0, 200) + "…" : s;
  }

  private static IPersistentMap map(Object... kvs) {
    return new PersistentArrayMap(kvs);
  }
}
