package onager.kernel.limits;

/**
 * Something that must be done within a time shared by all its kind (a server's
 * request timeout, a client's idle timeout), tracked by {@link RequestTimeouts}
 * without a timer of its own: the links and the start time live here, in the
 * object itself, so tracking allocates nothing.
 */
public abstract class Deadline {
  static final byte NEW = 0;
  static final byte TRACKED = 1;
  static final byte OVER = 2;

  Deadline prev;
  Deadline next;
  long startNanos;
  byte state = NEW;

  /** The time ran out before {@link RequestTimeouts#done} was called; runs on the event loop. */
  protected abstract void expired(long timeoutMs);
}
