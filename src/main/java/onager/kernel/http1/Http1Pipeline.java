package onager.kernel.http1;

import io.netty.channel.ChannelPipeline;
import io.vertx.core.http.Http1ServerConfig;

/** Puts Onager's HTTP/1.x handlers into a connection's pipeline as Vert.x built it. */
public final class Http1Pipeline {
  private Http1Pipeline() {}

  // Vert.x's name for the handler that turns HTTP objects into its requests.
  private static final String VERTX_HANDLER = "handler";

  /**
   * Replaces Vert.x's request decoder with a {@link StrictRequestDecoder} and puts a
   * {@link ConnectionGuard} in front of Vert.x. Call from the server's connection
   * handler, which runs before the connection reads its first byte.
   *
   * @param shortcut answers plain requests without Vert.x (see {@link Shortcut}); may be null
   */
  public static void install(ChannelPipeline pipeline, Http1ServerConfig config, Http1Limits limits,
                             Shortcut shortcut) {
    ConnectionGuard guard = new ConnectionGuard(limits, shortcut);
    pipeline.replace(StrictRequestDecoder.NAME, StrictRequestDecoder.NAME,
        new StrictRequestDecoder(config, limits.maxHeaderCount(), guard));
    pipeline.addBefore(VERTX_HANDLER, ConnectionGuard.NAME, guard);
  }
}
