package onager.kernel.client;

import java.io.IOException;

/** The request's body could not be read while it was sent: the request is reset with this. */
final class RequestBodyException extends IOException {
  RequestBodyException(Throwable cause) {
    super("the request body could not be read: " + ClientFailure.reason(cause), cause);
  }
}
