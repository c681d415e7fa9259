package onager.kernel.client;

import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.util.Arrays;

/**
 * A response body read whole, up to a limit: the bytes go once into one array,
 * sized from the Content-Length when the server gives one (never past the
 * limit), doubled as it fills otherwise. A body over the JVM's largest array
 * is over every limit: a larger one is read as a stream.
 */
final class BodyCollector {
  private static final int FIRST = 8192;
  // The largest array the JVM makes.
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  private final long limit;
  private byte[] bytes;
  private int length;

  BodyCollector(long contentLength, long limit) {
    this.limit = Math.min(limit, MAX_ARRAY);
    this.bytes = new byte[(int) (contentLength >= 0 ? Math.min(contentLength, this.limit) : Math.min(FIRST, this.limit))];
  }

  /** Adds {@code piece}; false, adding nothing, when the body would go past the limit. */
  boolean add(Buffer piece) {
    int n = piece.length();
    if (length + (long) n > limit) return false;
    if (length + n > bytes.length) {
      long grown = Math.max((long) bytes.length * 2, (long) length + n);
      bytes = Arrays.copyOf(bytes, (int) Math.min(grown, limit));
    }
    piece.getBytes(0, n, bytes, length);
    length += n;
    return true;
  }

  int length() {
    return length;
  }

  byte[] toBytes() {
    return length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
  }

  ByteBuffer toByteBuffer() {
    return ByteBuffer.wrap(bytes, 0, length);
  }

  String toString(Charset charset) {
    return new String(bytes, 0, length, charset);
  }

  InputStream toStream() {
    return new ByteArrayInputStream(bytes, 0, length);
  }
}
