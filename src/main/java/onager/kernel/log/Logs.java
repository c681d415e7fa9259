package onager.kernel.log;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.helpers.NOPLoggerFactory;

/**
 * Onager's loggers. Onager logs through SLF4J, so that its records go wherever the
 * application's do (Logback, Log4j 2, ...), as Vert.x's and Netty's do when SLF4J has
 * a provider. Without one SLF4J would drop every record, a handler's errors among
 * them: then Onager logs through java.util.logging instead, as Vert.x does.
 */
public final class Logs {
  private Logs() {}

  // SLF4J answers with its no-op factory when it found no provider (Vert.x and Netty
  // test for it the same way before they choose SLF4J).
  private static final boolean FALLBACK = LoggerFactory.getILoggerFactory() instanceof NOPLoggerFactory;

  /** The server's life (start, stop) and its limits (timeouts, :max-body, memory). */
  public static final Logger SERVER = logger("onager.server");

  /** Handlers that fail: threw, raised, answered nothing in time, or answered twice. */
  public static final Logger HANDLER = logger("onager.server.handler");

  /** Clients that misbehave or leave: malformed or stalled requests, connections closed mid-exchange. */
  public static final Logger CLIENT = logger("onager.server.client");

  /**
   * The HTTP client: its callbacks that throw, and routine events (retries of a
   * stale connection, redirects) at debug level.
   */
  public static final Logger HTTP_CLIENT = logger("onager.client");

  /** The logger called {@code name}: SLF4J's, or one that logs to java.util.logging without a provider. */
  public static Logger logger(String name) {
    return FALLBACK ? new JulLogger(name) : LoggerFactory.getLogger(name);
  }
}
