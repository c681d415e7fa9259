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
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
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
 * request-body byte handed to a reader since ({@link #taken(long)}): a reader
 * may keep all of them. The collection alone is not enough. Collections come
 * when the young generation fills, a third of a small heap, and a reader that
 * copies the body straight from the socket's buffers makes little other
 * garbage, so between two collections it can take more than the heap has left;
 * and their figures arrive on the JVM's notification thread, late on a loaded
 * machine.
 *
 * <p>Only when that estimate is over the limit does anything cost more than two
 * reads. Then the heap in use now is a closer look, with what the young
 * generation gained since the last collection counted as no more than the body
 * bytes taken since (the rest of it is taken for garbage, as nearly all of it
 * is; what a collection left there is live). When that is over too, a full
 * collection on the calling thread settles it. Full collections are long on a
 * large heap, so they come at most one each 200 ms or ten times the last one's
 * length; in between, a reader that may block waits for the next (a streaming
 * reader that keeps nothing must not be refused for the garbage around it),
 * and the event loop, which may not, refuses. A reader that keeps little
 * therefore goes on even while the heap has little room, and a reader that
 * keeps everything is stopped before the heap is full.
 */
public final class HeapPressure {
  private HeapPressure() {}

  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();
  private static final long MAX = Runtime.getRuntime().maxMemory();
  // The young generation's pool where the collector has one ("Eden Space", "G1 Eden Space"...), else null.
  private static final MemoryPoolMXBean EDEN = ManagementFactory.getMemoryPoolMXBeans().stream()
      .filter(p -> p.getType() == MemoryType.HEAP && p.getName().contains("Eden"))
      .findFirst().orElse(null);
  private static final long MIN_SETTLE_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(200);
  private static final long COLLECTION_INTERVAL_NANOS = TimeUnit.MILLISECONDS.toNanos(500);
  private static final AtomicLong lastSettled = new AtomicLong(System.nanoTime() - MIN_SETTLE_INTERVAL_NANOS);
  private static volatile long settleIntervalNanos = MIN_SETTLE_INTERVAL_NANOS;
  private static final AtomicLong lastCollection = new AtomicLong(System.nanoTime() - COLLECTION_INTERVAL_NANOS);
  // A collection asked for that has not started yet.
  private static final AtomicBoolean collectionDue = new AtomicBoolean();
  // Every body byte ever taken: only ever grows, so no reset races with a reader adding to it.
  private static final AtomicLong taken = new AtomicLong();

  /**
   * The last bound: {@code used} bytes of live objects at most when {@link #taken}
   * was {@code takenThen}; the last collection came after it was {@code takenAtGc}
   * and left {@code young} bytes in the young generation, which count as live;
   * its figures arrived when it was {@code takenAtNotice}. A collection's figures
   * come late (a reader taking a gigabyte a second takes megabytes meanwhile), so
   * they are taken to be from when the figures before them arrived.
   */
  private record Base(long used, long takenThen, long takenAtGc, long young, long takenAtNotice) {}

  private static volatile Base base = new Base(0, 0, 0, 0, 0);

  // What judge finds: UNSETTLED when only a full collection could tell, and none is allowed yet.
  private static final int UNDER = 0;
  private static final int OVER = 1;
  private static final int UNSETTLED = 2;

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
    taken.addAndGet(bytes);
  }

  /** The estimated percent of the heap's maximum that live objects hold (see the class comment). */
  public static int percent() {
    Base b = base;
    return (int) Math.min(100, (b.used + taken.get() - b.takenThen) * 100 / MAX);
  }

  /**
   * True when the live objects may hold more than {@code limitPercent} (0: no
   * limit) of the heap; for the event loop, which may not wait: while the
   * estimate is unsettled and no collection is allowed yet, also true.
   */
  public static boolean over(int limitPercent) {
    return judge(limitPercent) != UNDER;
  }

  /**
   * {@link #over}, for a thread that may block: while the estimate is unsettled
   * it waits until a collection is allowed, rather than be refused.
   */
  public static boolean overWaiting(int limitPercent) throws InterruptedException {
    while (true) {
      int verdict = judge(limitPercent);
      if (verdict != UNSETTLED) return verdict == OVER;
      long left = lastSettled.get() + settleIntervalNanos - System.nanoTime();
      TimeUnit.NANOSECONDS.sleep(Math.max(left, TimeUnit.MILLISECONDS.toNanos(1)));
    }
  }

  private static int judge(int limitPercent) {
    if (limitPercent == 0) return UNDER;
    long limit = MAX / 100 * limitPercent;
    Base b = base;
    long now = taken.get();
    if (b.used + now - b.takenThen <= limit) return UNDER;
    long used = MEMORY.getHeapMemoryUsage().getUsed();
    if (EDEN != null) {
      long young = Math.max(0, EDEN.getUsage().getUsed() - b.young);
      used -= young - Math.min(young, now - b.takenAtGc);
    }
    if (used <= limit) {
      base = new Base(used, now, b.takenAtGc, b.young, b.takenAtNotice);
      return UNDER;
    }
    if (!claim(lastSettled, settleIntervalNanos)) return UNSETTLED;
    long start = System.nanoTime();
    System.gc();
    settleIntervalNanos = Math.max(MIN_SETTLE_INTERVAL_NANOS, 10 * (System.nanoTime() - start));
    used = MEMORY.getHeapMemoryUsage().getUsed();
    base = new Base(used, now, now, EDEN == null ? 0 : EDEN.getUsage().getUsed(), now);
    return used > limit ? OVER : UNDER;
  }

  /**
   * Has a full collection run on a thread of its own, so that the requests after
   * a reader that was refused are not judged by its garbage: called once the
   * reader has let go. It runs at once, or {@link #COLLECTION_INTERVAL_NANOS}
   * after the last one it ran; never skipped, since a refusal right after
   * another's collection leaves garbage that collection could not see. Refusals
   * while one waits to run share it.
   */
  public static void requestCollection() {
    if (!collectionDue.compareAndSet(false, true)) return;
    Thread.ofPlatform().daemon().name("onager-heap-pressure").start(() -> {
      long wait;
      while ((wait = lastCollection.get() + COLLECTION_INTERVAL_NANOS - System.nanoTime()) > 0) {
        LockSupport.parkNanos(wait);
      }
      lastCollection.set(System.nanoTime());
      // A refusal from here on may come after the collection has looked: it asks for the next.
      collectionDue.set(false);
      System.gc();
    });
  }

  private static boolean claim(AtomicLong lastTime, long interval) {
    long last = lastTime.get();
    long now = System.nanoTime();
    return now - last >= interval && lastTime.compareAndSet(last, now);
  }

  private static void onCollection(Notification n, Set<String> heapPools) {
    if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) return;
    var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
    long used = 0;
    long young = 0;
    for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
      if (heapPools.contains(pool.getKey())) used += pool.getValue().getUsed();
      if (EDEN != null && EDEN.getName().equals(pool.getKey())) young = pool.getValue().getUsed();
    }
    long before = base.takenAtNotice;
    base = new Base(used, before, before, young, taken.get());
  }
}
