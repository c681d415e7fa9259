package onager.kernel.log;

import clojure.lang.Keyword;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;

/**
 * How the access log writes a record ({@code :access-log}): NCSA Common or
 * Combined Log Format, each optionally followed by more fields, or one JSON
 * object per line with the fields chosen. Every value from the request is
 * escaped: a line holds one record, whatever a client sends.
 */
public final class AccessFormat {
  private enum Layout { COMMON, COMBINED, JSON }

  private enum Field {
    TIME, REMOTE_ADDR, METHOD, URI, PROTOCOL, STATUS, BYTES_SENT, DURATION_MS, USER_AGENT, REFERER, REQUEST_ID,
    ABORTED, HEADER
  }

  /** A field of a line: its name (a JSON key) and, for a request header's, the header. */
  private record Column(Field field, String name, AsciiString header) {}

  // Apache's %t: local time, as httpd and nginx write it.
  private static final DateTimeFormatter CLF_TIME =
      DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.US).withZone(ZoneId.systemDefault());
  private static final DateTimeFormatter ISO_TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.US).withZone(ZoneOffset.UTC);
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private final Layout layout;
  private final Column[] columns;
  /** The SLF4J logger the lines go to. */
  final String logger;
  /** The most records waiting to be written; more are dropped. */
  final int queueSize;

  private AccessFormat(Layout layout, Column[] columns, String logger, int queueSize) {
    this.layout = layout;
    this.columns = columns;
    this.logger = logger;
    this.queueSize = queueSize;
  }

  /**
   * The format {@code :access-log} asks for, as {@code onager.server.access-log}
   * gives it: a map of {@code :format} ({@code :common}, {@code :combined} or
   * {@code :json}), {@code :fields} (keywords, or request header names in lower
   * case), {@code :logger} and {@code :queue-size}, validated; null for nil (off).
   */
  public static AccessFormat of(Object option) {
    if (option == null) return null;
    Map<?, ?> m = (Map<?, ?>) option;
    Layout layout = Layout.valueOf(((Keyword) m.get(Keyword.intern("format"))).getName().toUpperCase(Locale.ROOT));
    Collection<?> fields = (Collection<?>) m.get(Keyword.intern("fields"));
    Column[] columns = fields.stream().map(AccessFormat::column).toArray(Column[]::new);
    return new AccessFormat(layout, columns, (String) m.get(Keyword.intern("logger")),
        ((Number) m.get(Keyword.intern("queue-size"))).intValue());
  }

  private static Column column(Object field) {
    if (field instanceof Keyword k) {
      return new Column(Field.valueOf(k.getName().toUpperCase(Locale.ROOT).replace('-', '_')), k.getName(), null);
    }
    String header = ((String) field).toLowerCase(Locale.ROOT);
    return new Column(Field.HEADER, header, AsciiString.cached(header));
  }

  /** The line of {@code r}. */
  String format(AccessRecord r) {
    StringBuilder b = new StringBuilder(256);
    if (layout == Layout.JSON) {
      b.append('{');
      for (int i = 0; i < columns.length; i++) {
        if (i > 0) b.append(',');
        b.append('"').append(columns[i].name).append("\":");
        json(b, columns[i], r);
      }
      return b.append('}').toString();
    }
    // %h %l %u [%t] "%r" %>s %b: no identd, no HTTP user (a credential stays out of logs).
    text(b, r.remoteAddr);
    b.append(" - - [");
    CLF_TIME.formatTo(Instant.ofEpochMilli(r.startMillis), b);
    b.append("] \"");
    if (r.request == null) {
      // As httpd shows a request line it could not read.
      b.append('-');
    } else {
      escape(b, r.request.method().name());
      b.append(' ');
      escape(b, r.request.uri());
      b.append(' ');
      escape(b, r.request.protocolVersion().text());
    }
    b.append("\" ").append(r.status).append(' ');
    if (r.bytesSent == 0) {
      b.append('-');
    } else {
      b.append(r.bytesSent);
    }
    if (layout == Layout.COMBINED) {
      b.append(' ');
      quoted(b, header(r, HttpHeaderNames.REFERER));
      b.append(' ');
      quoted(b, header(r, HttpHeaderNames.USER_AGENT));
    }
    for (Column c : columns) {
      b.append(' ');
      extra(b, c, r);
    }
    return b.toString();
  }

  // The text value of a field, or null for the numbers and flags and what the request has not.
  private static String string(Column c, AccessRecord r) {
    return switch (c.field) {
      case TIME -> ISO_TIME.format(Instant.ofEpochMilli(r.startMillis));
      case REMOTE_ADDR -> r.remoteAddr;
      case METHOD -> r.request == null ? null : r.request.method().name();
      case URI -> r.request == null ? null : r.request.uri();
      case PROTOCOL -> r.request == null ? null : r.request.protocolVersion().text();
      case USER_AGENT -> header(r, HttpHeaderNames.USER_AGENT);
      case REFERER -> header(r, HttpHeaderNames.REFERER);
      case REQUEST_ID -> r.requestId;
      case HEADER -> header(r, c.header);
      default -> null;
    };
  }

  private static String header(AccessRecord r, CharSequence name) {
    return r.request == null ? null : r.request.headers().get(name);
  }

  // A number or flag, bare in either layout.
  private static boolean bare(StringBuilder b, Column c, AccessRecord r) {
    switch (c.field) {
      case STATUS -> b.append(r.status);
      case BYTES_SENT -> b.append(r.bytesSent);
      case DURATION_MS -> millis(b, r.durationNanos);
      case ABORTED -> b.append(r.aborted);
      default -> {
        return false;
      }
    }
    return true;
  }

  private static void extra(StringBuilder b, Column c, AccessRecord r) {
    if (!bare(b, c, r)) quoted(b, string(c, r));
  }

  private static void json(StringBuilder b, Column c, AccessRecord r) {
    if (bare(b, c, r)) return;
    String s = string(c, r);
    if (s == null) {
      b.append("null");
      return;
    }
    b.append('"');
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '"' || ch == '\\') {
        b.append('\\').append(ch);
      } else if (ch < 0x20 || ch > 0x7e) {
        // RFC 8259 §7; ASCII out, so that no byte of a line is left to the log's encoding.
        b.append("\\u").append(HEX[ch >> 12 & 15]).append(HEX[ch >> 8 & 15]).append(HEX[ch >> 4 & 15])
            .append(HEX[ch & 15]);
      } else {
        b.append(ch);
      }
    }
    b.append('"');
  }

  // Milliseconds with microseconds: 12.034.
  private static void millis(StringBuilder b, long nanos) {
    long micros = Math.max(0, nanos) / 1000;
    long frac = micros % 1000;
    b.append(micros / 1000).append('.');
    if (frac < 100) b.append('0');
    if (frac < 10) b.append('0');
    b.append(frac);
  }

  private static void text(StringBuilder b, String s) {
    if (s == null || s.isEmpty()) {
      b.append('-');
    } else {
      escape(b, s);
    }
  }

  private static void quoted(StringBuilder b, String s) {
    b.append('"');
    text(b, s);
    b.append('"');
  }

  // As httpd and nginx escape their lines: '"', '\' and bytes outside visible ASCII as \xHH.
  private static void escape(StringBuilder b, String s) {
    for (int i = 0; i < s.length(); i++) {
      char ch = s.charAt(i);
      if (ch == '"' || ch == '\\' || ch < 0x20 || ch > 0x7e) {
        if (ch > 0xff) {
          b.append("\\u").append(HEX[ch >> 12 & 15]).append(HEX[ch >> 8 & 15]);
        } else {
          b.append("\\x");
        }
        b.append(HEX[ch >> 4 & 15]).append(HEX[ch & 15]);
      } else {
        b.append(ch);
      }
    }
  }
}
