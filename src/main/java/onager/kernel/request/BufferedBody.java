package onager.kernel.request;

import io.netty.buffer.ByteBuf;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A request body received in full before the handler runs. Event-loop handlers
 * get this kind of body, because a read that waited for the network would block
 * the loop that has to deliver it. Its bytes are copied to the heap as they
 * arrive, so the body outlives the connection's buffers: an async handler may
 * read it after the connection has gone to another request.
 */
public final class BufferedBody extends InputStream {
  private final List<byte[]> chunks = new ArrayList<>(4);
  private long size;
  private long consumed;
  private int index;
  private int pos;

  /** Adds received bytes, releasing {@code data}; called on the event loop before any read. */
  public void add(ByteBuf data) {
    byte[] copy = new byte[data.readableBytes()];
    data.readBytes(copy);
    data.release();
    chunks.add(copy);
    size += copy.length;
  }

  /** Lets go of what was received: the body was refused and will not be read. */
  public void discard() {
    chunks.clear();
    index = 0;
    pos = 0;
  }

  /** The number of bytes received so far. */
  public long size() {
    return size;
  }

  @Override
  public int read() {
    while (index < chunks.size()) {
      byte[] b = chunks.get(index);
      if (pos < b.length) {
        consumed++;
        return b[pos++] & 0xff;
      }
      index++;
      pos = 0;
    }
    return -1;
  }

  @Override
  public int read(byte[] dst, int off, int len) {
    Objects.checkFromIndexSize(off, len, dst.length);
    if (len == 0) return 0;
    int copied = 0;
    while (copied < len && index < chunks.size()) {
      byte[] b = chunks.get(index);
      int n = Math.min(len - copied, b.length - pos);
      System.arraycopy(b, pos, dst, off + copied, n);
      pos += n;
      copied += n;
      if (pos == b.length) {
        index++;
        pos = 0;
      }
    }
    consumed += copied;
    return copied == 0 ? -1 : copied;
  }

  @Override
  public int available() {
    return (int) Math.min(Integer.MAX_VALUE, size - consumed);
  }
}
