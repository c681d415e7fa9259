package onager.kernel.response;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import onager.kernel.http.Watermarks;

/**
 * The OutputStream a streamed response body is written to, from a thread that may
 * block (a virtual thread or a worker, never the event loop).
 *
 * <p>Bytes collect in a {@link #CHUNK}-byte array that is handed, not copied, to
 * the event loop when full or on {@code flush}. Chunks handed over while the
 * loop has not yet taken the previous ones join them: a producer faster than the
 * loop costs one event-loop task (and one wake-up of the loop) per batch, not
 * per chunk. (One write per batch would be cheaper still, but a composite of
 * heap buffers is copied whole once more on its way to the socket.)
 *
 * <p>Once more than {@link #HIGH_WATER} bytes are handed over and not yet written
 * to the socket, the writer waits until they drain below {@link #LOW_WATER}
 * (see {@link Watermarks}): a slow client slows the body's source instead of
 * filling the heap. After the connection fails, every write throws.
 *
 * <p>When the handler declared a Content-Length, the body must be exactly that
 * long: a byte more would be read by the client as the start of the next
 * response, a byte less would leave it waiting. Either fails the stream.
 */
public final class ResponseStream extends OutputStream {
  // 64 KiB: half the writes, tasks and completions of 32 KiB, measured about 10% less
  // CPU for a 1 MiB body; what one socket read or write moves at most anyway.
  static final int CHUNK = 64 * 1024;
  static final long HIGH_WATER = Watermarks.HIGH;
  static final long LOW_WATER = Watermarks.LOW;

  private final ChunkSink sink;
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

  // The writer's own state.
  private byte[] buf;
  private int pos;
  private long total;
  private boolean headSent;
  private boolean closed;

  /** {@code declaredLength}: the handler's Content-Length, or -1 when it declared none. */
  public ResponseStream(ChunkSink sink, long declaredLength) {
    this.sink = sink;
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

  /** Called by the sink when a chunk of {@code length} bytes left, or failed to. */
  public void written(int length, Throwable cause) {
    lock.lock();
    try {
      inFlight -= length;
      if (cause != null && failure == null) {
        failure = cause instanceof IOException io
            ? io
            : new IOException("the connection failed while sending the response: " + cause.getMessage(), cause);
      }
      if (inFlight <= LOW_WATER || failure != null) drained.signalAll();
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
    byte[] data = buf;
    int length = pos;
    buf = null;
    pos = 0;
    boolean first = !headSent;
    headSent = true;
    boolean request;
    lock.lock();
    try {
      if (failure != null) throw failure;
      inFlight += length;
      if (length > 0) pending.add(Unpooled.wrappedBuffer(data, 0, length));
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
      while (inFlight > HIGH_WATER && failure == null) drained.await();
      if (failure != null) throw failure;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new java.io.InterruptedIOException("interrupted while the client was slow to read");
    } finally {
      lock.unlock();
    }
  }
}
