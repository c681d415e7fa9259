package onager.kernel.response;

import clojure.lang.IFn;
import clojure.lang.ISeq;
import clojure.lang.RT;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.file.Path;

/**
 * Writes the body types that may block while they produce bytes (InputStream,
 * ISeq, and user types through the protocol fallback) to a {@link ResponseStream}.
 * The others are "direct": the event loop sends them without waiting on anything.
 */
public final class BodyStreamer {
  private BodyStreamer() {}

  public static boolean isDirect(Object body) {
    return body == null
        || body instanceof String
        || body instanceof byte[]
        || body instanceof File
        || body instanceof Path
        || body instanceof ByteBuffer;
  }

  /** True for the kinds whose writing ends when this class returns; others may write later (async). */
  public static boolean isBuiltIn(Object body) {
    return body instanceof InputStream || body instanceof ISeq;
  }

  /**
   * Writes {@code body}: an InputStream is copied and closed; an ISeq is written
   * element by element (strings in {@code charset}, byte arrays as they are,
   * anything else as its {@code str}) with a flush after each, as Ring 1.15 does
   * so that server-sent events reach the client as they are made; anything else
   * goes to {@code fallback}, the user-space protocol dispatch, with
   * {@code response}, the response map (null for the built-in kinds).
   *
   * <p>Pass the body so that no caller frame keeps it: a seq is walked here with
   * nothing else holding its head, so a lazy seq of any length streams in bounded
   * memory, and the caller must not hold the response map either (it holds the
   * head too).
   */
  public static void write(Object body, Object response, ResponseStream out, Charset charset, IFn fallback)
      throws IOException {
    if (body instanceof InputStream in) {
      try (in) {
        out.writeAll(in);
      }
    } else if (body instanceof ISeq) {
      ISeq s = RT.seq(body);
      body = null; // the head must become garbage as the walk moves on
      for (; s != null; s = s.next()) {
        Object chunk = s.first();
        if (chunk instanceof byte[] bytes) {
          out.write(bytes);
        } else if (chunk != null) {
          out.write(chunk.toString().getBytes(charset));
        }
        out.flush();
      }
    } else {
      fallback.invoke(body, response, out);
    }
  }
}
