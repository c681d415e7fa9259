package onager.kernel.exchange;

import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * The handlers of several exchanges that one read of a connection brought, run
 * in order on one thread: a connection's pipelined requests then cost one
 * thread start and one wake-up of the event loop, where running each on its own
 * thread would cost one of each per request, since the answers must go out in
 * order anyway.
 *
 * <p>The answers the handlers publish are told to the stream together, when
 * the run ends, and before a streamed body (which must follow them). A handler
 * that took more than {@link #SLOW_NANOS} ends the run: the answers made do not
 * wait for more slow handlers, and the exchanges after it start again as a run
 * of their own, each with its request timeout started anew.
 */
final class HandlerRun implements VirtualStarts.Task {
  static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private final Exchange[] exchanges;
  // The thread running the handlers, while it does; read by others only to tell it is not theirs.
  private volatile Thread owner;
  // Answers published and not yet told to the stream; the owner's own.
  private boolean untold;

  HandlerRun(Exchange[] exchanges) {
    this.exchanges = exchanges;
    for (Exchange x : exchanges) x.run = this;
  }

  boolean isRunningOn(Thread thread) {
    return owner == thread;
  }

  /** An exchange of the run published its answer, on the run's thread. */
  void answered() {
    untold = true;
  }

  @Override
  public void run() {
    owner = Thread.currentThread();
    Exchange[] xs = exchanges;
    int next = xs.length;
    try {
      // The first handler runs even if its client has left since; the later ones only
      // while their answers can still go out (RFC 9112 §9.6, RFC 9113 §8.1).
      for (int i = 0; i < xs.length; i++) {
        if (i > 0 && xs[i].closed()) continue;
        long start = System.nanoTime();
        xs[i].invoke();
        if (System.nanoTime() - start > SLOW_NANOS) {
          next = i + 1;
          break;
        }
      }
    } finally {
      owner = null;
      if (untold) tellStream();
    }
    if (next < xs.length) startRest(Arrays.copyOfRange(xs, next, xs.length));
  }

  private static void startRest(Exchange[] rest) {
    Exchange first = rest[0];
    try {
      first.loop.execute(() -> first.server.restartAll(rest));
    } catch (RejectedExecutionException stopped) {
      // The server stopped past :shutdown-timeout-ms: nothing is left to answer them on.
    }
  }

  /** Tells the streams of the answers published so far. */
  void tellStream() {
    untold = false;
    Exchange first = exchanges[0];
    try {
      first.loop.execute(this::tellStreams);
    } catch (RejectedExecutionException stopped) {
      // The server stopped past :shutdown-timeout-ms: the connection is gone with its loop.
    }
  }

  // A connection's exchanges share its stream; an HTTP/2 connection's each have their own.
  private void tellStreams() {
    RequestStream told = null;
    for (Exchange x : exchanges) {
      if (x.stream != told) {
        told = x.stream;
        told.answersReady();
      }
    }
  }

  /** No thread for the run: each exchange's client gets a 500, as for any failed handler. */
  @Override
  public void failedToStart(Throwable cause) {
    for (Exchange x : exchanges) x.failedToStart(cause);
  }
}
