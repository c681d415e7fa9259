package onager.kernel.request;

import java.io.IOException;

/** Thrown by a request body read that goes past {@code :max-body}; the client gets 413. */
public final class BodyTooLargeException extends IOException {
  public BodyTooLargeException(long limit) {
    super("request body is larger than :max-body (" + limit + " bytes)");
  }
}
