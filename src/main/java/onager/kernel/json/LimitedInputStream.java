package onager.kernel.json;

import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/** Passes at most {@code limit} bytes on; reading one more is a 413. */
final class LimitedInputStream extends FilterInputStream {
  private final long limit;
  private long count;

  LimitedInputStream(InputStream in, long limit) {
    super(in);
    this.limit = limit;
  }

  @Override
  public int read() throws IOException {
    int b = in.read();
    if (b >= 0) counted(1);
    return b;
  }

  @Override
  public int read(byte[] buf, int off, int len) throws IOException {
    // Ask for one byte past the limit at most, so that going over shows without reading far past it.
    long room = limit - count + 1;
    int n = in.read(buf, off, (int) Math.min(len, Math.max(1, room)));
    if (n > 0) counted(n);
    return n;
  }

  @Override
  public long skip(long n) throws IOException {
    long skipped = in.skip(Math.min(n, limit - count + 1));
    counted(skipped);
    return skipped;
  }

  private void counted(long n) {
    count += n;
    if (count > limit) throw tooLarge(limit);
  }

  static RejectedBody tooLarge(long limit) {
    return new RejectedBody(413, "The JSON body is larger than this endpoint takes (" + limit + " bytes).");
  }
}
