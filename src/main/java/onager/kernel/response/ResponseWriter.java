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
import java.nio.charset.Charset;
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
   * {@code out}, adding Date and Server unless the handler set them. Returns what
   * the copy saw, its declared Content-Length already checked. Throws
   * {@link InvalidResponseException} and then leaves {@code out} as it was.
   */
  public static ResponseHead head(HttpServerResponse out, int status, Object headerMap, CharSequence serverHeader) {
    MultiMap headers = out.headers();
    ResponseHead head;
    try {
      head = ResponseHead.copy(headerMap, headers);
      head.declaredLength();
    } catch (InvalidResponseException e) {
      headers.clear();
      throw e;
    }
    out.setStatusCode(status);
    addDateAndServer(headers, head.flags, serverHeader);
    return head;
  }

  /** Date and Server, unless the handler set them ({@code flags}: {@link ResponseHead#flags}). */
  static void addDateAndServer(MultiMap headers, int flags, CharSequence serverHeader) {
    if ((flags & ResponseMaps.HAS_DATE) == 0) headers.add(DATE, HttpDate.now());
    if (serverHeader != null && (flags & ResponseMaps.HAS_SERVER) == 0) headers.add(SERVER, serverHeader);
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
   * Sends a direct body and ends the response. {@code sent} is what {@link #head}
   * returned; the handler's Content-Length, if any, must match the body.
   * {@code head}: the request was HEAD, so only the length the body would have
   * goes out.
   */
  public static Future<Void> endDirect(HttpServerResponse out, Object body, ResponseHead sent, boolean head) {
    int flags = sent.flags;
    long declaredLength = sent.declaredLength();
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
    Buffer data = directBuffer(body, sent);
    checkLength(declaredLength, data.length(), head);
    setLength(out, flags, data.length());
    return head ? out.end() : out.end(data);
  }

  // A HEAD response may declare the length its GET would have; any other must tell the truth.
  static void checkLength(long declared, long actual, boolean head) {
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

  static Buffer directBuffer(Object body, ResponseHead sent) {
    if (body == null) return Buffer.buffer();
    // Wrapped, not copied (Buffer.buffer(byte[]) copies): the handler has handed the array over.
    if (body instanceof byte[] bytes) return BufferInternal.buffer(Unpooled.wrappedBuffer(bytes));
    if (body instanceof String s) return encode(s, ResponseMaps.charset(sent.contentType));
    return BufferInternal.buffer(Unpooled.wrappedBuffer(((ByteBuffer) body).duplicate()));
  }

  /**
   * A buffer around {@code s}'s bytes in {@code charset}. String.getBytes
   * encodes a string of Latin-1 characters to UTF-8 or Latin-1 as one array copy
   * when it has no byte to change, where Netty's writeUtf8 reads it a character
   * at a time, twice (counting, then writing): 4.5 % of the server's samples for a
   * 13-byte body served pipelined.
   */
  static Buffer encode(String s, Charset charset) {
    return BufferInternal.buffer(Unpooled.wrappedBuffer(s.getBytes(charset)));
  }

  private static long fileLength(Object body) {
    return body instanceof File f ? f.length() : ((Path) body).toFile().length();
  }

  // Adds the Content-Length the handler left out (Vert.x would add it as a String otherwise).
  private static void setLength(HttpServerResponse out, int flags, long length) {
    setLength(out.headers(), flags, length);
  }

  static void setLength(MultiMap headers, int flags, long length) {
    if ((flags & (ResponseMaps.HAS_CONTENT_LENGTH | ResponseMaps.HAS_TRANSFER_ENCODING)) == 0) {
      headers.add(CONTENT_LENGTH, lengthValue(length));
    }
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
