package onager.kernel.request;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.ArrayDeque;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import onager.kernel.limits.HeapPressure;
import onager.kernel.limits.Watermarks;

/**
 * A request body read by a blocking handler while it is still arriving; and
 * the same for a response body the client streams.
 *
 * <p>The event loop queues the buffers that arrive; the handler's thread takes
 * them. When more than {@link #HIGH_WATER} bytes wait unread the client is held
 * back, so a slow handler holds back the client instead of filling memory;
 * reading back down to a quarter of that lets it go on. Every call into Netty
 * happens on the event loop: the reader only asks for them through
 * {@code loop}. Past {@code maxBody} bytes the read fails with
 * {@link BodyTooLargeException}; while the live objects may fill more than
 * {@code lowMemoryPercent} of the heap (see {@link HeapPressure}), with
 * {@link LowMemoryException}; when the client breaks off, with
 * {@link ClientAbortException}.
 *
 * <p>The buffers are the decoder's own (the pool's direct memory), so a read
 * copies each byte once, into the handler's array. They are released as they
 * are read, or when the body is dropped; what is still unread of a body that
 * has fully arrived when the exchange ends moves to the heap, since the handler
 * may read on after the connection has gone to another request.
 *
 * <p>The reader is woken only when it waits, once per batch of buffers: a socket
 * read hands over several buffers in a row, and waking a blocked thread costs
 * more than copying one. The wake-up is a task on the event loop, which runs
 * after the read that queued the buffers. One read copies as much as is queued,
 * up to the length asked for; a read of one byte takes up to
 * {@link #READ_AHEAD} into the stream's own array and returns the rest from
 * there, so that a reader going a byte at a time pays for the lock once per
 * batch.
 */
public final class StreamingBody extends InputStream implements Runnable {
  // The decoder's buffers are the pool's direct memory, held for less (see Watermarks).
  static final int HIGH_WATER = Watermarks.DIRECT_HIGH;
  static final int LOW_WATER = Watermarks.DIRECT_LOW;
  // What read() takes at once (at most; it waits only for the first byte).
  static final int READ_AHEAD = 8192;

  private final BodyFlow flow;
  private final Executor loop;
  private final long maxBody;
  private final int lowMemoryPercent;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  // Guarded by lock. The buffers' reader index marks what was read.
  private final ArrayDeque<ByteBuf> queue = new ArrayDeque<>();
  private int queued;
  private long received;
  private long receivedWhenAsked;
  private boolean ended;
  private boolean tooLarge;
  private boolean discarding;
  private boolean paused;
  private boolean resumeScheduled;
  private boolean waiting;
  private boolean moved;
  private IOException failure;

  // Event-loop state: a wake-up for the reader is queued on the loop.
  private boolean wakeScheduled;
  private final Runnable wake = this::wakeReader;

  // The reader's own state.
  private boolean closed;
  private boolean continuePending;
  // Bytes taken for read() and not returned yet: a reader that reads one byte at a time gets
  // them from here, without the lock, the heap check and the count for every byte.
  private byte[] ahead;
  private int aheadPos;
  private int aheadEnd;

  /**
   * A body whose bytes {@code flow}'s connection hands over on {@code loop}.
   * {@code expectContinue}: the client waits for {@code 100 Continue}, which goes
   * out on the first read, so that a handler that never reads never asks for the body.
   */
  public StreamingBody(BodyFlow flow, Executor loop, long maxBody, int lowMemoryPercent, boolean expectContinue) {
    this.flow = flow;
    this.loop = loop;
    this.maxBody = maxBody;
    this.lowMemoryPercent = lowMemoryPercent;
    this.continuePending = expectContinue;
  }

  /** The next bytes of the body, which this body now owns. On the event loop. */
  public void bodyData(ByteBuf data) {
    int n = data.readableBytes();
    if (n == 0) {
      data.release();
      return;
    }
    boolean keep = false;
    boolean pause = false;
    boolean close = false;
    boolean wakeReader = false;
    lock.lock();
    try {
      received += n;
      if (received > maxBody) {
        if (!tooLarge) {
          tooLarge = true;
          failure = flow.tooLarge(maxBody);
          dropQueue();
          pause = !paused;
          paused = true;
          close = discarding;
          changed.signalAll();
        }
      } else if (!discarding && failure == null) {
        keep = true;
        queue.add(data);
        queued += n;
        if (queued >= HIGH_WATER && !paused) {
          paused = true;
          pause = true;
        }
        wakeReader = waiting;
      }
    } finally {
      lock.unlock();
    }
    if (!keep) data.release();
    if (wakeReader && !wakeScheduled) {
      wakeScheduled = true;
      loop.execute(wake);
    }
    if (pause) flow.pauseBody();
    // Nobody will read the rest, and what is left is over the limit: only closing ends it.
    if (close) flow.abortBody();
  }

