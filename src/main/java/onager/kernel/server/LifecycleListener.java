package onager.kernel.server;

/**
 * Told when a server it was given to (the {@code :health} option) has started,
 * and when it begins to stop: before the shutdown delay, so that a readiness
 * check can turn load balancers away while the server still answers.
 */
public interface LifecycleListener {
  /** The server listens. */
  void started();

  /** The server stops: it still answers until the shutdown delay is over, then drains. */
  void stopping();
}
