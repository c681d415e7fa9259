package onager.kernel.request;

/**
 * What a {@link StreamingBody} asks of the connection its bytes come from.
 * Called on the connection's event loop.
 */
public interface BodyFlow {
  /** Stops reading from the client: the reader is behind. */
  void pauseBody();

  /** Reads from the client again. */
  void resumeBody();

  /** The reader asked for the body its client waits to be asked for: 100 Continue. */
  void sendContinue();

  /** The body is over its limit and nobody will read the rest: only ending the connection stops it. */
  void abortBody();
}
