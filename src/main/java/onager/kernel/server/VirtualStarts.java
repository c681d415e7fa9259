package onager.kernel.server;

import io.netty.channel.EventLoop;
import io.netty.channel.SingleThreadEventLoop;
import java.util.ArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * The virtual threads one event loop starts for its handlers, started together
 * at the end of the loop's turn (once it has read what its ready connections
 * sent) instead of one as each request is read.
 *
 * <p>Starting a virtual thread wakes the scheduler's carrier thread when it is
 * idle; the carrier then runs the handlers it finds and goes idle again, after
 * a spin. Where the carrier shares a core with the loop, a start per request
 * woke it for one or two handlers at a time: 0.55 thread switches per request
 * and 11.6 µs of CPU serving plaintext, against 0.20 and 9.2 µs when a turn's
 * requests start together (pinned to one core, 64 connections).
 *
 * <p>Even together, each start from the loop could wake the carrier, and the
 * woken carrier took the core from the loop at once (perf: 5.8 % of samples in
 * the switch out of the loop's {@code pthread_cond_signal}), ran the one
 * handler queued, and spun idle while the loop had the rest to start. So the
 * loop starts one thread per turn, and that thread starts the turn's others
 * before running its own handler: a thread started on a carrier goes to the
 * carrier's own queue without waking anyone. Plaintext then took 7.2 against
 * 8.7 µs of CPU per request (QUICK, 5 rounds, same run).
 *
 * <p>Handlers start in the order their requests came, a few microseconds later
 * than when read. The methods run on the event loop.
 */
final class VirtualStarts implements Runnable {
  /** What runs on a started thread, and what answers for it when no thread could be started. */
  interface Task extends Runnable {
    void failedToStart(Throwable cause);
  }

  private final ThreadFactory threads;
  // Null when the loop has no end-of-turn hook: each handler then starts at once.
  private final SingleThreadEventLoop loop;
  private final ArrayList<Task> pending = new ArrayList<>();

  VirtualStarts(EventLoop loop, ThreadFactory threads) {
    this.threads = threads;
    this.loop = loop instanceof SingleThreadEventLoop s ? s : null;
  }

  /** Starts {@code task} on a thread of its own before the loop's turn ends. */
  void start(Task task) {
    if (loop == null) {
      startNow(task);
      return;
    }
    if (pending.isEmpty()) {
      try {
        loop.executeAfterEventLoopIteration(this);
      } catch (RejectedExecutionException e) {
        // The loop is shutting down and runs no more turns.
        startNow(task);
        return;
      }
    }
    pending.add(task);
  }

  @Override
  public void run() {
    startNow(pending.size() == 1 ? pending.get(0) : new Turn(pending.toArray(new Task[0])));
    pending.clear();
  }

  /** A turn's tasks: the first thread starts the others, then runs the first task. */
  private final class Turn implements Task {
    private final Task[] tasks;

    Turn(Task[] tasks) {
      this.tasks = tasks;
    }

    @Override
    public void run() {
      // A handler that fails to start does not keep the others from starting.
      for (int i = 1; i < tasks.length; i++) startNow(tasks[i]);
      tasks[0].run();
    }

    @Override
    public void failedToStart(Throwable cause) {
      for (Task t : tasks) t.failedToStart(cause);
    }
  }

  private void startNow(Task task) {
    try {
      threads.newThread(task).start();
    } catch (Throwable t) {
      task.failedToStart(t);
    }
  }
}
