package onager.kernel.exchange;

import io.netty.channel.EventLoop;
import io.netty.channel.SingleThreadEventLoop;
import java.util.ArrayList;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;

/**
 * The virtual threads one event loop starts for its handlers, and the ones it
 * wakes (response writers waiting for the socket to drain), started and woken
 * together at the end of the loop's turn (once it has read what its ready
 * connections sent, and written what they could take) instead of one at a time.
 *
 * <p>Starting a virtual thread wakes the scheduler's carrier thread when it is
 * idle; where the carrier shares a core with the loop, a start per request woke
 * it for one or two handlers at a time, and the woken carrier took the core from
 * the loop while the loop still had the rest to start. So the loop starts one
 * thread per turn, and that thread starts the turn's others before running its
 * own handler: a thread started on a carrier goes to the carrier's own queue
 * without waking anyone. Writers woken from the loop cost the same switch, so
 * the turn's first thread wakes them too.
 *
 * <p>Handlers start in the order their requests came, a few microseconds later
 * than when read. The methods run on the event loop.
 */
public final class VirtualStarts implements Runnable {
  /** What runs on a started thread, and what answers for it when no thread could be started. */
  public interface Task extends Runnable {
    void failedToStart(Throwable cause);
  }

  private final ThreadFactory threads;
  // Null when the loop has no end-of-turn hook: each handler then starts at once.
  private final SingleThreadEventLoop loop;
  private final ArrayList<Task> pending = new ArrayList<>();
  private final ArrayList<Runnable> wakes = new ArrayList<>();

  public VirtualStarts(EventLoop loop, ThreadFactory threads) {
    this.threads = threads;
    this.loop = loop instanceof SingleThreadEventLoop s ? s : null;
  }

  /** Starts {@code task} on a thread of its own before the loop's turn ends. */
  void start(Task task) {
    if (loop == null || !atTurnEnd()) {
      startNow(task);
      return;
    }
    pending.add(task);
  }

  /**
   * Runs {@code wake}, which unparks a virtual thread, before the loop's turn
   * ends: on the turn's first thread when the turn starts any, from the loop
   * when it is the turn's only work. Unparked from a carrier, a thread joins that
   * carrier's queue without waking it; unparked from the loop, each one can wake
   * the carrier, which then takes the core from the loop for that one thread.
   */
  void wake(Runnable wake) {
    if (loop == null || !atTurnEnd()) {
      wake.run();
      return;
    }
    wakes.add(wake);
  }

  // Makes sure this runs at the end of the turn; false if the loop runs no more turns.
  private boolean atTurnEnd() {
    if (!pending.isEmpty() || !wakes.isEmpty()) return true;
    try {
      loop.executeAfterEventLoopIteration(this);
      return true;
    } catch (RejectedExecutionException e) {
      return false;
    }
  }

  @Override
  public void run() {
    int tasks = pending.size();
    if (tasks == 0 && wakes.size() == 1) {
      wakes.get(0).run();
    } else if (tasks == 1 && wakes.isEmpty()) {
      startNow(pending.get(0));
    } else {
      startNow(new Turn(pending.toArray(new Task[0]), wakes.toArray(new Runnable[0])));
    }
    pending.clear();
    wakes.clear();
  }

  /**
   * A turn's work: the first thread wakes the threads to wake, starts the other
   * tasks' threads, then runs the first task.
   */
  private final class Turn implements Task {
    private final Task[] tasks;
    private final Runnable[] wakes;

    Turn(Task[] tasks, Runnable[] wakes) {
      this.tasks = tasks;
      this.wakes = wakes;
    }

    @Override
    public void run() {
      for (Runnable w : wakes) w.run();
      // A handler that fails to start does not keep the others from starting.
      for (int i = 1; i < tasks.length; i++) startNow(tasks[i]);
      if (tasks.length > 0) tasks[0].run();
    }

    @Override
    public void failedToStart(Throwable cause) {
      for (Runnable w : wakes) w.run();
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
