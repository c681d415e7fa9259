package onager.kernel.exchange;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The request ids of one server ({@code :onager/request-id}): the value of the
 * header {@code :request-id-header} names when a request carries a sane one,
 * else one made here. A made id is a random prefix drawn once per server and a
 * counter ({@code "k2x0v9q7cd-1f"}): unique within the server, and across
 * servers but by a one-in-36<sup>10</sup> chance, at the cost of an increment,
 * where a random UUID would draw from {@link SecureRandom} on every request.
 */
final class RequestIds {
  /** The longest id taken from a request: an id is for logs, not a place to carry data. */
  static final int MAX_LENGTH = 200;

  private final AsciiString header;
  private final String prefix;
  private final AtomicLong counter = new AtomicLong();

  /** @param header the request header an id is taken from, or null to make every id */
  RequestIds(String header) {
    this.header = header == null ? null : AsciiString.cached(header);
    StringBuilder p = new StringBuilder(Long.toString(new SecureRandom().nextLong() >>> 12, 36));
    while (p.length() < 10) p.insert(0, '0');
    this.prefix = p.substring(p.length() - 10) + "-";
  }

  /** The id of the request with {@code headers}; each call for a request without one makes a new id. */
  String of(HttpHeaders headers) {
    if (header != null) {
      String given = headers.get(header);
      if (given != null && sane(given)) return given;
    }
    return prefix + Long.toString(counter.incrementAndGet(), 36);
  }

  // Visible ASCII (RFC 5234 VCHAR), bounded: nothing that could forge a log line or fill it.
  static boolean sane(String id) {
    int n = id.length();
    if (n == 0 || n > MAX_LENGTH) return false;
    for (int i = 0; i < n; i++) {
      char c = id.charAt(i);
      if (c < 0x21 || c > 0x7e) return false;
    }
    return true;
  }
}
