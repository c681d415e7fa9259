package onager.kernel.response;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.vertx.core.http.MimeMapping;
import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import onager.kernel.vertx.VertxInternals;

/**
 * Turns Ring responses into the HTTP messages a protocol writes: every answer
 * the server sends, the handler's and its own errors, is made here, whole (a
 * {@link FullHttpResponse}) or as a head before a file or a streamed body.
 * Any thread may call it.
 *
 * <p>{@code close} says the connection ends after the response (the server
 * decided so: an error that leaves the request unread, a stop); {@code
 * keepAlive} is what the request asked for (RFC 9112 §9.3): HTTP/1.1 unless it
 * said {@code Connection: close}, HTTP/1.0 only when it said {@code keep-alive}.
 * The status line carries the request's version, as Vert.x's own responses do.
 */
public final class Responses {
  private Responses() {}

  private static final AsciiString DATE = AsciiString.cached("date");
  private static final AsciiString SERVER = AsciiString.cached("server");
  private static final AsciiString CONTENT_TYPE = AsciiString.cached("content-type");
  private static final AsciiString CONTENT_LENGTH = AsciiString.cached("content-length");
  private static final AsciiString CONNECTION = AsciiString.cached("connection");
  private static final AsciiString TRANSFER_ENCODING = AsciiString.cached("transfer-encoding");
  private static final AsciiString TEXT_PLAIN = AsciiString.cached("text/plain; charset=utf-8");

  /** True for a body sent from memory in one message (no file, stream or seq). */
  public static boolean inMemory(Object body) {
    return body == null || body instanceof String || body instanceof byte[] || body instanceof ByteBuffer;
  }

  /** True for a body sent from a file. */
  public static boolean isFile(Object body) {
    return body instanceof File || body instanceof Path;
  }

  /** True when a response with this status carries no body (RFC 9110 §6.4.1). */
  public static boolean bodiless(int status) {
    return status < 200 || status == 204 || status == 304;
  }

  /**
   * A whole answer: for an {@link #inMemory} body, a bodiless status, or a HEAD
   * request (whose stream or seq body is closed unread: only the head goes out,
   * with the length the body would have when it is known). Throws
   * {@link InvalidResponseException} for a response that cannot be sent.
   */
  public static FullHttpResponse full(int status, Object headerMap, Object body, boolean headRequest,
                                      HttpVersion version, boolean keepAlive, boolean close,
                                      CharSequence serverHeader) {
    HttpHeaders headers = VertxInternals.newHeaders();
    ResponseHead sent = copy(headerMap, headers, serverHeader);
    int flags = sent.flags;
    long declared = sent.declaredLength();
    ByteBuf content = Unpooled.EMPTY_BUFFER;
    if (bodiless(status)) {
      closeQuietly(body);
      // A length of 0, as for any empty body, but none on a HEAD or 304 answer, whose
      // Content-Length describes the representation, and none on a 1xx or 204, which
      // must not have one (RFC 9110 §8.6).
      if (!headRequest && status >= 200 && status != 204 && status != 304) setLength(headers, flags, 0);
    } else if (isFile(body)) {
      long length = fileLength(body);
      checkLength(declared, length, headRequest);
      setLength(headers, flags, length);
    } else if (inMemory(body)) {
      ByteBuf data = bytes(body, sent.contentType);
      checkLength(declared, data.readableBytes(), headRequest);
      setLength(headers, flags, data.readableBytes());
      if (!headRequest) content = data;
    } else {
      closeQuietly(body);
    }
    if (headRequest || status == 304) headers.remove(TRANSFER_ENCODING);
    connection(headers, version, keepAlive, close);
    return new DefaultFullHttpResponse(version, HttpResponseStatus.valueOf(status), content, headers,
        EmptyHttpHeaders.INSTANCE);
  }

