package onager.kernel.http;

/**
 * A request the server refuses to read on: the status it gets, and why. Thrown
 * inside the request decoder, where Netty turns it into a failed message that
 * the connection answers (and then the connection closes).
 */
public final class RejectedRequestException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  final int status;

  public RejectedRequestException(int status, String why) {
    super(why);
    this.status = status;
  }

  public int status() {
    return status;
  }

  // Thrown for every bad request a client sends: the stack trace says nothing.
  @Override
  public synchronized Throwable fillInStackTrace() {
    return this;
  }
}
