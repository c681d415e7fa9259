package onager.kernel.client;

import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import java.io.IOException;
import onager.kernel.request.BodyFlow;

/**
 * How a streamed response body ({@code :as :stream}) holds back the server: the
 * response is paused while the reader is behind, and the exchange is reset when
 * the reader closes the stream early or the body goes past its limit, so that
 * an unread download does not go on arriving.
 */
final class ResponseFlow implements BodyFlow {
  private final HttpClientRequest request;
  private final HttpClientResponse response;

  ResponseFlow(HttpClientRequest request, HttpClientResponse response) {
    this.request = request;
    this.response = response;
  }

  @Override
  public void pauseBody() {
    response.pause();
  }

  @Override
  public void resumeBody() {
    response.resume();
  }

  @Override
  public void sendContinue() {
    // The client never waits for a 100 Continue.
  }

  @Override
  public void abortBody() {
    // What Vert.x holds for a paused response is not released when the exchange is reset:
    // resumed first, it reaches the body, which drops and releases it.
    response.resume();
    request.reset();
  }

  @Override
  public IOException tooLarge(long limit) {
    return new IOException("the response body is larger than :max-body (" + limit + " bytes)");
  }

  @Override
  public boolean abortsWhenClosedEarly() {
    return true;
  }
}