  /**
   * The head of an answer whose body follows: a file's ({@code file} and its
   * {@code length}: its type told by its name unless the handler told it), or
   * a stream's ({@code file} null, {@code length} -1: chunked over HTTP/1.1
   * unless the handler declared a length or a coding; over HTTP/1.0 the close
   * of the connection ends it).
   */
  public static HttpResponse head(int status, Object headerMap, File file, long length, HttpVersion version,
                                  boolean keepAlive, boolean close, CharSequence serverHeader) {
    HttpHeaders headers = VertxInternals.newHeaders();
    ResponseHead sent = copy(headerMap, headers, serverHeader);
    int flags = sent.flags;
    if (file != null) {
      checkLength(sent.declaredLength(), length, false);
      setLength(headers, flags, length);
      if ((flags & ResponseMaps.HAS_CONTENT_TYPE) == 0) {
        String type = MimeMapping.mimeTypeForFilename(file.getName());
        if (type != null) headers.add(CONTENT_TYPE, type);
      }
    } else {
      sent.declaredLength();
      if ((flags & (ResponseMaps.HAS_CONTENT_LENGTH | ResponseMaps.HAS_TRANSFER_ENCODING)) == 0
          && version == HttpVersion.HTTP_1_1) {
        headers.add(TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      }
    }
    connection(headers, version, keepAlive, close);
    return new DefaultHttpResponse(version, HttpResponseStatus.valueOf(status), headers);
  }

  /**
   * True when a streamed body of this head needs the connection's end to end it:
   * HTTP/1.0 without a declared length.
   */
  public static boolean closeDelimited(HttpResponse head) {
    HttpHeaders h = head.headers();
    return head.protocolVersion() == HttpVersion.HTTP_1_0 && !h.contains(CONTENT_LENGTH)
        && !h.contains(TRANSFER_ENCODING);
  }

  /** True when the head says the connection closes after it (the handler's own header or the server's). */
  public static boolean closes(HttpResponse head) {
    HttpHeaders h = head.headers();
    return h.contains(CONNECTION) && h.containsValue(CONNECTION, HttpHeaderValues.CLOSE, true);
  }

  /**
   * The server's own answer: the status and its reason as plain text, never a
   * stack trace or an exception message.
   */
  public static FullHttpResponse error(int status, HttpVersion version, boolean close, CharSequence serverHeader) {
    HttpResponseStatus s = HttpResponseStatus.valueOf(status);
    byte[] text = (s.reasonPhrase() + "\n").getBytes(StandardCharsets.US_ASCII);
    HttpHeaders headers = VertxInternals.newHeaders();
    headers.add(CONTENT_TYPE, TEXT_PLAIN);
    headers.add(DATE, HttpDate.now());
    if (serverHeader != null) headers.add(SERVER, serverHeader);
    if (close) headers.add(CONNECTION, HttpHeaderValues.CLOSE);
    headers.add(CONTENT_LENGTH, lengthValue(text.length));
    return new DefaultFullHttpResponse(version, s, Unpooled.wrappedBuffer(text), headers, EmptyHttpHeaders.INSTANCE);
  }

  /**
   * Checks what the head cannot: that a file body can be sent, so that a
   * refusal still leaves room for a 500.
   */
  public static void checkFile(Object body) {
    Path path = body instanceof File f ? f.toPath() : (Path) body;
    if (!(Files.isRegularFile(path) && Files.isReadable(path))) {
      throw new InvalidResponseException("response :body file " + path + " is not a readable regular file");
    }
  }

  /** The file a file body names. */
  public static File file(Object body) {
    return body instanceof File f ? f : ((Path) body).toFile();
  }

  private static long fileLength(Object body) {
    return file(body).length();
  }

  private static ResponseHead copy(Object headerMap, HttpHeaders headers, CharSequence serverHeader) {
    ResponseHead sent = ResponseHead.copy(headerMap, VertxInternals.multiMap(headers));
    int flags = sent.flags;
    if ((flags & ResponseMaps.HAS_DATE) == 0) headers.add(DATE, HttpDate.now());
    if (serverHeader != null && (flags & ResponseMaps.HAS_SERVER) == 0) headers.add(SERVER, serverHeader);
    return sent;
  }

  private static void connection(HttpHeaders headers, HttpVersion version, boolean keepAlive, boolean close) {
    if (close || (!keepAlive && version == HttpVersion.HTTP_1_1)) {
      headers.set(CONNECTION, HttpHeaderValues.CLOSE);
    } else if (keepAlive && version == HttpVersion.HTTP_1_0) {
      headers.set(CONNECTION, HttpHeaderValues.KEEP_ALIVE);
    }
  }

  // A HEAD response may declare the length its GET would have; any other must tell the truth.
  private static void checkLength(long declared, long actual, boolean headRequest) {
    if (declared >= 0 && declared != actual && !headRequest) {
      throw new InvalidResponseException("response Content-Length " + declared + " does not match its body of "
          + actual + " bytes");
    }
  }

  private static void setLength(HttpHeaders headers, int flags, long length) {
    if ((flags & (ResponseMaps.HAS_CONTENT_LENGTH | ResponseMaps.HAS_TRANSFER_ENCODING)) == 0) {
      headers.add(CONTENT_LENGTH, lengthValue(length));
    }
  }

  // Wrapped, not copied: the handler has handed its array over.
  private static ByteBuf bytes(Object body, String contentType) {
    if (body == null) return Unpooled.EMPTY_BUFFER;
    if (body instanceof byte[] b) return Unpooled.wrappedBuffer(b);
    if (body instanceof String s) return encode(s, ResponseMaps.charset(contentType));
    return Unpooled.wrappedBuffer(((ByteBuffer) body).duplicate());
  }

  /**
   * {@code s}'s bytes in {@code charset}. String.getBytes encodes a Latin-1 string
   * to UTF-8 or Latin-1 as one array copy, where Netty's writeUtf8 reads it a
   * character at a time, twice.
   */
  static ByteBuf encode(String s, Charset charset) {
    return Unpooled.wrappedBuffer(s.getBytes(charset));
  }

  // Lengths as AsciiString, made once each for the small bodies most responses have.
  private static final AsciiString[] LENGTHS = new AsciiString[4096];

  static CharSequence lengthValue(long length) {
    if (length >= LENGTHS.length) return Long.toString(length);
    AsciiString a = LENGTHS[(int) length];
    if (a == null) {
      // Racing threads make equal values; AsciiString's final fields make either safe to read.
      a = AsciiString.cached(Long.toString(length));
      LENGTHS[(int) length] = a;
    }
    return a;
  }

  /** Closes a body that will not be sent (a stream under a HEAD answer, one refused). */
  public static void closeQuietly(Object body) {
    if (body instanceof Closeable c) {
      try {
        c.close();
      } catch (IOException | RuntimeException ignored) {
        // Nothing was going to read it; its close failing changes nothing for the client.
      }
    }
  }
}
