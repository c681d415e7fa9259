package onager.kernel.response;

import io.netty.util.AsciiString;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The {@code Date} header value, formatted at most once a second and shared by
 * every response of that second.
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

  public static AsciiString now() {
    long second = System.currentTimeMillis() / 1000;
    Stamp s = stamp;
    if (s.second != second) {
      s = format(second);
      stamp = s;
    }
    return s.value;
  }
}
