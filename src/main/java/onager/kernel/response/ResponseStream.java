package onager.kernel.response;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import onager.kernel.limits.Watermarks;

/**
 * The OutputStream a streamed response body is written to, from a thread that may
 * block (a virtual thread or a worker, never the event loop).
 *
 * <p>Bytes collect in one {@link #CHUNK}-byte array, the stream's own for its
 * whole life; when it is full, or on {@code flush}, its bytes are copied to a
 * buffer of the connection's pooled direct memory, just as long, which is handed
 * to the event loop and taken by the socket as it is (a short flush goes as a
 * heap copy, see {@link #DIRECT_MIN}). (Netty would make the same
 * copy of a heap chunk; a new array per chunk would also be zeroed by the JVM
 * and collected, a megabyte of each for a 1 MiB body.) Chunks handed over while the
 * loop has not yet taken the previous ones join them: a producer faster than the
 * loop costs one event-loop task (and one wake-up of the loop) per batch, not
 * per chunk. (One write per batch would be cheaper still, but a composite of
 * heap buffers is copied whole once more on its way to the socket.)
 *
 * <p>Once more than {@link #HIGH_WATER} bytes are handed over and not yet written
 * to the socket, the writer waits until they drain below {@link #LOW_WATER}
 * (see {@link Watermarks}, and below): a slow client slows the body's source instead of
 * filling the heap. After the connection fails, every write throws.
 *
 * <p>When the handler declared a Content-Length, the body must be exactly that
 * long: a byte more would be read by the client as the start of the next
 * response, a byte less would leave it waiting. Either fails the stream.
 */
public final class ResponseStream extends OutputStream {
  // 64 KiB: half the writes, tasks and completions of 32 KiB; what one socket read or
  // write moves at most anyway.
  static final int CHUNK = 64 * 1024;
  // A flush of fewer bytes (a line of a server-sent event stream) goes out as a small
  // heap copy, which Netty copies again on the event loop: a pooled buffer costs more
  // to take and give back than so few bytes cost to copy.
  static final int DIRECT_MIN = 4096;
  // The chunks are the pool's direct memory, held for less (see Watermarks).
  static final long HIGH_WATER = Watermarks.DIRECT_HIGH;
  static final long LOW_WATER = Watermarks.DIRECT_LOW;

  private final ChunkSink sink;
  private final ByteBufAllocator alloc;
  private final long declaredLength;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition drained = lock.newCondition();

  // Guarded by lock; failure is also read without it, so a write costs no lock.
  private long inFlight;
  private volatile IOException failure;
  // Chunks handed over that the event loop has not taken yet, and what they carry.
  private final ArrayList<ByteBuf> pending = new ArrayList<>(4);
  private int pendingLength;
  private boolean pendingFirst;
  private boolean pendingLast;
  private boolean drainRequested;
  // The writer waits for the chunks to drain, and no wake-up is on its way yet.
  private boolean waiting;

  // The writer's own state.
  private byte[] buf;
  private int pos;
  private long total;
  private boolean headSent;
  private boolean closed;

  /**
   * {@code alloc}: the connection's allocator, for the chunks; {@code declaredLength}:
   * the handler's Content-Length, or -1 when it declared none.
   */
  public ResponseStream(ChunkSink sink, ByteBufAllocator alloc, long declaredLength) {
    this.sink = sink;
    this.alloc = alloc;
    this.declaredLength = declaredLength;
  }

  @Override
  public void write(int b) throws IOException {
    ensureOpen();
    count(1);
    if (buf == null) buf = new byte[CHUNK];
    buf[pos++] = (byte) b;
    if (pos == buf.length) send(false);
  }

