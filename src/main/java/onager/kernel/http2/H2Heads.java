package onager.kernel.http2;

import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.Map;

/**
 * The head of an answer {@code response.Responses} made, as HTTP/2 HEADERS: the
 * {@code :status}, the fields with their names in lower case (RFC 9113 §8.2),
 * less the connection-specific ones, which HTTP/2 forbids (§8.2.2): the
 * connection is HTTP/2's own to manage, and a body is framed by DATA frames.
 */
final class H2Heads {
  private H2Heads() {}

  private static final AsciiString[] STATUSES = new AsciiString[600];

  static {
    for (int i = 100; i < STATUSES.length; i++) STATUSES[i] = AsciiString.cached(Integer.toString(i));
  }

  /** The HEADERS of {@code response}'s head. */
  static Http2Headers of(HttpResponse response) {
    Http2Headers out = new DefaultHttp2Headers(false, response.headers().size() + 1);
    out.status(statusText(response.status().code()));
    Iterator<Map.Entry<CharSequence, CharSequence>> it = response.headers().iteratorCharSequence();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      CharSequence name = lowerCase(e.getKey());
      if (!connectionSpecific(name)) out.add(name, e.getValue());
    }
    return out;
  }

  /** The HEADERS of an interim response with only a status (100 Continue). */
  static Http2Headers status(int code) {
    return new DefaultHttp2Headers(false, 1).status(statusText(code));
  }

  private static AsciiString statusText(int code) {
    return code >= 100 && code < STATUSES.length ? STATUSES[code] : AsciiString.of(Integer.toString(code));
  }

  // The server's own names are lower case already; a handler's are as it wrote them.
  static CharSequence lowerCase(CharSequence name) {
    if (name instanceof AsciiString a) return a.toLowerCase();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c >= 'A' && c <= 'Z') return AsciiString.of(name).toLowerCase();
    }
    return name;
  }

  static boolean connectionSpecific(CharSequence name) {
    return switch (name.length()) {
      case 2 -> AsciiString.contentEquals("te", name);
      case 7 -> AsciiString.contentEquals("upgrade", name);
      case 10 -> AsciiString.contentEquals("connection", name) || AsciiString.contentEquals("keep-alive", name);
      case 16 -> AsciiString.contentEquals("proxy-connection", name);
      case 17 -> AsciiString.contentEquals("transfer-encoding", name);
      default -> false;
    };
  }
}
