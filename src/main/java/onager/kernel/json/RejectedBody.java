package onager.kernel.json;

/**
 * A request body the JSON middleware will not take, with the status and the
 * message its answer carries. An answer, not a failure: it has no stack trace.
 */
public final class RejectedBody extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;

  RejectedBody(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
