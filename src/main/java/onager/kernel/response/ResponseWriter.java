package onager.kernel.response;

import io.netty.buffer.Unpooled;
import io.netty.util.AsciiString;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.internal.buffer.BufferInternal;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Puts a Ring response on a Vert.x response: the head, and the bodies the event
 * loop can send without waiting (see {@link BodyStreamer#isDirect}). Runs on the
 * event loop.
 */
public final class ResponseWriter {
  private ResponseWriter() {}

  private static final AsciiString DATE = AsciiString.cached("date");
  private static final AsciiString SERVER = AsciiString.cached("server");
  private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
  private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
  private static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain; charset=utf-8");

  /**
   * Sets {@code status} and the {@code :headers} value {@code headerMap} on
   * {@code out}, adding Date and Server unless the handler set them. Returns the
   * {@link ResponseMaps} flags. Throws {@link InvalidResponseException} and then
   * leaves {@code out} as it was.
   */
  public static int head(HttpServerResponse out, int status, Object headerMap, CharSequence serverHeader) {
    MultiMap headers = out.headers();
    int flags;
    try {
      flags = ResponseMaps.copyHeaders(headerMap, headers);
    } catch (InvalidResponseException e) {
      headers.clear();
      throw e;
    }
    out.setStatusCode(status);
    if ((flags & ResponseMaps.HAS_DATE) == 0) headers.add(DATE, HttpDate.now());
    if (serverHeader != null && (flags & ResponseMaps.HAS_SERVER) == 0) headers.add(SERVER, serverHeader);
    return flags;
  }

  /** True when a response with this status carries no body (RFC 9110 §6.4.1). */
  public static boolean bodiless(int status) {
    return status < 200 || status == 204 || status == 304;
  }

  /**
   * Checks what the head cannot: that a file body can be sent. Call before
   * {@link #head}, so that a refusal still leaves room for a 500.
   */
  public static void checkDirectBody(Object body) {
    Path path = body instanceof File f ? f.toPath() : body instanceof Path p ? p : null;
    if (path != null && !(Files.isRegularFile(path) && Files.isReadable(path))) {
      throw new InvalidResponseException("response :body file " + path + " is not a readable regular file");
    }
  }

  /**
   * Sends a direct body and ends the response. {@code head}: the request was HEAD,
   * so only the length the body would have goes out. {@code flags} are what
   * {@link #head} returned; {@code declaredLength} the handler's Content-Length
   * (-1 for none), which must match the body.
   */
  public static Future<Void> endDirect(HttpServerResponse out, Object body, int flags, boolean head,
                                      long declaredLength) {
    int status = out.getStatusCode();
    if (bodiless(status)) {
      closeQuietly(body);
      return out.end();
    }
    if (body instanceof File || body instanceof Path) {
      long length = fileLength(body);
      checkLength(declaredLength, length, head);
      if (head) {
        setLength(out, flags, length);
        return out.end();
      }
      return out.sendFile(body.toString(), 0, Long.MAX_VALUE);
    }
    Buffer data = directBuffer(out, body, flags);
    checkLength(declaredLength, data.length(), head);
    if (head) {
      setLength(out, flags, data.length());
      return out.end();
    }
    return out.end(data);
  }

  // A HEAD response may declare the length its GET would have; any other must tell the truth.
  private static void checkLength(long declared, long actual, boolean head) {
    if (declared >= 0 && declared != actual && !head) {
      throw new InvalidResponseException("response Content-Length " + declared + " does not match its body of "
          + actual + " bytes");
    }
  }

  /** Ends a HEAD response whose body is a stream: the stream is closed unread. */
  public static Future<Void> endUnread(HttpServerResponse out, Object body) {
    closeQuietly(body);
    return out.end();
  }

  private static Buffer directBuffer(HttpServerResponse out, Object body, int flags) {
    if (body == null) return Buffer.buffer();
    if (body instanceof byte[] bytes) return Buffer.buffer(bytes);
    if (body instanceof String s) {
      var charset = (flags & ResponseMaps.HAS_CONTENT_TYPE) != 0
          ? ResponseMaps.charset(out.headers().get(CONTENT_TYPE))
          : StandardCharsets.UTF_8;
      return Buffer.buffer(s.getBytes(charset));
    }
    return BufferInternal.buffer(Unpooled.wrappedBuffer(((ByteBuffer) body).duplicate()));
  }

  private static long fileLength(Object body) {
    return body instanceof File f ? f.length() : ((Path) body).toFile().length();
  }

  private static void setLength(HttpServerResponse out, int flags, long length) {
    if ((flags & ResponseMaps.HAS_CONTENT_LENGTH) == 0) out.headers().set(CONTENT_LENGTH, Long.toString(length));
  }

  /**
   * Replaces whatever head was prepared with a plain-text error: the status and
   * its reason, never a stack trace or an exception message.
   */
  public static Future<Void> endError(HttpServerResponse out, int status, CharSequence serverHeader, boolean close) {
    MultiMap headers = out.headers();
    headers.clear();
    out.setStatusCode(status);
    String text = out.getStatusMessage() + "\n";
    headers.add(CONTENT_TYPE, TEXT_PLAIN);
    headers.add(DATE, HttpDate.now());
    if (serverHeader != null) headers.add(SERVER, serverHeader);
    if (close) headers.add("connection", "close");
    return out.end(text);
  }

  private static void closeQuietly(Object body) {
    if (body instanceof Closeable c) {
      try {
        c.close();
      } catch (IOException ignored) {
        // The body was not going to be sent; its close failing changes nothing for the client.
      }
    }
  }
}
