package onager.kernel.client;

import clojure.lang.Keyword;
import clojure.lang.Named;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A {@code multipart/form-data} body (RFC 7578) from clj-http's
 * {@code :multipart} vector of parts: {@code {:name "field" :content c}} with
 * {@code :filename} and {@code :mime-type} for a file, the content a string,
 * bytes, a File or an InputStream. Files and streams are read as the body goes
 * out, a piece at a time; with no stream among the parts the length is known
 * and sent as Content-Length.
 */
final class MultipartBody {
  private MultipartBody() {}

  private static final Keyword NAME = Keyword.intern("name");
  private static final Keyword CONTENT = Keyword.intern("content");
  private static final Keyword FILENAME = Keyword.intern("filename");
  private static final Keyword MIME_TYPE = Keyword.intern("mime-type");
  private static final int PIECE = 64 * 1024;

  /** What {@code :multipart} takes, in words. */
  static final String ALLOWED = "a sequence of parts {:name \"field\" :content c}, c a string, bytes, a File or an "
      + "InputStream, with :filename and :mime-type optional";

  /** One part: its head, as it goes out, and its content. */
  private record Part(byte[] head, Object content) {}

  /**
   * The body {@code parts} make, its Content-Type (with the boundary) and, when
   * it can be known, Content-Length set in {@code headers}; null when
   * {@code parts} is not a valid {@code :multipart} value.
   */
  static RequestBody of(Object parts, MultiMap headers) {
    if (!(parts instanceof Iterable<?> given) || parts instanceof Map) return null;
    String boundary = "onager-" + Long.toHexString(ThreadLocalRandom.current().nextLong())
        + Long.toHexString(ThreadLocalRandom.current().nextLong());
    List<Part> list = new ArrayList<>();
    long length = 0;
    for (Object o : given) {
      if (!(o instanceof Map<?, ?> m)) return null;
      Object name = m.get(NAME);
      Object content = m.get(CONTENT);
      if (name == null || !(content instanceof String || content instanceof byte[] || content instanceof File
          || content instanceof InputStream)) {
        return null;
      }
      Object filename = m.get(FILENAME);
      if (filename == null && content instanceof File f) filename = f.getName();
      Object type = m.get(MIME_TYPE);
      StringBuilder head = new StringBuilder(128).append("--").append(boundary)
          .append("\r\nContent-Disposition: form-data; name=\"").append(quoted(text(name))).append('"');
      if (filename != null) head.append("; filename=\"").append(quoted(text(filename))).append('"');
      head.append("\r\n");
      if (type != null) {
        head.append("Content-Type: ").append(text(type)).append("\r\n");
      } else if (filename != null) {
        head.append("Content-Type: application/octet-stream\r\n");
      }
      head.append("\r\n");
      byte[] h = head.toString().getBytes(StandardCharsets.UTF_8);
      list.add(new Part(h, content));
      long size = switch (content) {
        case String s -> s.getBytes(StandardCharsets.UTF_8).length;
        case byte[] b -> b.length;
        case File f -> f.length();
        default -> -1;
      };
      length = length < 0 || size < 0 ? -1 : length + h.length + size + 2;
    }
    byte[] end = ("--" + boundary + "--\r\n").getBytes(StandardCharsets.US_ASCII);
    headers.set(HttpHeaders.CONTENT_TYPE, "multipart/form-data; boundary=" + boundary);
    if (length >= 0) headers.set(HttpHeaders.CONTENT_LENGTH, Long.toString(length + end.length));
    return StreamedBody.of(() -> new Pieces(list, end));
  }

  private static String text(Object o) {
    return o instanceof Named n ? n.getName() : String.valueOf(o);
  }

  // The WHATWG's encoding of names in a form-data head: a quote, CR and LF percent-encoded.
  private static String quoted(String s) {
    return s.replace("\"", "%22").replace("\r", "%0D").replace("\n", "%0A");
  }

  /** The body's pieces in order, files and streams read as it is walked. */
  private static final class Pieces implements Iterator<Object> {
    private static final byte[] CRLF = {'\r', '\n'};

    private final Iterator<Part> parts;
    private final byte[] end;
    private Part part;
    private InputStream reading;
    private boolean ended;
    private byte[] next;

    Pieces(List<Part> parts, byte[] end) {
      this.parts = parts.iterator();
      this.end = end;
    }

    @Override
    public boolean hasNext() {
      if (next == null) next = advance();
      return next != null;
    }

    @Override
    public Object next() {
      if (!hasNext()) throw new NoSuchElementException();
      byte[] piece = next;
      next = null;
      return piece;
    }

    private byte[] advance() {
      try {
        if (reading != null) {
          byte[] buf = new byte[PIECE];
          int n = reading.readNBytes(buf, 0, PIECE);
          if (n > 0) return n == PIECE ? buf : java.util.Arrays.copyOf(buf, n);
          reading.close();
          reading = null;
          part = null;
          return CRLF;
        }
        if (part != null) {
          Object c = part.content();
          switch (c) {
            case String s -> {
              part = null;
              return concat(s.getBytes(StandardCharsets.UTF_8), CRLF);
            }
            case byte[] b -> {
              part = null;
              return concat(b, CRLF);
            }
            case File f -> reading = new FileInputStream(f);
            default -> reading = (InputStream) c;
          }
          return advance();
        }
        if (parts.hasNext()) {
          part = parts.next();
          return part.head();
        }
        if (!ended) {
          ended = true;
          return end;
        }
        return null;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private static byte[] concat(byte[] a, byte[] b) {
      byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
      System.arraycopy(b, 0, out, a.length, b.length);
      return out;
    }
  }
}
