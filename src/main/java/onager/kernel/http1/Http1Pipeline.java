package onager.kernel.http1;

import io.netty.channel.ChannelPipeline;
import io.vertx.core.http.Http1ServerConfig;
import onager.kernel.exchange.Dispatcher;
import onager.kernel.exchange.VirtualStarts;
import onager.kernel.limits.RequestTimeouts;

/**
 * Makes a connection's pipeline, as Vert.x built it, Onager's: the strict
 * decoder in place of Vert.x's, an {@link Http1Connection} in place of Vert.x's
 * connection, and the {@link LingeringClose} in front of both. Vert.x keeps its
 * response encoder, which writes its own kind of headers in one pass.
 */
public final class Http1Pipeline {
  private Http1Pipeline() {}

  // Vert.x's names for its decoder and for the handler that turns HTTP objects into its requests.
  private static final String DECODER = "httpDecoder";
  private static final String VERTX_HANDLER = "handler";

  /**
   * Installs Onager's handlers. Call from the server's connection handler, which
   * runs before the connection reads its first byte.
   */
  public static void install(ChannelPipeline pipeline, Http1ServerConfig config, Http1Limits limits,
                             Dispatcher server, VirtualStarts starts, RequestTimeouts timeouts) {
    install(pipeline, config, limits, server, starts, timeouts, null);
  }

  /** As above; {@code upgrade} takes the requests that ask to switch protocols (null: none may). */
  public static void install(ChannelPipeline pipeline, Http1ServerConfig config, Http1Limits limits,
                             Dispatcher server, VirtualStarts starts, RequestTimeouts timeouts, Upgrade upgrade) {
    Http1Connection connection = new Http1Connection(server, starts, timeouts, limits, upgrade);
    pipeline.addFirst(LingeringClose.NAME, new LingeringClose());
    pipeline.replace(DECODER, DECODER, new StrictRequestDecoder(config, limits.maxHeaderCount(), connection));
    pipeline.replace(VERTX_HANDLER, Http1Connection.NAME, connection);
  }
}
