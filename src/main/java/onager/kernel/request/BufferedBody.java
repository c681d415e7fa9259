package onager.kernel.request;

import io.vertx.core.buffer.Buffer;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A request body received in full before the handler runs, read without copying
 * the buffers it arrived in. Event-loop handlers get this kind of body, because a
 * read that waited for the network would block the loop that has to deliver it.
 */
public final class BufferedBody extends InputStream {
  private final List<Buffer> buffers = new ArrayList<>(4);
  private long size;
  private long consumed;
  private int index;
  private int pos;

  /** Adds a received buffer; called on the event loop before any read. */
  public void add(Buffer buffer) {
    buffers.add(buffer);
    size += buffer.length();
  }

  /** Lets go of what was received: the body was refused and will not be read. */
  public void discard() {
    buffers.clear();
    index = 0;
    pos = 0;
  }

  /** The number of bytes received so far. */
  public long size() {
    return size;
  }

  @Override
  public int read() {
    while (index < buffers.size()) {
      Buffer b = buffers.get(index);
      if (pos < b.length()) {
        consumed++;
        return b.getByte(pos++) & 0xff;
      }
      index++;
      pos = 0;
    }
    return -1;
  }

  @Override
  public int read(byte[] dst, int off, int len) {
    java.util.Objects.checkFromIndexSize(off, len, dst.length);
    if (len == 0) return 0;
    int copied = 0;
    while (copied < len && index < buffers.size()) {
      Buffer b = buffers.get(index);
      int n = Math.min(len - copied, b.length() - pos);
      if (n > 0) {
        b.getBytes(pos, pos + n, dst, off + copied);
        pos += n;
        copied += n;
      }
      if (pos == b.length()) {
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
