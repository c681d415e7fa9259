package onager.kernel.limits;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;

/**
 * How much of the heap the live objects may hold, as a percent of its maximum:
 * what decides whether the next allocation of any thread fails.
 *
 * <p>A handler that reads a huge request body into memory fills the heap for
 * every thread, and an {@link OutOfMemoryError} on an event loop ends that
 * event loop (Netty 4.2 rethrows errors out of its I/O loop). Request bodies
 * are read through the kernel, so the kernel can make the reader let go first:
 * past the server's {@code :low-memory-percent}, reading a body fails (see
 * {@code LowMemoryException}).
 *
 * <p>The estimate is the heap in use after the last collection plus every
 * request-body byte handed to a reader since ({@link #taken}): a reader may keep
 * all of them. The collection alone is not enough. Collections come when the
 * young generation fills, a third of a small heap, and a reader that copies the
 * body straight from the socket's buffers makes little other garbage, so
 * between two collections it can take more than the heap has left; and their
 * figures arrive on the JVM's notification thread, late on a loaded machine.
 *
 * <p>Only when that estimate is over the limit does anything cost more than two
 * reads: the heap in use now (garbage included) is an upper bound on the live
 * objects, and when it is over too, a full collection on the calling thread
 * settles it (at most one each {@link #COLLECTION_INTERVAL_NANOS}; in between,
 * the estimate stands). A reader that keeps little therefore goes on even
 * while the heap has little room, and a reader that keeps everything is
 * stopped before the heap is full.
 */
public final class HeapPressure {
  private HeapPressure() {}

  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
  private static final long MAX = Runtime.getRuntime().maxMemory();
  private static final long COLLECTION_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
  private static final AtomicLong lastCollection = new AtomicLong(System.nanoTime() - COLLECTION_INTERVAL_NANOS);
  private static final AtomicLong takenSinceGc = new AtomicLong();

  private static volatile long usedAfterGc;

  static {
    Set<String> heapPools = ManagementFactory.getMemoryPoolMXBeans().stream()
        .filter(p -> p.getType() == MemoryType.HEAP)
        .map(MemoryPoolMXBean::getName)
        .collect(Collectors.toUnmodifiableSet());
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter emitter) {
        emitter.addNotificationListener((n, handback) -> onCollection(n, heapPools), null, null);
      }
    }
  }

  /** Counts {@code bytes} of a request body handed to a handler, which may keep them. */
  public static void taken(long bytes) {
    takenSinceGc.addAndGet(bytes);
  }

  /** The estimated percent of the heap's maximum that live objects hold (see the class comment). */
  public static int percent() {
    return (int) Math.min(100, (usedAfterGc + takenSinceGc.get()) * 100 / MAX);
  }

  /** True when the live objects may hold more than {@code limitPercent} (0: no limit) of the heap. */
  public static boolean over(int limitPercent) {
    if (limitPercent == 0) return false;
    long limit = MAX / 100 * limitPercent;
    if (usedAfterGc + takenSinceGc.get() <= limit) return false;
    // The heap in use now bounds the live objects from above: at or under the limit, it is the new base.
    long used = MEMORY.getHeapMemoryUsage().getUsed();
    if (used > limit) {
      if (!claimCollection()) return true;
      System.gc();
      used = MEMORY.getHeapMemoryUsage().getUsed();
    }
    usedAfterGc = used;
    takenSinceGc.set(0);
    return used > limit;
  }

  /**
   * Asks for a full collection on a thread of its own, unless one ran in the
   * last {@link #COLLECTION_INTERVAL_NANOS}: called once a reader that held
   * memory was refused, so that the requests after it are not judged by its
   * garbage.
   */
  public static void requestCollection() {
    if (claimCollection()) Thread.ofPlatform().daemon().name("onager-heap-pressure").start(System::gc);
  }

  private static boolean claimCollection() {
    long last = lastCollection.get();
    long now = System.nanoTime();
    return now - last >= COLLECTION_INTERVAL_NANOS && lastCollection.compareAndSet(last, now);
  }

  private static void onCollection(Notification n, Set<String> heapPools) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) return;
    var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(pool.getKey())) used += pool.getValue().getUsed();
    }
    usedAfterGc = used;
    takenSinceGc.set(0);
  }
}
