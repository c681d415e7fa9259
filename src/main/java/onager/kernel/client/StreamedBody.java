package onager.kernel.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import onager.kernel.vertx.VertxInternals;

/**
 * A body read as it goes out: an {@link InputStream}, or a sequence of strings
 * and byte arrays (a lazy seq is realised one item at a time). Either may block,
 * so a virtual thread reads it and writes each piece, waiting while the
 * connection's write queue is full: the server's pace sets the reading's, and
 * memory holds a queue's worth. Sent chunked unless the request gives a
 * Content-Length. It can be sent once: a redirect that keeps the body, or a
 * retry, is not followed.
 */
final class StreamedBody implements RequestBody {
  private static final int PIECE = 64 * 1024;

  private final InputStream in;
  private final Iterable<?> items;

  private StreamedBody(InputStream in, Iterable<?> items) {
    this.in = in;
    this.items = items;
  }

  static StreamedBody of(InputStream in) {
    return new StreamedBody(in, null);
  }

  static StreamedBody of(Iterable<?> items) {
    return new StreamedBody(null, items);
  }

  @Override
  public boolean repeatable() {
    return false;
  }

  // Set on the request's context, read by the uploading thread.
  private volatile Throwable failure;
  private volatile CompletableFuture<Void> drained;

  @Override
  public Future<HttpClientResponse> send(HttpClientRequest request, Vertx vertx) {
    if (!request.headers().contains(HttpHeaders.CONTENT_LENGTH)) request.setChunked(true);
    Future<HttpClientResponse> response = request.response();
    request.exceptionHandler(this::failed);
    request.drainHandler(v -> wake());
    response.onFailure(this::failed);
    Thread.ofVirtual().name("onager-client-upload").start(() -> upload(request));
    return response;
  }

  private void failed(Throwable t) {
    if (failure == null) failure = t;
    wake();
  }

  private void wake() {
    CompletableFuture<Void> d = drained;
    if (d != null) d.complete(null);
  }

  private void upload(HttpClientRequest request) {
    try {
      if (in != null) {
        byte[] piece = new byte[PIECE];
        int n;
        while (failure == null && (n = in.read(piece)) >= 0) {
          if (n > 0) {
            // Copied once, into the pooled memory the socket writes from: a heap buffer would be
            // copied there again as it is written, and leave a piece of garbage behind.
            ByteBuf pooled = ByteBufAllocator.DEFAULT.directBuffer(n).writeBytes(piece, 0, n);
            write(request, VertxInternals.buffer(pooled), pooled);
          }
        }
      } else {
        Iterator<?> it = items.iterator();
        while (failure == null && it.hasNext()) write(request, piece(it.next()), null);
      }
      if (failure == null) request.end();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      request.reset(0, e);
    } catch (Exception e) {
      request.reset(0, new RequestBodyException(e));
    } finally {
      if (in != null) {
        try {
          in.close();
        } catch (IOException ignored) {
          // The body was read, or failed already: a close that fails changes neither.
        }
      }
    }
  }

  private static Buffer piece(Object item) {
    if (item instanceof byte[] b) return Buffer.buffer(b);
    if (item instanceof String s) return Buffer.buffer(s.getBytes(StandardCharsets.UTF_8));
    throw new IllegalArgumentException("a body sequence holds strings and byte arrays, not "
        + (item == null ? "nil" : item.getClass().getName()));
  }

  // Writes one piece, then waits while the connection has more queued than it takes. pooled, when
  // not null, is the piece's memory, released once the piece is written or has failed.
  private void write(HttpClientRequest request, Buffer piece, ByteBuf pooled)
      throws InterruptedException, ExecutionException {
    Future<Void> written;
    try {
      written = request.write(piece);
    } catch (RuntimeException e) {
      if (pooled != null) pooled.release();
      throw e;
    }
    if (pooled != null) written.onComplete(ignored -> pooled.release());
    while (failure == null && request.writeQueueFull()) {
      CompletableFuture<Void> d = new CompletableFuture<>();
      drained = d;
      // The drain may have come between the check and the wait's setting up.
      if (failure != null || !request.writeQueueFull()) break;
      d.get();
    }
  }
}
