package onager.bench.probe;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Runs a server's main class and answers the harness on stdin: each line read
 * is answered on stdout with {@code #probe alloc=BYTES gc=COUNT gcms=MILLIS},
 * the heap bytes every thread has allocated since the JVM started (carrier
 * threads count what their virtual threads allocate) and the collections so
 * far; a line reading {@code live} first collects the garbage, and the answer
 * adds {@code live=BYTES}, the heap still in use. The harness reads it before
 * and after a measured run, so every server
 * is measured the same way and none carries measuring code of its own.
 *
 * <p>When stdin ends (the harness is gone) the JVM exits, so no server outlives
 * its benchmark. The management beans are loaded on the first question, not
 * at start, so start-up time and memory are the server's own.
 *
 * <p>Run: {@code java ... onager.bench.probe.Probe MAIN-CLASS ARGS...}
 */
public final class Probe {
  private Probe() {}

  public static void main(String[] args) throws Throwable {
    if (args.length == 0) throw new IllegalArgumentException("usage: Probe MAIN-CLASS ARGS...");
    Thread answering = new Thread(Probe::answer, "onager-bench-probe");
    answering.setDaemon(true);
    answering.start();
    MethodHandle main = MethodHandles.publicLookup().findStatic(
        Class.forName(args[0]), "main", MethodType.methodType(void.class, String[].class));
    main.invokeExact(Arrays.copyOfRange(args, 1, args.length));
  }

  private static void answer() {
    try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long count = 0;
        long ms = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
          count += Math.max(0, gc.getCollectionCount());
          ms += Math.max(0, gc.getCollectionTime());
        }
        String live = "";
        if (line.equals("live")) {
          // Twice: what the first collection's finalisation and reference processing let go of goes too.
          System.gc();
          System.gc();
          live = " live=" + ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        }
        System.out.println("#probe alloc=" + threads.getTotalThreadAllocatedBytes() + " gc=" + count + " gcms=" + ms
            + live);
        System.out.flush();
      }
    } catch (IOException e) {
      // stdin failed: treated as the harness going away
    }
    System.exit(0);
  }
}
