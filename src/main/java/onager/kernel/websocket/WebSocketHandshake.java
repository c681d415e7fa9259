package onager.kernel.websocket;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionData;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketExtensionUtil;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import io.netty.handler.codec.http.websocketx.extensions.compression.PerMessageDeflateServerExtensionHandshaker;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The server's side of the opening handshake (RFC 6455 §4.2): whether a
 * request may become a WebSocket, and the headers of the 101 that makes it one.
 */
public final class WebSocketHandshake {
  private WebSocketHandshake() {}

  // RFC 6455 §1.3: the key's hash is taken with this appended.
  private static final byte[] GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11".getBytes(StandardCharsets.US_ASCII);
  private static final String VERSION = "13";
  private static final String PERMESSAGE_DEFLATE = "permessage-deflate";
  static final String SERVER_MAX_WINDOW_BITS = "server_max_window_bits";
  // The window the JDK's zlib deflates with, 32 KiB; RFC 7692 §7.1.2.1 allows from 8.
  private static final int MAX_WINDOW_BITS = 15;
  private static final int MIN_WINDOW_BITS = 8;

  /** Why a request cannot switch: the status to answer with, and why. */
  public record Refusal(int status, String why) {}

  /**
   * Null when {@code request} is a WebSocket opening handshake this server
   * accepts; otherwise the refusal: 400 for a request that is no handshake
   * (§4.2.1), 426 for another version of the protocol (§4.4), 403 for an
   * origin {@code limits} does not allow (§4.2.2, item 4).
   */
  public static Refusal check(HttpRequest request, WebSocketLimits limits) {
    HttpHeaders h = request.headers();
    if (request.method() != HttpMethod.GET || request.protocolVersion() != HttpVersion.HTTP_1_1) {
      return new Refusal(400, "a WebSocket handshake is an HTTP/1.1 GET");
    }
    if (!h.containsValue(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET, true)
        || !h.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)) {
      return new Refusal(400, "not a WebSocket handshake: no Upgrade: websocket and Connection: Upgrade");
    }
    if (!VERSION.equals(h.get(HttpHeaderNames.SEC_WEBSOCKET_VERSION))) {
      return new Refusal(426, "Sec-WebSocket-Version is not 13");
    }
    if (!validKey(h.get(HttpHeaderNames.SEC_WEBSOCKET_KEY))) {
      return new Refusal(400, "Sec-WebSocket-Key is not 16 bytes in base64");
    }
    if (!limits.origins().isEmpty()) {
      String origin = h.get(HttpHeaderNames.ORIGIN);
      if (origin == null || !limits.origins().contains(origin)) {
        return new Refusal(403, "Origin " + origin + " is not in :ws-allowed-origins");
      }
    }
    return null;
  }

  /** True when the client offered {@code protocol} in Sec-WebSocket-Protocol (§4.2.2, item 5). */
  public static boolean offered(HttpRequest request, String protocol) {
    for (String field : request.headers().getAll(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL)) {
      for (String p : field.split(",")) {
        if (p.trim().equals(protocol)) return true;
      }
    }
    return false;
  }

  /** Sec-WebSocket-Accept for the request's key (§4.2.2, item 5.4). */
  public static String accept(HttpRequest request) {
    return acceptOf(request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_KEY));
  }

  /** The Sec-WebSocket-Accept that answers Sec-WebSocket-Key {@code key}: on the server, and to check on the client. */
  public static String acceptOf(String key) {
    try {
      MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
      sha1.update(key.trim().getBytes(StandardCharsets.US_ASCII));
      return Base64.getEncoder().encodeToString(sha1.digest(GUID));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-1", e);
    }
  }

  /** A new Sec-WebSocket-Key: 16 random bytes in base64, a nonce for each handshake (§4.1). */
  public static String newKey() {
    byte[] nonce = new byte[16];
    ThreadLocalRandom.current().nextBytes(nonce);
    return Base64.getEncoder().encodeToString(nonce);
  }

  /**
   * The permessage-deflate extension (RFC 7692) of the first offer of it the
   * server can accept, or null: none offered, or the server's is off.
   */
  public static WebSocketServerExtension deflate(HttpRequest request, WebSocketLimits limits) {
    if (!limits.deflate()) return null;
    String offers = request.headers().get(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS);
    if (offers == null) return null;
    for (WebSocketExtensionData offer : WebSocketExtensionUtil.extractExtensions(offers)) {
      if (!PERMESSAGE_DEFLATE.equals(offer.name())) continue;
      WebSocketServerExtension accepted = accept(offer, limits);
      if (accepted != null) return accepted;
    }
    return null;
  }

  private static WebSocketServerExtension accept(WebSocketExtensionData offer, WebSocketLimits limits) {
    String asked = offer.parameters().get(SERVER_MAX_WINDOW_BITS);
    int bits = asked == null ? MAX_WINDOW_BITS : windowBits(asked);
    if (bits == MAX_WINDOW_BITS) return handshaker(limits, limits.deflateLevel()).handshakeExtension(offer);
    if (bits < MIN_WINDOW_BITS) return null;
    Map<String, String> rest = new HashMap<>(offer.parameters());
    rest.remove(SERVER_MAX_WINDOW_BITS);
    WebSocketServerExtension stored =
        handshaker(limits, 0).handshakeExtension(new WebSocketExtensionData(offer.name(), rest));
    return stored == null ? null : new StoredDeflate(stored, Integer.toString(bits));
  }

  // The client is asked for a window of at most deflateWindowBits when it lets the server
  // choose (RFC 7692 §7.1.2.2); the inflated size of a frame is bounded by the message's.
  private static PerMessageDeflateServerExtensionHandshaker handshaker(WebSocketLimits limits, int level) {
    return new PerMessageDeflateServerExtensionHandshaker(
        level, true, limits.deflateWindowBits(), true, false, limits.maxMessageSize());
  }

  // The value of a window bits parameter; out of range (so declined) when it is no number.
  private static int windowBits(String value) {
    try {
      int bits = Integer.parseInt(value.trim());
      return bits > MAX_WINDOW_BITS ? -1 : bits;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** The Sec-WebSocket-Extensions value that tells the client what {@code extension} agreed. */
  public static String extensionsField(WebSocketServerExtension extension) {
    return extensionsField(extension.newReponseData());
  }

  /** {@code data} as a Sec-WebSocket-Extensions value: the client's offer, the server's answer. */
  public static String extensionsField(WebSocketExtensionData data) {
    StringBuilder b = new StringBuilder(data.name());
    for (Map.Entry<String, String> p : data.parameters().entrySet()) {
      b.append("; ").append(p.getKey());
      if (p.getValue() != null) b.append('=').append(p.getValue());
    }
    return b.toString();
  }

  private static boolean validKey(String key) {
    if (key == null) return false;
    try {
      return Base64.getDecoder().decode(key.trim()).length == 16;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }
}
