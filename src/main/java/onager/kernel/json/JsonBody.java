package onager.kernel.json;

import clojure.lang.ExceptionInfo;
import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import onager.kernel.http.MediaType;

/**
 * The work of onager.middleware/wrap-json-body: reads a request's JSON body,
 * streaming, into a key of the request, and refuses with a {@link RejectedBody}
 * what it cannot take: a body that is not JSON (415), is larger than the limit
 * (413) or is malformed (400). The server's own :max-body still applies below:
 * reading past it fails with the server's error, which answers 413.
 */
public final class JsonBody {
  private JsonBody() {}

  private static final Keyword HEADERS = Keyword.intern("headers");
  private static final Keyword BODY = Keyword.intern("body");
  private static final Object EMPTY = new Object();

  /**
   * The request with its body's JSON value under {@code into}, or the request as
   * it is when it has no body (or, with {@code passOthers}, a body of another type).
   */
  public static IPersistentMap assoc(IPersistentMap request, Keyword into, JsonReader reader, long maxBytes,
      boolean passOthers) throws IOException {
    Object body = request.valAt(BODY);
    String contentType = header(request, "content-type");
    long declared = declaredLength(header(request, "content-length"));
    if (body == null || declared == 0) return request;
    // Without Content-Length or Transfer-Encoding an HTTP/1 request has no body, but an
    // HTTP/2 one may: a JSON Content-Type is then worth a read, which may find nothing.
    boolean framed = declared > 0 || header(request, "transfer-encoding") != null;
    if (!MediaType.isJson(contentType)) {
      if (passOthers || !framed) return request;
      throw new RejectedBody(415, "Expected a JSON body (Content-Type: application/json), not "
          + (contentType == null ? "a body without a Content-Type" : contentType) + ".");
    }
    if (declared > maxBytes) throw LimitedInputStream.tooLarge(maxBytes);
    Object value;
    try {
      value = read(body, contentType, reader, maxBytes);
    } catch (ExceptionInfo e) {
      throw new RejectedBody(400, "Malformed JSON in the request body. " + e.getMessage());
    }
    return value == EMPTY ? request : request.assoc(into, value);
  }

  private static Object read(Object body, String contentType, JsonReader reader, long maxBytes) throws IOException {
    InputStream in;
    if (body instanceof InputStream s) in = s;
    else if (body instanceof byte[] b) in = new java.io.ByteArrayInputStream(b);
    else if (body instanceof String s) in = new java.io.ByteArrayInputStream(s.getBytes(StandardCharsets.UTF_8));
    else throw new IllegalArgumentException("a request :body must be an InputStream, not " + body.getClass().getName());
    InputStream limited = new LimitedInputStream(in, maxBytes);
    Charset charset = MediaType.charset(MediaType.charsetName(contentType), null);
    // JSON is UTF-8 (RFC 8259); Jackson also finds UTF-16 and UTF-32 by itself. Another declared charset is honoured.
    if (charset == null || charset == StandardCharsets.UTF_8 || charset.name().startsWith("UTF-")) {
      return reader.read(limited, EMPTY);
    }
    return reader.read(new InputStreamReader(limited, charset), EMPTY);
  }

  private static String header(IPersistentMap request, String name) {
    Object headers = request.valAt(HEADERS);
    Object v = headers instanceof Map<?, ?> m ? m.get(name) : null;
    return v instanceof String s ? s : null;
  }

  private static long declaredLength(String header) {
    if (header == null) return -1;
    try {
      return Long.parseLong(header.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
