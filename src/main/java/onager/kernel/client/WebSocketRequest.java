package onager.kernel.client;

import static onager.kernel.client.ClientConfig.flag;
import static onager.kernel.client.ClientConfig.integer;
import static onager.kernel.client.ClientConfig.key;
import static onager.kernel.client.ClientConfig.number;

import clojure.lang.IPersistentMap;
import io.vertx.core.MultiMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import onager.kernel.http.Tokens;
import onager.kernel.websocket.WebSocketLimits;
import onager.kernel.websocket.WebSocketListener;

/**
 * A WebSocket to open, as {@code onager.websocket/connect} was asked: where,
 * with which headers and subprotocols, how long the handshake may take, the
 * socket's limits, and whether its listener runs on virtual threads or on the
 * event loop. The options map is validated by its options table; the URL,
 * headers and subprotocols are checked here, as a request's are.
 */
final class WebSocketRequest {
  final String url;
  final Target target;
  final MultiMap headers;
  final List<String> protocols;
  final long handshakeTimeoutMs;
  final WebSocketLimits limits;
  final WebSocketListener listener;
  final boolean onEventLoop;
  /** The options with the URL, for the ex-info of a failure. */
  final IPersistentMap described;

  private WebSocketRequest(String url, IPersistentMap options, WebSocketListener listener) {
    this.url = url;
    this.listener = listener;
    described = options.assoc(key("url"), url);
    try {
      target = Target.parseWebSocket(url);
    } catch (IllegalArgumentException e) {
      throw ClientFailure.invalid(described, "url", url, "an absolute ws or wss URL (" + e.getMessage() + ")");
    }
    headers = HeaderFields.of(described, options.valAt(key("headers")));
    protocols = protocols(options.valAt(key("subprotocols")));
    // Clojure's maps are java.util.Maps, which ClientConfig's readers take.
    Map<?, ?> opts = (Map<?, ?>) options;
    handshakeTimeoutMs = number(opts, "handshake-timeout-ms");
    limits = new WebSocketLimits(integer(opts, "max-frame-size"), integer(opts, "max-message-size"),
        number(opts, "idle-timeout-ms"), number(opts, "ping-interval-ms"), number(opts, "write-timeout-ms"),
        integer(opts, "high-water-mark"), flag(opts, "compression?"),
        integer(opts, "compression-level"), integer(opts, "compression-window-bits"), Set.of());
    onEventLoop = options.valAt(key("mode")) == key("event-loop");
  }

  /** The request to open {@code url} with {@code options}, validated by their table; throws :invalid-request. */
  static WebSocketRequest of(String url, IPersistentMap options, WebSocketListener listener) {
    return new WebSocketRequest(url, options, listener);
  }

  // RFC 6455 §4.1: each subprotocol offered is a token.
  private List<String> protocols(Object given) {
    List<String> out = new ArrayList<>();
    if (given == null) return out;
    for (Object p : (Iterable<?>) given) {
      if (!(p instanceof String s) || !Tokens.isToken(s)) {
        throw ClientFailure.invalid(described, "subprotocols", given, "a collection of subprotocol names (tokens)");
      }
      out.add(s);
    }
    return List.copyOf(out);
  }
}
