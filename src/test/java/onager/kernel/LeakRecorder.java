package onager.kernel;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.util.ResourceLeakDetector;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Netty's leak detector for the test JVM (surefire sets
 * {@code -Dio.netty.customResourceLeakDetector} to this class and the level to
 * PARANOID): it logs each leak as Netty's own does and also keeps it, so that
 * {@link #collect} can fail the tests that leaked.
 */
public final class LeakRecorder<T> extends ResourceLeakDetector<T> {
  private static final ConcurrentLinkedQueue<String> LEAKS = new ConcurrentLinkedQueue<>();

  public LeakRecorder(Class<?> resourceType, int samplingInterval, long maxActive) {
    super(resourceType, samplingInterval, maxActive);
  }

  public LeakRecorder(Class<?> resourceType, int samplingInterval) {
    super(resourceType, samplingInterval);
  }

  @Override
  protected boolean needReport() {
    return true;
  }

  @Override
  protected void reportTracedLeak(String resourceType, String records) {
    LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected." + records);
    super.reportTracedLeak(resourceType, records);
  }

  @Override
  protected void reportUntracedLeak(String resourceType) {
    LEAKS.add("LEAK: " + resourceType + ".release() was not called before it was garbage-collected.");
    super.reportUntracedLeak(resourceType);
  }

  /**
   * Collects garbage, makes Netty look at what it found (it reports leaks when
   * the next buffer is tracked), and returns and forgets the leaks seen since
   * the last call.
   */
  public static List<String> collect() {
    for (int round = 0; round < 3; round++) {
      System.gc();
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      for (int i = 0; i < 4; i++) {
        ByteBuf a = PooledByteBufAllocator.DEFAULT.buffer(8);
        ByteBuf b = UnpooledByteBufAllocator.DEFAULT.directBuffer(8);
        a.release();
        b.release();
      }
    }
    List<String> leaks = new ArrayList<>();
    for (String s; (s = LEAKS.poll()) != null; ) leaks.add(s);
    return leaks;
  }

  /** True when the detector in force is this one, at PARANOID. */
  public static boolean active() {
    return getLevel() == Level.PARANOID
        && "onager.kernel.LeakRecorder".equals(System.getProperty("io.netty.customResourceLeakDetector"));
  }
}
