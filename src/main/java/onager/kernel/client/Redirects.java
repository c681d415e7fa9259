package onager.kernel.client;

import clojure.lang.Keyword;

/**
 * Which redirects a request follows, the {@code :redirects} option. A redirect
 * the policy refuses is not an error: its 3xx response is the answer, as a
 * request that follows none gets.
 */
public enum Redirects {
  /** None: the 3xx response is returned. */
  NONE,
  /** Only to the same scheme, host and port. */
  SAME_ORIGIN,
  /** Any, except from https to http, which would send on in clear text what was asked in private. */
  NORMAL,
  /** Any. */
  ALL;

  /** The policy a {@code :redirects} keyword names, or null. */
  static Redirects of(Object value) {
    if (!(value instanceof Keyword k)) return null;
    return switch (k.getName()) {
      case "none" -> NONE;
      case "same-origin" -> SAME_ORIGIN;
      case "normal" -> NORMAL;
      case "all" -> ALL;
      default -> null;
    };
  }

  /** True when a request to {@code from} may follow a redirect to {@code to}. */
  boolean allows(Target from, Target to) {
    return switch (this) {
      case NONE -> false;
      case SAME_ORIGIN -> from.sameOrigin(to);
      case NORMAL -> !(from.ssl && !to.ssl);
      case ALL -> true;
    };
  }
}
