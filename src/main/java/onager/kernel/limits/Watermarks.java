package onager.kernel.limits;

/**
 * How many body bytes one exchange may hold in memory before the side producing
 * them waits: request bytes received but not yet read by a blocking handler, or
 * response bytes written by the handler but not yet on the wire.
 *
 * <p>{@link #HIGH} is a 64th of the heap, from 64 KiB to 1 MiB. Each stop and
 * restart at the mark costs system calls and thread switches, so the more a heap
 * can hold per connection the fewer of them a large body needs, while 16
 * connections held at the mark still fill no more than a quarter of the heap.
 * Work resumes once the bytes held fall to {@link #LOW}.
 *
 * <p>Bodies held in the pool's direct memory (a request body read from the
 * decoder's own buffers, a streamed response's chunks) stop at {@link #DIRECT_HIGH}
 * instead, 256 KiB at most: 16 connections holding up to 1 MiB each empty and
 * refill whole 4 MiB pool chunks, which the pool frees and maps again, and bytes
 * made that far ahead of the socket are out of the cache when the kernel copies
 * them.
 */
public final class Watermarks {
  private Watermarks() {}

  public static final int HIGH =
      (int) Math.min(1 << 20, Math.max(64 << 10, Runtime.getRuntime().maxMemory() / 64));
  public static final int LOW = HIGH / 4;

  public static final int DIRECT_HIGH = Math.min(HIGH, 256 << 10);
  public static final int DIRECT_LOW = DIRECT_HIGH / 4;
}
