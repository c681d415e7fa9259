package onager.kernel.websocket;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What a WebSocket has to tell its listener, delivered in order and one at a
 * time on the connection's handler mode: a runner started when there is
 * something to tell and none is running takes everything queued, then ends.
 * On the event loop the runner is the loop itself, and a call the listener
 * causes while it runs (a close) waits its turn instead of nesting.
 */
final class Inbox implements Runnable {
  private final Executor runner;
  private final ConcurrentLinkedQueue<Runnable> queue = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean running = new AtomicBoolean();

  Inbox(Executor runner) {
    this.runner = runner;
  }

  /** Queues {@code event}, starting a runner when none runs. From any thread. */
  void post(Runnable event) {
    queue.add(event);
    if (running.compareAndSet(false, true)) runner.execute(this);
  }

  @Override
  public void run() {
    for (;;) {
      Runnable event;
      while ((event = queue.poll()) != null) event.run();
      running.set(false);
      // An event posted between the last poll and the flag's release found a runner: this one.
      if (queue.isEmpty() || !running.compareAndSet(false, true)) return;
    }
  }
}
