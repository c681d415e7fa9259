package onager.kernel.http1;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import onager.kernel.response.HttpDate;

/**
 * The answers the connection pipeline writes itself, when no request of the
 * handler's is there to answer through: the same plain text, Date and Server
 * as {@code ResponseWriter.endError}, always with {@code Connection: close}.
 */
final class ErrorResponses {
  private ErrorResponses() {}

  private static final CharSequence TEXT_PLAIN = "text/plain; charset=utf-8";

  static FullHttpResponse of(int status, CharSequence serverHeader) {
    HttpResponseStatus s = HttpResponseStatus.valueOf(status);
    byte[] text = (s.reasonPhrase() + "\n").getBytes(StandardCharsets.US_ASCII);
    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, s, Unpooled.wrappedBuffer(text));
    HttpHeaders h = r.headers();
    h.set(HttpHeaderNames.CONTENT_TYPE, TEXT_PLAIN);
    h.set(HttpHeaderNames.CONTENT_LENGTH, text.length);
    h.set(HttpHeaderNames.DATE, HttpDate.now());
    if (serverHeader != null) h.set(HttpHeaderNames.SERVER, serverHeader);
    h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    return r;
  }
}
