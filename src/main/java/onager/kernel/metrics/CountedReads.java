package onager.kernel.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelConfig;
import io.netty.channel.RecvByteBufAllocator;
import io.netty.util.UncheckedBooleanSupplier;

/**
 * Counts the bytes a connection reads from its socket, as the transport reads
 * them: the channel's receive allocator, wrapped, hears the size of every read.
 * The count needs no handler in the pipeline, so the path of every read stays
 * the one it is without metrics; and it sees the bytes on the wire, TLS records
 * included. One per connection, set before its first read, counting into its
 * event loop's counts.
 */
final class CountedReads implements RecvByteBufAllocator {
  private final RecvByteBufAllocator allocator;
  private final LoopMeters counts;

  CountedReads(RecvByteBufAllocator allocator, LoopMeters counts) {
    this.allocator = allocator;
    this.counts = counts;
  }

  @Override
  public Handle newHandle() {
    // The native transports read only through extended handles, and Netty's own allocators make them.
    return new Counting((ExtendedHandle) allocator.newHandle(), counts);
  }

  // Not a DelegatingHandle: the transport's own handle wraps this one in a DelegatingHandle, and
  // that class's calls to its delegate would then see two kinds of handle, where the JIT inlines
  // one. A read makes about ten of these calls.
  private static final class Counting implements ExtendedHandle {
    private final ExtendedHandle handle;
    private final LoopMeters counts;

    Counting(ExtendedHandle handle, LoopMeters counts) {
      this.handle = handle;
      this.counts = counts;
    }

    @Override
    public void lastBytesRead(int bytes) {
      // Negative at the end of the stream, zero when the socket had nothing.
      if (bytes > 0) counts.received(bytes);
      handle.lastBytesRead(bytes);
    }

    @Override
    public int lastBytesRead() {
      return handle.lastBytesRead();
    }

    @Override
    public ByteBuf allocate(ByteBufAllocator alloc) {
      return handle.allocate(alloc);
    }

    @Override
    public int guess() {
      return handle.guess();
    }

    @Override
    public void reset(ChannelConfig config) {
      handle.reset(config);
    }

    @Override
    public void incMessagesRead(int numMessages) {
      handle.incMessagesRead(numMessages);
    }

    @Override
    public void attemptedBytesRead(int bytes) {
      handle.attemptedBytesRead(bytes);
    }

    @Override
    public int attemptedBytesRead() {
      return handle.attemptedBytesRead();
    }

    @Override
    public boolean continueReading() {
      return handle.continueReading();
    }

    @Override
    public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
      return handle.continueReading(maybeMoreDataSupplier);
    }

    @Override
    public void readComplete() {
      handle.readComplete();
    }
  }
}
