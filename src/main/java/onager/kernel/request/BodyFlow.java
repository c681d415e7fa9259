package onager.kernel.request;

import java.io.IOException;

/**
 * What a {@link StreamingBody} asks of the connection its bytes come from: a
 * server's request body, or a response the client streams. Called on the
 * connection's event loop, but for {@link #tooLarge}.
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

  /** What a read past the body's limit of {@code limit} bytes throws. */
  default IOException tooLarge(long limit) {
    return new BodyTooLargeException(limit);
  }

  /**
   * True when closing the body before its end should end the exchange
   * ({@link #abortBody}), as a client does with a download it stops reading;
   * false when the rest is read and dropped, as a server does to keep the
   * connection for the next request.
   */
  default boolean abortsWhenClosedEarly() {
    return false;
  }
}
