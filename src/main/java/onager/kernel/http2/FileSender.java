package onager.kernel.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.DefaultFileRegion;
import io.netty.buffer.Unpooled;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import onager.kernel.log.Logs;

/**
 * A file body over HTTP/2: sendfile cannot frame it, so it is read into pooled
 * buffers a {@link #PIECE} at a time, with at most {@link #AHEAD} pieces handed
 * to the encoder and not yet written; a client whose window is shut holds back
 * the reading, not the heap. On the event loop.
 */
final class FileSender implements ChannelFutureListener {
  static final int PIECE = 64 * 1024;
  static final int AHEAD = 2;

  private final H2Connection connection;
  private final H2Stream stream;
  private final DefaultFileRegion region;
  private long position;
  private int inFlight;
  private boolean released;

  FileSender(H2Connection connection, H2Stream stream, DefaultFileRegion region) {
    this.connection = connection;
    this.stream = stream;
    this.region = region;
  }

  void start() {
    if (region.count() == 0) {
      release();
      stream.lastFilePiece(Unpooled.EMPTY_BUFFER);
      return;
    }
    sendMore();
  }

  private void sendMore() {
    long count = region.count();
    while (!released && inFlight < AHEAD && position < count) {
      int n = (int) Math.min(PIECE, count - position);
      ByteBuf piece = connection.channel().alloc().directBuffer(n, n);
      try {
        long read = region.transferTo(new Into(piece), position);
        if (read <= 0) throw new IOException("the file ended " + (count - position) + " bytes early");
        position += read;
      } catch (IOException | RuntimeException e) {
        piece.release();
        Logs.SERVER.error("reading a response file failed", e);
        release();
        stream.abort(stream.exchange);
        return;
      }
      boolean last = position >= count;
      inFlight++;
      if (last) {
        release();
        stream.lastFilePiece(piece);
      } else {
        connection.writeData(stream.stream, piece, false, connection.channel().newPromise().addListener(this));
      }
    }
    connection.flushSoon();
  }

  @Override
  public void operationComplete(ChannelFuture f) {
    inFlight--;
    if (f.isSuccess()) {
      sendMore();
    } else {
      release();
    }
  }

  /** Lets go of the file: its stream closed, or it is all read. */
  void release() {
    if (released) return;
    released = true;
    region.release();
  }

  // Takes what the file gives into a buffer, up to its room.
  private record Into(ByteBuf target) implements WritableByteChannel {
    @Override
    public int write(ByteBuffer src) {
      int n = Math.min(src.remaining(), target.writableBytes());
      int limit = src.limit();
      src.limit(src.position() + n);
      target.writeBytes(src);
      src.limit(limit);
      return n;
    }

    @Override
    public boolean isOpen() {
      return true;
    }

    @Override
    public void close() {}
  }
}
