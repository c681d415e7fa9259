package onager.kernel.client;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;

/** A body held whole (a string, bytes, a form, JSON): sent with its Content-Length, and again if need be. */
final class BufferBody implements RequestBody {
  private final Buffer bytes;

  BufferBody(Buffer bytes) {
    this.bytes = bytes;
  }

  @Override
  public boolean repeatable() {
    return true;
  }

  @Override
  public Future<HttpClientResponse> send(HttpClientRequest request, Vertx vertx) {
    return request.send(bytes);
  }
}
