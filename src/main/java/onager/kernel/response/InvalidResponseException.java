package onager.kernel.response;

/** A handler's response the server cannot send as it is; the client gets 500. */
public final class InvalidResponseException extends RuntimeException {
  public InvalidResponseException(String message) {
    super(message);
  }
}
