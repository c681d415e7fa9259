package onager.kernel.limits;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;
import org.junit.jupiter.api.Test;

/** Each refusal is followed by a full collection, one at a time, none skipped. */
final class HeapPressureTest {
  @Test
  void aRefusalRightAfterAnothersCollectionGetsOneToo() throws Exception {
    AtomicInteger explicit = new AtomicInteger();
    NotificationListener listener = (n, handback) -> {
      if (GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())
          && "System.gc()".equals(GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData()).getGcCause())) {
        explicit.incrementAndGet();
      }
    };
    List<NotificationEmitter> emitters = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      if (gc instanceof NotificationEmitter e) {
        e.addNotificationListener(listener, null, null);
        emitters.add(e);
      }
    }
    try {
      HeapPressure.requestCollection();
      assertTrue(await(explicit, 1), "the first refusal's collection");
      // Within the interval of the first: it waits for the interval's end rather than being dropped.
      HeapPressure.requestCollection();
      assertTrue(await(explicit, 2), "the second refusal's collection, after the first's");
      // Three at once share one.
      HeapPressure.requestCollection();
      HeapPressure.requestCollection();
      HeapPressure.requestCollection();
      assertTrue(await(explicit, 3), "the next refusals' collection");
      Thread.sleep(1500);
      assertEquals(3, explicit.get(), "refusals while a collection waits share it");
    } finally {
      for (NotificationEmitter e : emitters) e.removeNotificationListener(listener);
    }
  }

  // Collections' notifications come on the JVM's own thread, soon after they end.
  private static boolean await(AtomicInteger count, int atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + 10_000_000_000L;
    while (count.get() < atLeast) {
      if (System.nanoTime() > deadline) return false;
      Thread.sleep(10);
    }
    return true;
  }
}
