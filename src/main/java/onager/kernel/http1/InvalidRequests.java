package onager.kernel.http1;

import io.netty.handler.codec.PrematureChannelClosureException;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import onager.kernel.log.Logs;
import onager.kernel.response.ResponseWriter;

/**
 * Answers the requests the decoder could not read: 414 for a request line too
 * long, 431 for a header section too large, the status a
 * {@link RejectedRequestException} carries, 400 for anything else; then the
 * connection closes, because nothing after a bad request can be trusted to
 * start where the client meant. Vert.x calls this in request order, after the
 * responses to the requests before it.
 */
public final class InvalidRequests implements Handler<HttpServerRequest> {

  private final CharSequence serverHeader;

  public InvalidRequests(CharSequence serverHeader) {
    this.serverHeader = serverHeader;
  }

  @Override
  public void handle(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    if (cause instanceof PrematureChannelClosureException) {
      request.connection().close();
      return;
    }
    int status = statusFor(cause);
    if (Logs.CLIENT.isDebugEnabled()) {
      Logs.CLIENT.debug("{}: {} (from {})", status, cause == null ? "?" : cause.getMessage(), request.remoteAddress());
    }
    ResponseWriter.endError(request.response(), status, serverHeader, true)
        .onComplete(ar -> request.connection().close());
  }

  static int statusFor(Throwable cause) {
    if (cause instanceof RejectedRequestException r) return r.status();
    if (cause instanceof TooLongHttpLineException) return 414;
    if (cause instanceof TooLongHttpHeaderException) return 431;
    return 400;
  }
}
