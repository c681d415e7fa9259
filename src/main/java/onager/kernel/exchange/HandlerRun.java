package onager.kernel.exchange;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
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
 *
 * <p>The exchanges of HTTP/2 streams owe each other no order (RFC 9113 §5):
 * such a run is {@link #spread} once it has taken {@link #SLOW_NANOS}, while
 * its handler still runs. The exchanges it has not reached then start alone,
 * and the answers made so far go out, so that no stream waits for another's
 * slow handler.
 */
final class HandlerRun implements VirtualStarts.Task {
  static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private static final VarHandle NEXT;
  private static final VarHandle UNTOLD;

  static {
    try {
      MethodHandles.Lookup lookup = MethodHandles.lookup();
      NEXT = lookup.findVarHandle(HandlerRun.class, "next", int.class);
      UNTOLD = lookup.findVarHandle(HandlerRun.class, "untold", boolean.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Exchange[] exchanges;
  // The thread running the handlers, while it does; read by others only to tell it is not theirs.
  private volatile Thread owner;
  // The index of the next exchange to run: claimed by the run's thread one at a time, and
  // all at once by spread.
  @SuppressWarnings("unused") // through NEXT
  private volatile int next;
  // Answers published and not yet told to their streams: set by the run's thread, claimed
  // by it at the end or by spread.
  @SuppressWarnings("unused") // through UNTOLD
  private volatile boolean untold;

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
    // Streams in order: a slow handler ends the run (spread never comes).
    boolean inOrder = xs[0].stream == xs[1].stream;
    int rest = xs.length;
    try {
      // The first handler runs even if its client has left since; the later ones only
      // while their answers can still go out (RFC 9112 §9.6, RFC 9113 §8.1).
      for (int i; (i = (int) NEXT.getAndAdd(this, 1)) < xs.length; ) {
        if (i > 0 && xs[i].closed()) continue;
        long start = System.nanoTime();
        xs[i].invoke();
        if (inOrder && System.nanoTime() - start > SLOW_NANOS) {
          rest = i + 1;
          break;
        }
      }
    } finally {
      owner = null;
      if ((boolean) UNTOLD.getAndSet(this, false)) tellStream();
    }
    if (rest < xs.length) startRest(Arrays.copyOfRange(xs, rest, xs.length));
  }

  /**
   * A run of independent streams still running after {@link #SLOW_NANOS}:
   * starts alone each exchange it has not reached, and sends the answers
   * published so far. On the event loop.
   */
  void spread() {
    Exchange[] xs = exchanges;
    int from = (int) NEXT.getAndSet(this, xs.length);
    if (from < xs.length) xs[0].server.startEach(xs, from);
    if ((boolean) UNTOLD.getAndSet(this, false)) tellStreams();
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
