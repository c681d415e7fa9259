package onager.kernel.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.vertx.core.http.impl.HttpUtils;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import onager.kernel.http1.ConnectionGuard;
import onager.kernel.limits.Deadline;
import onager.kernel.log.Logs;
import onager.kernel.ring.RingRequest;

/**
 * The plain requests one read of a connection brought: run in order, at the end
 * of the read on the event loop when their handlers run there, else on one
 * virtual thread; their answers handed to the connection's guard together on
 * the event loop.
 *
 * <p>On the loop, running a read's handlers together rather than each as its
 * request is decoded took 1.22 against 1.39 µs of CPU per pipelined request
 * (QUICK, 5 rounds, same run): decoding, handlers and encoding each in a tight
 * run of their own.
 *
 * <p>Through Vert.x, a connection's pipelined requests each cost a round trip
 * between the loop and a virtual thread, as Vert.x hands a connection its next
 * request only once the previous response has ended: 16 pipelined requests, 16
 * thread starts and 16 wake-ups of the loop (0.19 of raw Vert.x's rate, against
 * 0.89 without pipelining). Here they cost one of each.
 *
 * <p>The run stops at the first outcome the shortcut cannot send (that request
 * goes on to Vert.x with its outcome, and the ones after it as they came), and
 * after a handler that took more than {@link #SLOW_NANOS}: the answers made so
 * far do not wait for more slow handlers, and the rest come again, each with a
 * request timeout of its own. The request timeout covers the run; when it runs
 * out, the client gets the answers made, then 503, and the connection closes.
 */
final class QueuedRun extends Deadline implements VirtualStarts.Task {
  static final long SLOW_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  private static final int RUNNING = 0;
  private static final int DONE = 1;
  private static final int EXPIRED = 2;

  private final LoopShortcut shortcut;
  private final Dispatcher server;
  private final ChannelHandlerContext ctx;
  private final EventLoop loop;
  private final HttpRequest[] requests;
  private final boolean secure;
  private final ConnectionGuard guard;
  private final FullHttpResponse[] responses;
  // Run on the event loop, within the read: no thread, no clock.
  private final boolean inline;

  // Guarded by this: the thread publishes answers, the loop may end the run first.
  private volatile int state = RUNNING;
  private int completed;

  // The outcome of the request the run stopped at, which goes on to Vert.x; set before DONE.
  private boolean handedOn;
  private Object outcome;
  private Throwable thrown;

  QueuedRun(LoopShortcut shortcut, ChannelHandlerContext ctx, HttpRequest[] requests, boolean secure,
            ConnectionGuard guard, boolean inline) {
    this.shortcut = shortcut;
    this.server = shortcut.server();
    this.ctx = ctx;
    this.loop = ctx.channel().eventLoop();
    this.requests = requests;
    this.secure = secure;
    this.guard = guard;
    this.responses = new FullHttpResponse[requests.length];
    this.inline = inline;
  }

  /** On the run's own thread, or on the loop within the read when {@code inline}. */
  @Override
  public void run() {
    // The first request runs even if its client has left since, as through Vert.x; the
    // later ones, which Vert.x would have dropped, run only while the connection is open.
    for (int i = 0; i < requests.length && state == RUNNING && (i == 0 || ctx.channel().isOpen()); i++) {
      HttpRequest request = requests[i];
      long start = System.nanoTime();
      Object answer;
      try {
        answer = server.handler.invoke(new RingRequest(
            new ShortcutRequest(request, ctx.channel(), HttpUtils.parsePath(request.uri()), secure)));
      } catch (Throwable t) {
        stopAt(null, t);
        break;
      }
      FullHttpResponse response = shortcut.fullResponse(answer, request.method() == HttpMethod.HEAD);
      if (response == null) {
        stopAt(answer, null);
        break;
      }
      synchronized (this) {
        if (state != RUNNING) {
          response.release();
          Exchange.discardLate(answer);
          return;
        }
        responses[i] = response;
        completed = i + 1;
      }
      if (System.nanoTime() - start > SLOW_NANOS) break;
    }
    synchronized (this) {
      if (state == RUNNING) {
        state = DONE;
      } else {
        // Too late: the client had its 503.
        Exchange.discardLate(outcome);
        return;
      }
    }
    if (inline) {
      finish();
    } else {
      try {
        loop.execute(this::finish);
      } catch (RejectedExecutionException stopped) {
        // The server stopped past :shutdown-timeout-ms while the handlers ran: the loop
        // and the connection are gone, and the answers made have nowhere to go.
        abandon();
      }
    }
  }

  private void abandon() {
    for (int i = 0; i < completed; i++) {
      responses[i].release();
      responses[i] = null;
    }
    Exchange.discardLate(outcome);
    outcome = null;
    thrown = null;
  }

  private void stopAt(Object answer, Throwable failure) {
    handedOn = true;
    outcome = answer;
    thrown = failure;
  }

  // On the loop: the answers go out, and what is left goes on.
  private void finish() {
    shortcut.stopClock(this);
    int count = completed;
    if (server.draining) {
      for (int i = 0; i < count; i++) {
        responses[i].headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
    }
    HttpRequest next = handedOn ? requests[count] : null;
    if (next != null) shortcut.handOn(next, outcome, thrown);
    outcome = null;
    thrown = null;
    guard.queuedAnswered(responses, count, handedOn);
    // Vert.x did not take it when the connection had closed: nothing will send it.
    if (next != null) Exchange.discardLate(shortcut.forget(next));
  }

  @Override
  protected void expired(long timeoutMs) {
    int count;
    synchronized (this) {
      // All answered: the run is as good as done, and nothing is late.
      if (state != RUNNING || completed == requests.length) return;
      state = EXPIRED;
      count = completed;
    }
    HttpRequest late = requests[count];
    Logs.HANDLER.warn("handler for {} {} answered nothing within :request-timeout-ms ({} ms); the client got 503",
        late.method(), late.uri(), timeoutMs);
    guard.queuedTimedOut(responses, count);
  }

  /** No thread for the run: the first request goes on to Vert.x with the cause, which answers 500. On the loop. */
  @Override
  public void failedToStart(Throwable cause) {
    synchronized (this) {
      if (state != RUNNING) return;
      state = DONE;
    }
    stopAt(null, cause);
    finish();
  }
}
