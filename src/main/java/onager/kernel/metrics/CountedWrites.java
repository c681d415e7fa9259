package onager.kernel.metrics;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.FileRegion;
import io.netty.channel.MessageSizeEstimator;

/**
 * Counts the bytes a connection writes to its socket: the channel sizes every
 * message it queues for the socket with its message size estimator, on its
 * event loop, after the handlers are done with it (TLS records, files sent as
 * they are). The count needs no handler in the pipeline. One per connection,
 * set before its first write, counting into its event loop's counts.
 *
 * <p>A write begun off the event loop is sized once more where it begins, for
 * the channel's pending bytes; that call is not counted, the one on the loop is.
 */
final class CountedWrites implements MessageSizeEstimator, MessageSizeEstimator.Handle {
  private final MessageSizeEstimator.Handle sizes;
  private final LoopMeters counts;

  CountedWrites(MessageSizeEstimator estimator, LoopMeters counts) {
    this.sizes = estimator.newHandle();
    this.counts = counts;
  }

  @Override
  public Handle newHandle() {
    return this;
  }

  @Override
  public int size(Object msg) {
    if (counts.loop.inEventLoop()) {
      long n = msg instanceof ByteBuf b ? b.readableBytes()
          : msg instanceof FileRegion f ? f.count() - f.transferred()
          : msg instanceof ByteBufHolder h ? h.content().readableBytes()
          : 0;
      if (n > 0) counts.sent(n);
    }
    return sizes.size(msg);
  }
}
