package onager.kernel.response;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.vertx.core.http.impl.headers.Http1xHeaders;
import io.vertx.core.internal.buffer.BufferInternal;
import java.nio.ByteBuffer;

/**
 * A Ring response with its body in memory as one HTTP/1.1 message, for the
 * kernel's shortcut past Vert.x's response object: the bytes on the wire are
 * those {@link ResponseWriter#head} and {@link ResponseWriter#endDirect} make
 * through a Vert.x response, Content-Length added as Vert.x adds it.
 */
public final class FullResponses {
  private FullResponses() {}

  private static final int VERTX_ACTS_ON = ResponseMaps.HAS_TRANSFER_ENCODING | ResponseMaps.HAS_CONNECTION;

  /** True for a body this class sends: one already in memory (no file, stream or seq). */
  public static boolean inMemory(Object body) {
    return body == null || body instanceof String || body instanceof byte[] || body instanceof ByteBuffer;
  }

  /**
   * The response to send, or null when its headers ask for what only the Vert.x
   * path does (Transfer-Encoding, Connection). Throws
   * {@link InvalidResponseException} for a response that cannot be sent.
   *
   * @param body an {@link #inMemory} body
   * @param head the request was HEAD: the length the body would have, without it
   */
  public static FullHttpResponse of(int status, Object headerMap, Object body, boolean head,
                                    CharSequence serverHeader) {
    Http1xHeaders headers = Http1xHeaders.httpHeaders();
    ResponseHead sent = ResponseHead.copy(headerMap, headers);
    int flags = sent.flags;
    if ((flags & VERTX_ACTS_ON) != 0) return null;
    long declared = sent.declaredLength();
    ResponseWriter.addDateAndServer(headers, flags, serverHeader);
    ByteBuf content = Unpooled.EMPTY_BUFFER;
    if (ResponseWriter.bodiless(status)) {
      // As Vert.x ends a response without a body: a length of 0, but none on a HEAD or 304 answer.
      if (!head && status != 304) ResponseWriter.setLength(headers, flags, 0);
    } else {
      ByteBuf data = ((BufferInternal) ResponseWriter.directBuffer(body, sent)).getByteBuf();
      int length = data.readableBytes();
      ResponseWriter.checkLength(declared, length, head);
      ResponseWriter.setLength(headers, flags, length);
      if (!head) content = data;
    }
    return new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(status), content, headers,
        EmptyHttpHeaders.INSTANCE);
  }
}
