package onager.kernel.metrics;

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

  private static final class Counting extends DelegatingHandle implements ExtendedHandle {
    private final LoopMeters counts;

    Counting(ExtendedHandle handle, LoopMeters counts) {
      super(handle);
      this.counts = counts;
    }

    @Override
    public void lastBytesRead(int bytes) {
      // Negative at the end of the stream, zero when the socket had nothing.
      if (bytes > 0) counts.received(bytes);
      super.lastBytesRead(bytes);
    }

    @Override
    public boolean continueReading(UncheckedBooleanSupplier maybeMoreDataSupplier) {
      return ((ExtendedHandle) delegate()).continueReading(maybeMoreDataSupplier);
    }
  }
}
