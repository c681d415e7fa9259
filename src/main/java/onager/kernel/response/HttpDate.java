package onager.kernel.response;

import io.netty.util.AsciiString;
import io.netty.util.concurrent.EventExecutor;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@code Date} header value, formatted once a second and shared by every
 * response of that second. A {@link Ticker} on each serving event loop makes
 * it anew just after each second starts, so a response reads it without a
 * clock read.
 */
public final class HttpDate {
  private HttpDate() {}

  // IMF-fixdate (RFC 9110 §5.6.7): two-digit day, English names, always GMT.
  private static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH);

  private record Stamp(long second, AsciiString value) {}

  private static volatile Stamp stamp = format(System.currentTimeMillis() / 1000);

  private static Stamp format(long second) {
    String text = IMF_FIXDATE.format(Instant.ofEpochSecond(second).atOffset(ZoneOffset.UTC));
    return new Stamp(second, AsciiString.cached(text));
  }

  /** The value for now, as of the last tick. */
  public static AsciiString now() {
    return stamp.value;
  }

  /** Makes the value anew when the second has changed; the milliseconds left in this second. */
  private static long refresh() {
    long ms = System.currentTimeMillis();
    long second = ms / 1000;
    if (stamp.second != second) stamp = format(second);
    return 1000 - ms % 1000;
  }

  /** Keeps the value current from {@code loop} until closed; starts by bringing it up to date. */
  public static Ticker tickOn(EventExecutor loop) {
    Ticker t = new Ticker(loop);
    t.run();
    return t;
  }

  /** One event loop's part in keeping the value current: several tick alike, and any one is enough. */
  public static final class Ticker implements Runnable {
    private final EventExecutor loop;
    private volatile boolean closed;
    private ScheduledFuture<?> next;

    private Ticker(EventExecutor loop) {
      this.loop = loop;
    }

    @Override
    public void run() {
      if (closed) return;
      // A millisecond past the boundary: a timer that fires a little early still lands in the new second.
      next = loop.schedule(this, refresh() + 1, TimeUnit.MILLISECONDS);
    }

    public void close() {
      closed = true;
      ScheduledFuture<?> n = next;
      if (n != null) n.cancel(false);
    }
  }
}
