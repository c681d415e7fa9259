package onager.kernel.http2;

import io.netty.channel.ChannelPipeline;
import onager.kernel.exchange.Dispatcher;
import onager.kernel.exchange.VirtualStarts;
import onager.kernel.limits.RequestTimeouts;

/**
 * Makes a connection's pipeline an HTTP/2 one: the HTTP/1.x handlers Vert.x
 * put there (and Onager's, if it had installed them) go, and Netty's HTTP/2
 * connection handler with Onager's {@link H2Connection} comes in their place.
 * No child channels: each stream is an {@link H2Stream} of the one connection.
 */
public final class Http2Pipeline {
  private Http2Pipeline() {}

  // Vert.x's HTTP/1.x handlers, and the names Onager's HTTP/1.x pipeline gives its own.
  private static final String[] HTTP1 = {
      "httpDecoder", "httpEncoder", "handler", "onager-http1", "onager-lingering-close", "chunkedWriter"
  };

  /**
   * Installs HTTP/2 on a connection whose next bytes are the client's
   * connection preface (RFC 9113 §3.4): by prior knowledge on clear text, or
   * after ALPN chose "h2" (RFC 7301). On the channel's event loop.
   */
  public static void install(ChannelPipeline pipeline, Http2Limits limits, Dispatcher server, VirtualStarts starts,
                             RequestTimeouts timeouts) {
    connection(pipeline, limits, server, starts, timeouts);
  }

  static H2Handler connection(ChannelPipeline pipeline, Http2Limits limits, Dispatcher server, VirtualStarts starts,
                              RequestTimeouts timeouts) {
    for (String name : HTTP1) {
      if (pipeline.get(name) != null) pipeline.remove(name);
    }
    H2Handler handler = new H2Handler.Builder(new H2Connection(server, starts, timeouts, limits), limits).make();
    pipeline.addLast(H2Handler.NAME, handler);
    return handler;
  }
}
