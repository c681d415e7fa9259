package onager.kernel.server;

import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Makes SIGTERM exit the JVM with status 0 while a server with a shutdown hook
 * runs. The JVM's own handler runs the shutdown hooks (which stop the servers
 * gracefully) and exits 143, which systemd and other process managers count as
 * a failure; a stop they asked for is a success. The handler they had comes
 * back when the last such server stops.
 */
final class TermSignal {
  private static final Signal TERM = new Signal("TERM");
  private static int servers;
  private static SignalHandler previous;

  private TermSignal() {}

  /** A server with a shutdown hook started. */
  static synchronized void acquire() {
    if (servers++ > 0) return;
    try {
      // System.exit runs the shutdown hooks, as the JVM's handler does, then ends with 0.
      previous = Signal.handle(TERM, signal -> System.exit(0));
    } catch (IllegalArgumentException notHandled) {
      // The JVM was started with -Xrs or the signal is used elsewhere: its own handling stays.
      servers = 0;
    }
  }

  /** A server with a shutdown hook stopped. */
  static synchronized void release() {
    if (servers == 0 || --servers > 0) return;
    Signal.handle(TERM, previous);
    previous = null;
  }
}
