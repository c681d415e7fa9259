package onager.kernel.response;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Objects;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The OutputStream a streamed response body is written to, from a thread that may
 * block (a virtual thread or a worker, never the event loop).
 *
 * <p>Bytes collect in a {@link #CHUNK}-byte array that is handed, not copied, to
 * the event loop when full or on {@code flush}. Once more than {@link #HIGH_WATER}
 * bytes are handed over and not yet written to the socket, the writer waits until
 * they drain below {@link #LOW_WATER}: a slow client slows the body's source
 * instead of filling the heap. After the connection fails, every write throws.
 *
 * <p>When the handler declared a Content-Length, the body must be exactly that
 * long: a byte more would be read by the client as the start of the next
 * response, a byte less would leave it waiting. Either fails the stream.
 */
public final class ResponseStream extends OutputStream {
  static final int CHUNK = 32 * 1024;
  static final long HIGH_WATER = 256 * 1024;
  static final long LOW_WATER = 64 * 1024;

  private final ChunkSink sink;
  private final long declaredLength;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition drained = lock.newCondition();

  // Guarded by lock; failure is also read without it, so a write costs no lock.
  private long inFlight;
  private volatile IOException failure;

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
    lock.lock();
    try {
      if (failure != null) throw failure;
      inFlight += length;
    } finally {
      lock.unlock();
    }
    sink.send(this, data, length, first, last);
    if (!last) awaitCapacity();
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
