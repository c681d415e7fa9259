package onager.bench.client;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
 * error's text and, for GETs, how long the callers ran before the window
 * began (the warm-up), the JIT's milliseconds, the bytes the JVM's threads
 * allocated within the window, and the JVM's uptime in ms when the window
 * began.
 */
public final class LoadLoop {
  private LoadLoop() {}

  /** One request, blocking; returns the response body's size in bytes. */
  @FunctionalInterface
  public interface Call extends Callable<Long> {}

  // The warm-up goes on past its minimum until the JIT has compiled under this share of the time
  // in this many windows in a row, for at most this much longer. The JVM counts a compilation's
  // time only when it ends, and one large compilation on a shared CPU can outlast a window that
  // then looks quiet.
  private static final double JIT_QUIET = 0.02;
  private static final long JIT_WINDOW_MS = 2_000;
  private static final int JIT_QUIET_WINDOWS = 3;
  private static final long JIT_MAX_EXTRA_MS = 60_000;

  // How long a JVM of a pair waits for the other to be warm, and how far after the later of the
  // two is ready both begin to measure: enough for each to see the other's mark.
  private static final long PAIR_WAIT_MAX_MS = JIT_MAX_EXTRA_MS + 60_000;
  private static final long PAIR_START_MS = 500;
  private static final long PAIR_POLL_MS = 10;

  // Looked up once, before any load: the first look-up loads classes and reads the cgroup's
  // files, and the JIT compiles what that ran, which would otherwise fall in the measured window.
  private static final com.sun.management.OperatingSystemMXBean OS =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final CompilationMXBean JIT = ManagementFactory.getCompilationMXBean();
  private static final RuntimeMXBean RUNTIME = ManagementFactory.getRuntimeMXBean();

  static {
    OS.getProcessCpuTime();
    THREADS.getTotalThreadAllocatedBytes();
  }

  private static long cpuNanos() {
    return OS.getProcessCpuTime();
  }

  // Every thread's allocation so far, virtual threads' counted on their carriers; -1 when the JVM
  // does not tell. Unlike CPU time, it does not depend on what else the machine runs.
  private static long allocatedBytes() {
    return THREADS.getTotalThreadAllocatedBytes();
  }

  // The compiler threads' time so far in ms, or -1 when the JVM does not tell.
  private static long jitMs() {
    return JIT != null && JIT.isCompilationTimeMonitoringSupported() ? JIT.getTotalCompilationTime() : -1;
  }

  /**
   * When set, a directory shared by two client JVMs run at once: each marks
   * in it when its own warm-up is over, and both begin to measure at the same
   * wall-clock time once both are warm, so that they measure the same seconds
   * and neither measures the other's compiling.
   */
  public static final String PAIR_DIR = "onager.bench.pairDir";

  /**
   * Once the JIT is quiet after start-up, {@code callers} virtual threads
   * each send {@code call} in turn for {@code warmupMs} and until the JIT is
   * quiet (and, with {@link #PAIR_DIR}, until the other JVM's is too), then
   * for {@code durationMs}, which is measured.
   */
  public static void closedLoop(int callers, long warmupMs, long durationMs, Call call) throws InterruptedException {
    AtomicBoolean measuring = new AtomicBoolean();
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong requests = new AtomicLong();
    AtomicLong bytes = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    StringBuilder firstError = new StringBuilder();
    List<Thread> threads = new ArrayList<>(callers);
    // The callers start once start-up's compiling is done. Started during it, in most runs of
    // Onager's client, whose start-up compiles the most, the JIT did not inline Netty's copies out
    // of direct buffers, and each header line then allocated a ByteBuffer that other runs did not.
    awaitQuietJit(0);
    long started = RUNTIME.getUptime();
    for (int i = 0; i < callers; i++) {
      threads.add(Thread.ofVirtual().start(() -> {
        while (!stop.get()) {
          try {
            // Counted from the first call, and read at both ends of the window: the loop runs
            // the same code warm and measured, so nothing of its own compiles in the window.
            long n = call.call();
            requests.incrementAndGet();
            bytes.addAndGet(n);
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
    awaitQuietJit(warmupMs);
    String pairDir = System.getProperty(PAIR_DIR);
    if (pairDir != null) awaitPair(Path.of(pairDir));
    // The window's start as JVM uptime, so that a profile recorded from start-up can be cut to it.
    long windowAt = RUNTIME.getUptime();
    long warmup = windowAt - started;
    long jit0 = jitMs();
    long cpu0 = cpuNanos();
    long alloc0 = allocatedBytes();
    long requests0 = requests.get();
    long bytes0 = bytes.get();
    long t0 = System.nanoTime();
    measuring.set(true);
    Thread.sleep(durationMs);
    measuring.set(false);
    long t1 = System.nanoTime();
    long requests1 = requests.get();
    long bytes1 = bytes.get();
    long cpu1 = cpuNanos();
    long alloc = alloc0 < 0 ? -1 : allocatedBytes() - alloc0;
    long jit = jitMs() - jit0;
    stop.set(true);
    for (Thread t : threads) t.join(10_000);
    report(requests1 - requests0, bytes1 - bytes0, t1 - t0, cpu1 - cpu0, errors.get(), firstError.toString(),
        String.format(Locale.ROOT, ",\"warmup_s\":%.1f,\"jit_ms\":%d,\"alloc_bytes\":%d,\"window_at_ms\":%d",
            warmup / 1e3, jit, alloc, windowAt));
  }

  /**
   * Sleeps {@code minMs}, then on while the JIT compiles: the client shares one
   * CPU with its compiler threads, and a client with more code to compile would
   * otherwise be measured compiling.
   */
  private static void awaitQuietJit(long minMs) throws InterruptedException {
    Thread.sleep(minMs);
    long deadline = System.nanoTime() + JIT_MAX_EXTRA_MS * 1_000_000;
    long compiled = jitMs();
    int quiet = 0;
    while (compiled >= 0 && quiet < JIT_QUIET_WINDOWS && System.nanoTime() < deadline) {
      Thread.sleep(JIT_WINDOW_MS);
      long now = jitMs();
      quiet = now - compiled < JIT_QUIET * JIT_WINDOW_MS ? quiet + 1 : 0;
      compiled = now;
    }
  }

  /**
   * Marks in {@code dir} when this JVM is warm, waits for the other JVM's mark,
   * then sleeps until both begin: {@link #PAIR_START_MS} after the later mark,
   * a time both reckon alike from the two marks.
   */
  private static void awaitPair(Path dir) throws InterruptedException {
    try {
      Path mine = dir.resolve("warm-" + ProcessHandle.current().pid());
      Path tmp = dir.resolve("tmp-" + ProcessHandle.current().pid());
      Files.writeString(tmp, Long.toString(System.currentTimeMillis()));
      // Moved into place whole, so that the other JVM never reads half a mark.
      Files.move(tmp, mine, StandardCopyOption.ATOMIC_MOVE);
      long deadline = System.nanoTime() + PAIR_WAIT_MAX_MS * 1_000_000;
      while (true) {
        long later = -1;
        int marks = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
          for (Path p : ds) {
            if (!p.getFileName().toString().startsWith("warm-")) continue;
            marks++;
            later = Math.max(later, Long.parseLong(Files.readString(p).trim()));
          }
        }
        if (marks >= 2) {
          long wait = later + PAIR_START_MS - System.currentTimeMillis();
          if (wait > 0) Thread.sleep(wait);
          return;
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the other JVM of the pair was not warm after " + PAIR_WAIT_MAX_MS + " ms");
        }
        Thread.sleep(PAIR_POLL_MS);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
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
