package onager.kernel.request;

import java.io.InputStream;

/**
 * The body of a request that has none. It holds no state, so one instance
 * serves every such request and closing it changes nothing.
 */
public final class EmptyBody extends InputStream {
  public static final EmptyBody INSTANCE = new EmptyBody();

  private EmptyBody() {}

  @Override
  public int read() {
    return -1;
  }

  @Override
  public int read(byte[] b, int off, int len) {
    java.util.Objects.checkFromIndexSize(off, len, b.length);
    return len == 0 ? 0 : -1;
  }

  @Override
  public int available() {
    return 0;
  }
}
