package onager.kernel.websocket;

import java.nio.ByteBuffer;

/**
 * What a WebSocket tells the code that accepted it: Ring's listener (a map of
 * {@code :on-open :on-message ...} or an object of Ring's protocols), as the
 * Clojure layer adapts it. The calls for one socket come one at a time, in the
 * order their frames arrived, where the connection's handler mode runs them;
 * {@link #onClose} comes once, last, and only after {@link #onOpen}.
 */
public interface WebSocketListener {
  void onOpen(WebSocket socket);

  /** A whole message: a String for text, a ByteBuffer for binary. */
  void onMessage(WebSocket socket, Object message);

  /**
   * True when the listener answers pings itself ({@link #onPing}); otherwise the
   * socket answers each with a pong of the same data (RFC 6455 §5.5.2).
   */
  boolean answersPings();

  void onPing(WebSocket socket, ByteBuffer data);

  void onPong(WebSocket socket, ByteBuffer data);

  void onError(WebSocket socket, Throwable error);

  /** The connection ended: the close code the client sent (1006 when none came) and its reason. */
  void onClose(WebSocket socket, int code, String reason);
}