  // Call with the lock held.
  private void dropQueue() {
    ByteBuf b;
    while ((b = queue.poll()) != null) b.release();
    queued = 0;
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

  /** The body ended. On the event loop. */
  public void bodyEnd() {
    lock.lock();
    try {
      ended = true;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The body cannot arrive whole: reads throw {@code cause}. On the event loop. */
  public void bodyFailed(IOException cause) {
    lock.lock();
    try {
      if (failure == null) failure = cause;
      dropQueue();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Resumes the held-back client; runs on the event loop. */
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
    flow.resumeBody();
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
      dropQueue();
      resumeIfDrained();
    } finally {
      lock.unlock();
    }
  }

  /**
   * The exchange, or the connection, is done with this body. One still arriving
   * is dropped (nobody will answer with it); the unread rest of one that arrived
   * moves to the heap, so that it holds none of the connection's buffers. On the
   * event loop.
   */
  public void detach() {
    lock.lock();
    try {
      if (!ended) {
        discarding = true;
        dropQueue();
        resumeIfDrained();
      } else if (!moved) {
        // Nothing arrives after the end: from here on the queue holds heap copies only.
        moved = true;
        int n = queue.size();
        for (int i = 0; i < n; i++) {
          ByteBuf b = queue.poll();
          byte[] copy = new byte[b.readableBytes()];
          b.readBytes(copy);
          b.release();
          queue.add(Unpooled.wrappedBuffer(copy));
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private void sendContinue() {
    if (continuePending) {
      continuePending = false;
      loop.execute(flow::sendContinue);
    }
  }

  // Before a read takes the lock: the 100 Continue if one is owed, and the heap check, which
  // may wait for a garbage collection while the event loop takes the lock to queue what arrives.
  private LowMemoryException prepareRead() throws IOException {
    sendContinue();
    return LowMemoryException.ifOver(lowMemoryPercent, true);
  }

  // Waits, with the lock held, until a buffer is queued (true) or the body ended (false);
  // a heap found too full (low) fails this read and every later one.
  private boolean awaitData(LowMemoryException low) throws IOException {
    if (low != null && failure == null) {
      failure = low;
      dropQueue();
    }
    try {
      while (true) {
        if (failure != null) throw failure;
        if (!queue.isEmpty()) return true;
        if (ended) return false;
        resumeIfDrained();
        waiting = true;
        try {
          changed.await();
        } finally {
          waiting = false;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("interrupted while waiting for the body");
    }
  }

  // With the lock held: the head buffer's reader moved on by n bytes.
  private void consumed(ByteBuf head, int n) {
    queued -= n;
    if (!head.isReadable()) {
      queue.poll();
      head.release();
    }
  }

  private void ensureOpen() throws IOException {
    if (closed) throw new IOException("the body stream is closed");
  }

  @Override
  public int read() throws IOException {
    ensureOpen();
    if (aheadPos == aheadEnd) {
      if (ahead == null) ahead = new byte[READ_AHEAD];
      int n = take(ahead, 0, READ_AHEAD);
      if (n < 0) return -1;
      aheadPos = 0;
      aheadEnd = n;
    }
    return ahead[aheadPos++] & 0xff;
  }

  @Override
  public int read(byte[] dst, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, dst.length);
    ensureOpen();
    if (len == 0) return 0;
    if (aheadPos < aheadEnd) {
      int n = Math.min(len, aheadEnd - aheadPos);
      System.arraycopy(ahead, aheadPos, dst, off, n);
      aheadPos += n;
      return n;
    }
    return take(dst, off, len);
  }

  // Copies what is queued, up to len bytes, waiting for at least one; -1 once the body ended.
  private int take(byte[] dst, int off, int len) throws IOException {
    LowMemoryException low = prepareRead();
    lock.lock();
    try {
      if (!awaitData(low)) return -1;
      int copied = 0;
      ByteBuf head;
      while (copied < len && (head = queue.peek()) != null) {
        int n = Math.min(len - copied, head.readableBytes());
        head.readBytes(dst, off + copied, n);
        copied += n;
        consumed(head, n);
      }
      HeapPressure.taken(copied);
      resumeIfDrained();
      return copied;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public int available() throws IOException {
    ensureOpen();
    lock.lock();
    try {
      return queued + aheadEnd - aheadPos;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    if (closed) return;
    closed = true;
    if (!flow.abortsWhenClosedEarly()) {
      discard();
      return;
    }
    boolean abort;
    lock.lock();
    try {
      abort = !ended && failure == null;
      discarding = true;
      dropQueue();
    } finally {
      lock.unlock();
    }
    if (abort) loop.execute(flow::abortBody);
  }
}
