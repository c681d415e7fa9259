package onager.kernel.request;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import onager.kernel.http.Watermarks;
import onager.kernel.limits.HeapPressure;

/**
 * A request body read by a blocking handler while it is still arriving.
 *
 * <p>The event loop queues the buffers Vert.x delivers; the handler's thread takes
 * them. When more than {@link #HIGH_WATER} bytes wait unread the request is
 * paused, so a slow handler holds back the client instead of filling the heap;
 * reading back down to {@link #LOW_WATER} resumes it. Every call into Vert.x
 * happens on the event loop: the reader only asks for them through {@code loop}.
 * Past {@code maxBody} bytes the read fails with {@link BodyTooLargeException};
 * while the live objects may fill more than {@code lowMemoryPercent} of the
 * heap (see {@link HeapPressure}), with {@link LowMemoryException}; when the client breaks off, with
 * {@link ClientAbortException}.
 *
 * <p>The reader is woken once per batch of buffers, not once per buffer: a
 * socket read hands over several buffers in a row (8 KiB each), and waking a
 * blocked thread costs more than copying one. The wake-up is a task on the event
 * loop, which runs after the read that queued the buffers.
 */
public final class StreamingBody extends InputStream implements Runnable {
  static final int HIGH_WATER = Watermarks.HIGH;
  static final int LOW_WATER = Watermarks.LOW;

  private final HttpServerRequest request;
  private final Executor loop;
  private final long maxBody;
  private final int lowMemoryPercent;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  // Guarded by lock.
  private final ArrayDeque<Buffer> queue = new ArrayDeque<>();
  private int queued;
  private long received;
  private long receivedWhenAsked;
  private boolean ended;
  private boolean tooLarge;
  private boolean discarding;
  private boolean paused;
  private boolean resumeScheduled;
  private IOException failure;

  // Event-loop state: a wake-up for the reader is queued on the loop.
  private boolean wakeScheduled;
  private final Runnable wake = this::wakeReader;

  // The reader's own state.
  private Buffer current;
  private int pos;
  private boolean closed;
  private boolean continuePending;

  /**
   * Wires a body to {@code request}'s events; call on the event loop before the
   * request can deliver data. {@code expectContinue}: the client waits for
   * {@code 100 Continue}, which goes out on the first read, so that a handler
   * that never reads never asks for the body.
   */
  public StreamingBody(HttpServerRequest request, Executor loop, long maxBody, int lowMemoryPercent,
                       boolean expectContinue) {
    this.request = request;
    this.loop = loop;
    this.maxBody = maxBody;
    this.lowMemoryPercent = lowMemoryPercent;
    this.continuePending = expectContinue;
    request.handler(this::onData);
    request.endHandler(v -> onEnd());
    request.exceptionHandler(this::onError);
  }

  private void onData(Buffer buffer) {
    boolean pause = false;
    boolean close = false;
    lock.lock();
    try {
      received += buffer.length();
      if (received > maxBody) {
        if (!tooLarge) {
          tooLarge = true;
          failure = new BodyTooLargeException(maxBody);
          queue.clear();
          queued = 0;
          pause = !paused;
          paused = true;
          close = discarding;
          changed.signalAll();
        }
      } else if (!discarding) {
        queue.add(buffer);
        queued += buffer.length();
        if (queued >= HIGH_WATER && !paused) {
          paused = true;
          pause = true;
        }
      }
    } finally {
      lock.unlock();
    }
    if (!wakeScheduled) {
      wakeScheduled = true;
      loop.execute(wake);
    }
    if (pause) request.pause();
    // Nobody will read the rest, and what is left is over the limit: only closing ends it.
    if (close) request.connection().close();
  }

  private void wakeReader() {
    wakeScheduled = false;
    lock.lock();
    try {
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void onEnd() {
    lock.lock();
    try {
      ended = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void onError(Throwable cause) {
    lock.lock();
    try {
      if (failure == null) {
        failure = cause instanceof IOException io
            ? io
            : new ClientAbortException(0, "the connection closed before the request body ended", cause);
      }
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Resumes the paused request; runs on the event loop. */
  @Override
  public void run() {
    lock.lock();
    try {
      resumeScheduled = false;
      if (!paused || tooLarge) return;
      paused = false;
    } finally {
      lock.unlock();
    }
    request.resume();
  }

  // Call with the lock held.
  private void resumeIfDrained() {
    if (paused && !resumeScheduled && !tooLarge && queued <= LOW_WATER) {
      resumeScheduled = true;
      loop.execute(this);
    }
  }

  /** True when the whole body arrived (read or not). */
  public boolean ended() {
    lock.lock();
    try {
      return ended;
    } finally {
      lock.unlock();
    }
  }

  /**
   * True when bytes arrived since the last call and the body is still coming:
   * the client is sending, so time taken is the upload's, not the handler's.
   */
  public boolean stillArriving() {
    lock.lock();
    try {
      boolean moved = received != receivedWhenAsked;
      receivedWhenAsked = received;
      return moved && !ended && failure == null;
    } finally {
      lock.unlock();
    }
  }

  /** True when the client sent more than {@code maxBody}: the connection cannot be reused. */
  public boolean tooLarge() {
    lock.lock();
    try {
      return tooLarge;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Drops what is queued and whatever still arrives, so that the connection can
   * go on to the next request once the rest of this body has gone by.
   */
  public void discard() {
    lock.lock();
    try {
      discarding = true;
      queue.clear();
      queued = 0;
      resumeIfDrained();
    } finally {
      lock.unlock();
    }
  }

  private boolean next() throws IOException {
    if (continuePending) {
      continuePending = false;
      loop.execute(() -> request.response().writeContinue());
    }
    lock.lock();
    try {
      while (true) {
        if (failure == null && HeapPressure.over(lowMemoryPercent)) {
          failure = new LowMemoryException(HeapPressure.percent(), lowMemoryPercent);
        }
        if (failure != null) throw failure;
        Buffer b = queue.poll();
        if (b != null) {
          queued -= b.length();
          HeapPressure.taken(b.length());
          current = b;
          pos = 0;
          resumeIfDrained();
          return true;
        }
        if (ended) return false;
        resumeIfDrained();
        changed.await();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the request body");
    } finally {
      lock.unlock();
    }
  }

  private void ensureOpen() throws IOException {
    if (closed) throw new IOException("the request body stream is closed");
  }

  @Override
  public int read() throws IOException {
    ensureOpen();
    while (current == null || pos == current.length()) {
      if (!next()) return -1;
    }
    return current.getByte(pos++) & 0xff;
  }

  @Override
  public int read(byte[] dst, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, dst.length);
    ensureOpen();
    if (len == 0) return 0;
    while (current == null || pos == current.length()) {
      if (!next()) return -1;
    }
    int n = Math.min(len, current.length() - pos);
    current.getBytes(pos, pos + n, dst, off);
    pos += n;
    return n;
  }

  @Override
  public int available() throws IOException {
    ensureOpen();
    int here = current == null ? 0 : current.length() - pos;
    lock.lock();
    try {
      return here + queued;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    if (closed) return;
    closed = true;
    current = null;
    discard();
  }
}
