package onager.kernel.log;

/** What an error's message says, for the messages Onager's own errors and log lines give. */
public final class Reasons {
  private Reasons() {}

  /** The innermost message of {@code t}, or its class's name when it has none: the reason a library gave. */
  public static String innermost(Throwable t) {
    Throwable root = t;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    String m = root.getMessage();
    return m == null || m.isBlank() ? root.getClass().getSimpleName() : m;
  }
}
