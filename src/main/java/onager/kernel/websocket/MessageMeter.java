package onager.kernel.websocket;

/** Told of each whole message a server's WebSockets receive and send (the :metrics option). */
public interface MessageMeter {
  /** A whole message arrived; {@code text}: a text message, else binary. On the event loop. */
  void received(boolean text);

  /** A message was handed to the socket to send; {@code text}: a text message, else binary. Any thread. */
  void sent(boolean text);
}
