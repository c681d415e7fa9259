package onager.kernel.config;

import clojure.lang.IDeref;

/**
 * A handler that can tell, before it runs, where a request's handler should run,
 * so that the server starts the request there rather than in its own mode: a
 * router whose routes choose their {@link HandlerMode}. The server asks on the
 * event loop, for every request, before it has read the body.
 */
public interface HandlerModes {
  /**
   * The mode for a request, or null for the server's own. Called on the event loop
   * for every request: it must be quick, must not block and should not allocate.
   *
   * @param method the request method, upper case ({@code "GET"})
   * @param path the request path, not decoded
   */
  HandlerMode modeFor(String method, String path);

  /** Follows what {@code ref} (a var) holds at each request, so that re-defining it takes effect. */
  static HandlerModes following(IDeref ref) {
    return (method, path) -> ref.deref() instanceof HandlerModes modes ? modes.modeFor(method, path) : null;
  }
}
