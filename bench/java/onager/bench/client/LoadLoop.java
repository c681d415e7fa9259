package onager.bench.client;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How every client of the client benchmark is driven and measured, whatever
 * the client: the same closed loop of callers on virtual threads, the same
 * warm-up, clock and CPU reading, so that the figures differ by the client
 * alone. Prints one JSON line: requests (or transfers), bytes, seconds, the
 * process's CPU milliseconds over the measured window, errors, the first
 * error's text, how long the warm-up lasted and, for GETs, the bytes the JVM's
 * threads allocated over the measured window.
 */
public final class LoadLoop {
  private LoadLoop() {}

  /** One request, blocking; returns the response body's size in bytes. */
  @FunctionalInterface
  public interface Call extends Callable<Long> {}

  // The warm-up goes on past its minimum while the JIT compiles more than this share of the
  // time, looked at over windows this long, for at most this much longer.
  private static final double JIT_QUIET = 0.02;
  private static final long JIT_WINDOW_MS = 2_000;
  private static final long JIT_MAX_EXTRA_MS = 60_000;

  private static long cpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  // Every thread's allocation so far, virtual threads' counted on their carriers; -1 when the JVM
  // does not tell. Unlike CPU time, it does not depend on what else the machine runs.
  private static long allocatedBytes() {
    return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getTotalThreadAllocatedBytes();
  }

  /**
   * When set, the wall-clock time (ms since the epoch) at which the measured
   * window begins, instead of when the warm-up ends: two clients run at once
   * measure the same seconds.
   */
  public static final String MEASURE_AT = "onager.bench.measureAt";

  /**
   * {@code callers} virtual threads each send {@code call} in turn for
   * {@code warmupMs} and until the JIT is quiet (or until {@link #MEASURE_AT}),
   * then for {@code durationMs}, which is measured.
   */
  public static void closedLoop(int callers, long warmupMs, long durationMs, Call call) throws InterruptedException {
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong requests = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    StringBuilder firstError = new StringBuilder();
    List<Thread> threads = new ArrayList<>(callers);
    for (int i = 0; i < callers; i++) {
      threads.add(Thread.ofVirtual().start(() -> {
        while (!stop.get()) {
          try {
            long n = call.call();
            if (measuring.get()) {
              requests.incrementAndGet();
              bytes.addAndGet(n);
            }
          } catch (Exception e) {
            if (measuring.get() && errors.getAndIncrement() == 0) {
              synchronized (firstError) {
                firstError.append(e);
              }
            }
          }
        }
      }));
    }
    String at = System.getProperty(MEASURE_AT);
    long warmup = at == null ? warmUp(warmupMs) : warmUntil(Long.parseLong(at));
    long jit0 = jitMs();
    long cpu0 = cpuNanos();
    long alloc0 = allocatedBytes();
    long t0 = System.nanoTime();
    measuring.set(true);
    Thread.sleep(durationMs);
    measuring.set(false);
    long t1 = System.nanoTime();
    long cpu1 = cpuNanos();
    long alloc = alloc0 < 0 ? -1 : allocatedBytes() - alloc0;
    long jit = jitMs() - jit0;
    stop.set(true);
    for (Thread t : threads) t.join(10_000);
    report(requests.get(), bytes.get(), t1 - t0, cpu1 - cpu0, errors.get(), firstError.toString(),
        String.format(Locale.ROOT, ",\"warmup_s\":%.1f,\"jit_ms\":%d,\"alloc_bytes\":%d", warmup / 1e3, jit, alloc));
  }

  /**
   * Sleeps {@code minMs}, then on while the JIT compiles: the client shares one
   * CPU with its compiler threads, and a client with more code to compile would
   * otherwise be measured compiling. Returns the warm-up's length in ms.
   */
  private static long warmUp(long minMs) throws InterruptedException {
    long t0 = System.nanoTime();
    Thread.sleep(minMs);
    long deadline = System.nanoTime() + JIT_MAX_EXTRA_MS * 1_000_000;
    long compiled = jitMs();
    while (compiled >= 0 && System.nanoTime() < deadline) {
      Thread.sleep(JIT_WINDOW_MS);
      long now = jitMs();
      if (now - compiled < JIT_QUIET * JIT_WINDOW_MS) break;
      compiled = now;
    }
    return (System.nanoTime() - t0) / 1_000_000;
  }

  // Sleeps until wall-clock time atMs; returns how long the warm-up lasted since the JVM started.
  private static long warmUntil(long atMs) throws InterruptedException {
    long wait = atMs - System.currentTimeMillis();
    if (wait > 0) Thread.sleep(wait);
    return ManagementFactory.getRuntimeMXBean().getUptime();
  }

  // The compiler threads' time so far in ms, or -1 when the JVM does not tell.
  private static long jitMs() {
    CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
    return jit != null && jit.isCompilationTimeMonitoringSupported() ? jit.getTotalCompilationTime() : -1;
  }

  /** Runs {@code warm} once unmeasured, then {@code call} once measured: one large transfer. */
  public static void transfer(Call warm, Call call) {
    long errors = 0;
    String error = "";
    long n = 0;
    long cpu0 = 0;
    long t0 = 0;
    try {
      warm.call();
      cpu0 = cpuNanos();
      t0 = System.nanoTime();
      n = call.call();
    } catch (Exception e) {
      errors = 1;
      error = e.toString();
    }
    long t1 = System.nanoTime();
    long cpu1 = cpuNanos();
    report(errors == 0 ? 1 : 0, n, t1 - t0, cpu1 - cpu0, errors, error, "");
  }

  // more: further fields, each after a comma.
  private static void report(long requests, long bytes, long nanos, long cpuNanos, long errors, String error,
                             String more) {
    System.out.println(String.format(Locale.ROOT,
        "{\"requests\":%d,\"bytes\":%d,\"seconds\":%.4f,\"cpu_ms\":%.2f,\"errors\":%d,\"error\":\"%s\"%s}",
        requests, bytes, nanos / 1e9, cpuNanos / 1e6, errors,
        error.replace("\\", "\\\\").replace("\"", "'").replace("\n", " "), more));
    System.out.flush();
  }

  /** An InputStream of {@code size} zero bytes made as it is read, for uploads. */
  public static java.io.InputStream zeros(long size) {
    return new java.io.InputStream() {
      private long left = size;

      @Override
      public int read() {
        if (left <= 0) return -1;
        left--;
        return 0;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (left <= 0) return -1;
        int n = (int) Math.min(len, left);
        java.util.Arrays.fill(b, off, off + n, (byte) 0);
        left -= n;
        return n;
      }
    };
  }

  /** Reads {@code in} to its end and closes it; returns how many bytes it had. */
  public static long drain(java.io.InputStream in) throws java.io.IOException {
    byte[] buf = new byte[65536];
    long total = 0;
    try (in) {
      int n;
      while ((n = in.read(buf)) >= 0) total += n;
    }
    return total;
  }
}
