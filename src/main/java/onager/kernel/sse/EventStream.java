package onager.kernel.sse;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import onager.kernel.response.ResponseStream;

/**
 * A server-sent event stream (the HTML standard's text/event-stream) over a
 * streamed response body: events and comments written whole and flushed one by
 * one, from any thread, in the order they were sent. The thread that writes the
 * body {@link #run runs} the stream: it sends a comment when the stream has
 * been quiet for the keep-alive time (which also finds a client gone without a
 * word), and returns once the stream is closed, by {@link #close} or by the
 * client leaving, which ends the response.
 */
public final class EventStream {
  private static final byte[] KEEP_ALIVE = ":\n\n".getBytes(StandardCharsets.US_ASCII);

  private final OutputStream out;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();
  // Written under lock; read without it, so that no one waits on a blocked writer to learn it.
  private volatile boolean open = true;
  private boolean sentSinceTick;

  /**
   * A stream over the response body {@code out}. When it is the kernel's, the
   * stream closes as soon as the client's connection goes.
   */
  public EventStream(OutputStream out) {
    this.out = out;
    // The hook runs on the event loop, which must not wait for the lock a writer may hold.
    if (out instanceof ResponseStream body) body.whenClosed(() -> Thread.startVirtualThread(this::close));
  }

  /**
   * Sends an event: {@code data} split into a data line per line (at CR, LF or
   * CRLF), with {@code id}, {@code event} and {@code retryMs} when not null.
   * Returns false, sending nothing, once the stream is closed; a write that
   * fails closes it. Throws IllegalArgumentException for an id or an event name
   * with a line break in it (or NUL, for an id), which would end the field early.
   */
  public boolean send(String id, String event, String data, Long retryMs) {
    StringBuilder b = new StringBuilder(32 + (data == null ? 0 : data.length()));
    if (id != null) field(b, "id", check("id", id, true));
    if (event != null) field(b, "event", check("event", event, false));
    if (retryMs != null) {
      if (retryMs < 0) throw new IllegalArgumentException("retry is a number of milliseconds, not " + retryMs);
      field(b, "retry", Long.toString(retryMs));
    }
    if (data != null) {
      int start = 0;
      int n = data.length();
      for (int i = 0; i < n; i++) {
        char c = data.charAt(i);
        if (c == '\r' || c == '\n') {
          field(b, "data", data.substring(start, i));
          if (c == '\r' && i + 1 < n && data.charAt(i + 1) == '\n') i++;
          start = i + 1;
        }
      }
      field(b, "data", data.substring(start));
    }
    // A blank line dispatches the event; one with no field at all would be no event.
    if (b.isEmpty()) field(b, "data", "");
    b.append('\n');
    return write(b.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** Sends a comment line, which clients ignore: false once the stream is closed. */
  public boolean comment(String text) {
    StringBuilder b = new StringBuilder(text.length() + 4);
    for (String line : text.split("\r\n|\r|\n", -1)) b.append(':').append(line).append('\n');
    return write(b.append('\n').toString().getBytes(StandardCharsets.UTF_8));
  }

  /** Closes the stream: the response ends. From any thread; twice does nothing. */
  public void close() {
    lock.lock();
    try {
      open = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** True until the stream is closed. */
  public boolean isOpen() {
    return open;
  }

  /**
   * Runs the stream on the thread that writes the response body until it is
   * closed, sending a comment after {@code keepAliveMs} without a write (never
   * when 0). Sends the head at once, so that the client sees the stream open.
   */
  public void run(long keepAliveMs) throws InterruptedException {
    write(null);
    lock.lock();
    try {
      while (open) {
        if (keepAliveMs == 0) {
          changed.await();
          continue;
        }
        sentSinceTick = false;
        changed.await(keepAliveMs, TimeUnit.MILLISECONDS);
        if (open && !sentSinceTick) {
          lock.unlock();
          try {
            write(KEEP_ALIVE);
          } finally {
            lock.lock();
          }
        }
      }
    } finally {
      lock.unlock();
    }
  }

  // Writes and flushes bytes (none: a flush only); false, and the stream closed, when it fails.
  private boolean write(byte[] bytes) {
    lock.lock();
    try {
      if (!open) return false;
      try {
        if (bytes != null) out.write(bytes);
        out.flush();
        sentSinceTick = true;
        return true;
      } catch (IOException e) {
        open = false;
        changed.signalAll();
        return false;
      }
    } finally {
      lock.unlock();
    }
  }

  private static void field(StringBuilder b, String name, String value) {
    b.append(name).append(": ").append(value).append('\n');
  }

  private static String check(String name, String value, boolean id) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\n' || c == '\r' || id && c == 0) {
        throw new IllegalArgumentException("an event's " + name + " cannot hold a line break"
            + (id ? " or NUL" : "") + ": " + value);
      }
    }
    return value;
  }
}
