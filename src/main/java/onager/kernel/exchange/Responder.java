package onager.kernel.exchange;

import clojure.lang.AFn;

/** The {@code respond} and {@code raise} functions an async handler gets; callable from any thread. */
final class Responder extends AFn {
  private final Exchange exchange;
  private final boolean raise;

  Responder(Exchange exchange, boolean raise) {
    this.exchange = exchange;
    this.raise = raise;
  }

  @Override
  public Object invoke(Object arg) {
    if (!raise) {
      exchange.respond(arg);
    } else if (arg instanceof Throwable t) {
      exchange.fail(t);
    } else {
      exchange.fail(new IllegalArgumentException("raise was called with " + arg + ", not a Throwable"));
    }
    return null;
  }
}
