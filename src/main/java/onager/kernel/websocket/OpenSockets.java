package onager.kernel.websocket;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The server's WebSockets whose listener has had on-open and not yet on-close:
 * a stopping server waits for them to reach zero, so that every on-close has
 * run when {@code stop} returns.
 */
public final class OpenSockets {
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition none = lock.newCondition();
  private int open;
  /** Told of the sockets' messages; null when no one counts them. */
  final MessageMeter messages;

  public OpenSockets() {
    this(null);
  }

  /** @param messages told of the sockets' messages, or null */
  public OpenSockets(MessageMeter messages) {
    this.messages = messages;
  }

  /** How many sockets have had on-open and not yet on-close. */
  public int count() {
    lock.lock();
    try {
      return open;
    } finally {
      lock.unlock();
    }
  }

  void opened() {
    lock.lock();
    try {
      open++;
    } finally {
      lock.unlock();
    }
  }

  void closed() {
    lock.lock();
    try {
      if (--open == 0) none.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code ms} for every on-close to have run; false when some have not. */
  public boolean awaitNone(long ms) throws InterruptedException {
    long left = TimeUnit.MILLISECONDS.toNanos(ms);
    lock.lock();
    try {
      while (open > 0) {
        if (left <= 0) return false;
        left = none.awaitNanos(left);
      }
      return true;
    } finally {
      lock.unlock();
    }
  }
}
