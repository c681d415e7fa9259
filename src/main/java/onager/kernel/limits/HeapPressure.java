package onager.kernel.limits;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryMXBean;
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
 * How full the heap is after the last garbage collection, as a percent of its
 * maximum: the memory the live objects hold, which is what decides whether the
 * next allocation of any thread fails.
 *
 * <p>A handler that reads a huge request body into memory fills the heap for
 * every thread, and an {@link OutOfMemoryError} on an event loop ends that
 * event loop (Netty 4.2 rethrows errors out of its I/O loop). Request bodies
 * are read through the kernel, so the kernel can make the reader let go first:
 * past the server's {@code :low-memory-percent}, reading a body fails (see
 * {@code LowMemoryException}). Updated by a listener on every collector; a read
 * of the value is a volatile read.
 *
 * <p>Once the reader has let go, its memory is garbage but still counted until
 * the next collection, which a server handling small requests may not need for
 * a long time; so a refusal asks for one ({@link #requestCollection}), and a
 * value over the limit is checked against the heap as it is now before it
 * refuses anything.
 */
public final class HeapPressure {
  private HeapPressure() {}

  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
  private static final long MAX = Runtime.getRuntime().maxMemory();
  private static final long COLLECTION_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final AtomicLong lastCollection = new AtomicLong(System.nanoTime() - COLLECTION_INTERVAL_NANOS);

  private static volatile int percent;

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

  /** The percent of the heap's maximum in use after the last collection (0 before the first). */
  public static int percentAfterGc() {
    return percent;
  }

  /**
   * True when {@code limitPercent} (0: no limit) is exceeded after the last
   * collection and the heap in use now (garbage included) exceeds it too.
   */
  public static boolean over(int limitPercent) {
    if (limitPercent == 0 || percent <= limitPercent) return false;
    int now = (int) (MEMORY.getHeapMemoryUsage().getUsed() * 100 / MAX);
    if (now <= limitPercent) {
      percent = now;
      return false;
    }
    return true;
  }

  /**
   * Asks for a full collection on a thread of its own, at most one each half
   * second: called once a reader that held memory was refused, so that the
   * requests after it are not judged by its garbage.
   */
  public static void requestCollection() {
    long last = lastCollection.get();
    long now = System.nanoTime();
    if (now - last < COLLECTION_INTERVAL_NANOS || !lastCollection.compareAndSet(last, now)) return;
    Thread.ofPlatform().daemon().name("onager-heap-pressure").start(System::gc);
  }

  private static void onCollection(Notification n, Set<String> heapPools) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) return;
    var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
    long used = 0;
    for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(pool.getKey())) used += pool.getValue().getUsed();
    }
    percent = (int) Math.min(100, used * 100 / MAX);
  }
}
