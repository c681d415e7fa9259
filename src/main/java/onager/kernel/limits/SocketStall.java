package onager.kernel.limits;

import io.netty.channel.Channel;
import io.netty.channel.ChannelOutboundBuffer;

/**
 * Tells, tick by tick, a connection whose client takes none of the bytes
 * waiting for it: its socket not writable and its outbound buffer unchanged
 * (the same entry, the same progress in it, the same bytes pending). Also the
 * tick the connection clocks share. On the event loop.
 */
public final class SocketStall {
  private static final long MIN_TICK_MS = 5;
  private static final long MAX_TICK_MS = 2_500;

  private long quietSince;
  private Object lastEntry;
  private long lastProgress;
  private long lastPending;

  /**
   * A connection clock's tick: a quarter of the shortest of {@code timeoutsMs}
   * that is on (over 0), within 5 ms and 2.5 s; 0 when none is on.
   */
  public static long tickMs(long... timeoutsMs) {
    long shortest = Long.MAX_VALUE;
    for (long ms : timeoutsMs) {
      if (ms > 0) shortest = Math.min(shortest, ms);
    }
    return shortest == Long.MAX_VALUE ? 0 : Math.max(MIN_TICK_MS, Math.min(MAX_TICK_MS, shortest / 4));
  }

  /** Starts counting from {@code now} (System.nanoTime). */
  public void reset(long now) {
    quietSince = now;
  }

  /** True when {@code channel}'s client has taken none of its bytes for {@code timeoutNanos}. */
  public boolean stalled(Channel channel, long now, long timeoutNanos) {
    if (channel.isWritable() || outboundMoved(channel)) {
      quietSince = now;
      return false;
    }
    return now - quietSince >= timeoutNanos;
  }

  /** True when bytes waiting to go out on {@code channel} changed since the last tick: some left, or more came. */
  public boolean outboundMoved(Channel channel) {
    ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
    if (out == null) return false;
    Object entry = out.current();
    long progress = out.currentProgress();
    long pending = out.totalPendingWriteBytes();
    if (entry == lastEntry && progress == lastProgress && pending == lastPending) return false;
    lastEntry = entry;
    lastProgress = progress;
    lastPending = pending;
    return true;
  }
}
