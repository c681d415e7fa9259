package onager.kernel.client;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;

/** A request's body as it goes out: sent whole, from a file, or streamed as it is read. */
interface RequestBody {
  /** True when it can be sent again: for a redirect that keeps the body (307, 308), or a retry. */
  boolean repeatable();

  /** Sends {@code request} with this body; the response's future. On the request's context. */
  Future<HttpClientResponse> send(HttpClientRequest request, Vertx vertx);

  /** No body. */
  RequestBody NONE = new RequestBody() {
    @Override
    public boolean repeatable() {
      return true;
    }

    @Override
    public Future<HttpClientResponse> send(HttpClientRequest request, Vertx vertx) {
      return request.send();
    }
  };
}
