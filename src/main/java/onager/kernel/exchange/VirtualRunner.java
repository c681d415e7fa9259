package onager.kernel.exchange;

import io.netty.channel.EventLoop;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import onager.kernel.log.Logs;

/**
 * Runs a WebSocket listener's bursts of messages on virtual threads. Started
 * from the event loop, a burst's thread goes through the loop's {@link
 * VirtualStarts}, so that the bursts of every connection the loop read in one
 * turn start together, as handlers do; from another thread it starts at once.
 */
final class VirtualRunner implements Executor {
  private final EventLoop loop;
  private final VirtualStarts starts;
  private final ThreadFactory threads;

  VirtualRunner(EventLoop loop, VirtualStarts starts, ThreadFactory threads) {
    this.loop = loop;
    this.starts = starts;
    this.threads = threads;
  }

  @Override
  public void execute(Runnable burst) {
    if (loop.inEventLoop()) {
      starts.start(new Burst(burst));
    } else {
      threads.newThread(burst).start();
    }
  }

  private record Burst(Runnable burst) implements VirtualStarts.Task {
    @Override
    public void run() {
      burst.run();
    }

    @Override
    public void failedToStart(Throwable cause) {
      // Only a JVM out of memory refuses a virtual thread; the socket's messages wait.
      Logs.SERVER.error("could not start a virtual thread for a WebSocket listener", cause);
    }
  }
}