  @Override
  public void write(byte[] src, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, src.length);
    ensureOpen();
    count(len);
    while (len > 0) {
      if (buf == null) buf = new byte[CHUNK];
      int n = Math.min(len, buf.length - pos);
      System.arraycopy(src, off, buf, pos, n);
      pos += n;
      off += n;
      len -= n;
      if (pos == buf.length) send(false);
    }
  }

  /** Copies {@code in} to the end, reading straight into the chunk arrays. */
  public void writeAll(InputStream in) throws IOException {
    ensureOpen();
    while (true) {
      if (buf == null) buf = new byte[CHUNK];
      int n = in.read(buf, pos, buf.length - pos);
      if (n < 0) return;
      count(n);
      pos += n;
      if (pos == buf.length) send(false);
    }
  }

  /** Sends what is buffered now; the first flush also sends the head, so a client sees it early. */
  @Override
  public void flush() throws IOException {
    ensureOpen();
    if (pos > 0 || !headSent) send(false);
  }

  /** Runs {@code then} once the client's connection has gone: see {@link ChunkSink#whenClosed}. */
  public void whenClosed(Runnable then) {
    sink.whenClosed(then);
  }

  /** Ends the response. */
  @Override
  public void close() throws IOException {
    if (closed) return;
    if (declaredLength >= 0 && total != declaredLength) {
      IOException e = new IOException("the response body ended after " + total
          + " bytes, short of its Content-Length of " + declaredLength);
      abort(e);
      throw e;
    }
    closed = true;
    send(true);
  }

  private void count(long n) throws IOException {
    total += n;
    if (declaredLength >= 0 && total > declaredLength) {
      IOException e = new IOException("the response body is longer than its Content-Length of " + declaredLength);
      abort(e);
      throw e;
    }
  }

  /**
   * The body's source failed: give the client a 500 if nothing was sent yet, or
   * cut the connection if something was. The stream is closed after this.
   */
  public void abort(Throwable cause) {
    if (closed) return;
    closed = true;
    buf = null;
    sink.abort(this, cause);
  }

  /** True when the failure is the connection's, not the body source's: the client went away. */
  public boolean isConnectionFailure(Throwable t) {
    return t != null && t == failure;
  }

  /**
   * Called by the sink when a chunk of {@code length} bytes left, or failed to.
   * When that lets the waiting writer go on, the sink is asked to
   * {@link ChunkSink#resume resume} it.
   */
  public void written(int length, Throwable cause) {
    boolean resume;
    lock.lock();
    try {
      inFlight -= length;
      if (cause != null && failure == null) {
        failure = cause instanceof IOException io
            ? io
            : new IOException("the connection failed while sending the response: " + cause.getMessage(), cause);
      }
      resume = waiting && (inFlight <= LOW_WATER || failure != null);
      if (resume) waiting = false;
    } finally {
      lock.unlock();
    }
    if (resume) sink.resume(this);
  }

  /** Wakes the writer waiting for its chunks to drain; the sink calls it after {@link ChunkSink#resume}. */
  public void wakeWriter() {
    lock.lock();
    try {
      drained.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void ensureOpen() throws IOException {
    if (closed) throw new IOException("the response stream is closed");
    IOException f = failure;
    if (f != null) throw f;
  }

  private void send(boolean last) throws IOException {
    int length = pos;
    pos = 0;
    ByteBuf data = null;
    if (length >= DIRECT_MIN) {
      data = alloc.directBuffer(length, length);
      data.writeBytes(buf, 0, length);
    } else if (length > 0) {
      data = Unpooled.wrappedBuffer(Arrays.copyOf(buf, length));
    }
    if (last) buf = null;
    boolean first = !headSent;
    headSent = true;
    boolean request;
    lock.lock();
    try {
      if (failure != null) {
        if (data != null) data.release();
        throw failure;
      }
      inFlight += length;
      if (data != null) pending.add(data);
      pendingLength += length;
      pendingFirst |= first;
      pendingLast |= last;
      request = !drainRequested;
      drainRequested = true;
    } finally {
      lock.unlock();
    }
    if (request) sink.drain(this);
    if (!last) awaitCapacity();
  }

  /**
   * What the sink takes on the event loop: the chunks handed over since it last
   * took, in order (none when a flush had nothing to send), their total length,
   * whether the response head must go out first, and whether the response ends
   * with them.
   */
  public record Chunks(ByteBuf[] data, int length, boolean first, boolean last) {}

  private static final ByteBuf[] NO_DATA = new ByteBuf[0];

  /** Takes the chunks handed over so far; the sink calls it on the event loop after {@code drain}. */
  public Chunks take() {
    lock.lock();
    try {
      ByteBuf[] data = pending.isEmpty() ? NO_DATA : pending.toArray(NO_DATA);
      Chunks chunks = new Chunks(data, pendingLength, pendingFirst, pendingLast);
      pending.clear();
      pendingLength = 0;
      pendingFirst = false;
      pendingLast = false;
      drainRequested = false;
      return chunks;
    } finally {
      lock.unlock();
    }
  }

  private void awaitCapacity() throws IOException {
    lock.lock();
    try {
      while (inFlight > HIGH_WATER && failure == null) {
        waiting = true;
        drained.await();
      }
      if (failure != null) throw failure;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while the client was slow to read");
    } finally {
      lock.unlock();
    }
  }
}
