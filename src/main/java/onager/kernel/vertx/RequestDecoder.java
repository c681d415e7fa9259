package onager.kernel.vertx;

import io.vertx.core.http.Http1ServerConfig;
import io.vertx.core.http.impl.http1.VertxHttpRequestDecoder;

/**
 * Vert.x's HTTP/1.x request decoder, which interns the common header names and
 * makes its requests' headers {@link VertxInternals#newHeaders the kind the
 * encoder writes in one pass}; the kernel's strict decoder builds on it.
 */
public abstract class RequestDecoder extends VertxHttpRequestDecoder {
  protected RequestDecoder(Http1ServerConfig config) {
    super(config);
  }
}
