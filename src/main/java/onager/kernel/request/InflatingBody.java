package onager.kernel.request;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Objects;
import java.util.zip.GZIPInputStream;
import java.util.zip.InflaterInputStream;
import java.util.zip.ZipException;
import onager.kernel.limits.HeapPressure;

/**
 * A request body sent with Content-Encoding gzip or deflate, decompressed as the
 * handler reads it, on the handler's thread and into the handler's buffer: a
 * small body that would inflate to gigabytes (a "zip bomb") costs no more
 * memory than any other, and {@code :max-body} counts the decompressed bytes,
 * so reading past it throws {@link BodyTooLargeException} (413); the heap
 * counts them too ({@link LowMemoryException}, 503). A body that is
 * not valid gzip or deflate throws {@link ClientAbortException} (400).
 */
public final class InflatingBody extends InputStream {
  /** The content codings this class decodes. */
  public enum Coding { GZIP, DEFLATE }

  private final InputStream raw;
  private final Coding coding;
  private final long maxBody;
  private final int lowMemoryPercent;
  private final boolean mayWait;
  private InputStream inflater;
  private long produced;

  /** @param mayWait the reader's thread may block (see {@link LowMemoryException#ifOver}) */
  public InflatingBody(InputStream raw, Coding coding, long maxBody, int lowMemoryPercent, boolean mayWait) {
    this.raw = raw;
    this.coding = coding;
    this.maxBody = maxBody;
    this.lowMemoryPercent = lowMemoryPercent;
    this.mayWait = mayWait;
  }

  /**
   * The coding a Content-Encoding value names, or null when it is absent or not
   * exactly one coding this class decodes (the body then reaches the handler as sent).
   */
  public static Coding codingOf(String contentEncoding) {
    if (contentEncoding == null) return null;
    String c = contentEncoding.strip();
    if (c.equalsIgnoreCase("gzip") || c.equalsIgnoreCase("x-gzip")) return Coding.GZIP;
    if (c.equalsIgnoreCase("deflate")) return Coding.DEFLATE;
    return null;
  }

  // Opened on first read: GZIPInputStream reads the gzip header as it is made.
  private InputStream inflater() throws IOException {
    InputStream in = inflater;
    if (in == null) {
      try {
        in = coding == Coding.GZIP ? new GZIPInputStream(raw, 8192) : new InflaterInputStream(raw);
      } catch (ZipException | EOFException e) {
        throw malformed(e);
      }
      inflater = in;
    }
    return in;
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    int n = read(one, 0, 1);
    return n < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] dst, int off, int len) throws IOException {
    Objects.checkFromIndexSize(off, len, dst.length);
    if (len == 0) return 0;
    // One compressed read can inflate to megabytes, so the heap is checked here too, not only by raw.
    LowMemoryException low = LowMemoryException.ifOver(lowMemoryPercent, mayWait);
    if (low != null) throw low;
    int n;
    try {
      // One byte past the limit is enough to know the body is over it.
      n = inflater().read(dst, off, (int) Math.min(len, maxBody - produced + 1));
    } catch (ZipException | EOFException e) {
      throw malformed(e);
    }
    if (n > 0) {
      produced += n;
      HeapPressure.taken(n);
      if (produced > maxBody) throw new BodyTooLargeException(maxBody);
    }
    return n;
  }

  private ClientAbortException malformed(IOException e) {
    return new ClientAbortException(400, "the request body is not valid " + coding.name().toLowerCase() + ": "
        + e.getMessage(), e, false);
  }

  @Override
  public void close() throws IOException {
    if (inflater != null) {
      inflater.close();
    } else {
      raw.close();
    }
  }
}
