package onager.kernel.config;

import clojure.lang.Keyword;

/**
 * Where the user's handler runs (README "Where handlers run"). Each mode carries
 * the keyword that names it in the server's options and the router's route data,
 * so that those and the kernel share one mapping.
 */
public enum HandlerMode {
  /** One virtual thread per request: blocking code scales without a pool to size. */
  VIRTUAL("virtual"),
  /** On the Vert.x event loop: fastest, for code that never blocks. */
  EVENT_LOOP("event-loop"),
  /** A bounded pool of platform threads, for CPU-heavy handlers. */
  WORKER("worker");

  private static final HandlerMode[] ALL = values();

  /** The mode's name in options and route data: {@code :event-loop}. */
  public final Keyword keyword;

  HandlerMode(String name) {
    keyword = Keyword.intern(name);
  }

  /** The mode {@code value} names, or null when it names none (nil included). */
  public static HandlerMode of(Object value) {
    for (HandlerMode mode : ALL) {
      if (mode.keyword.equals(value)) return mode;
    }
    return null;
  }
}
