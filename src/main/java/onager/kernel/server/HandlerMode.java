package onager.kernel.server;

/** Where the user's handler runs (README "Where handlers run"). */
public enum HandlerMode {
  /** On the Vert.x event loop: fastest, for code that never blocks. */
  EVENT_LOOP,
  /** One virtual thread per request: blocking code scales without a pool to size. */
  VIRTUAL,
  /** A bounded pool of platform threads, for CPU-heavy handlers. */
  WORKER
}
