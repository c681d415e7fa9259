package onager.kernel.server;

import io.netty.channel.ChannelPipeline;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.List;

/**
 * One instance per event loop: each listens on the same address, and Vert.x
 * spreads the accepted connections over them.
 */
final class ServerVerticle extends VerticleBase {
  private final HttpServerOptions options;
  private final Dispatcher dispatcher;
  private final List<HttpServer> servers;
  private final long idleTimeoutMs;

  ServerVerticle(HttpServerOptions options, Dispatcher dispatcher, List<HttpServer> servers, long idleTimeoutMs) {
    this.options = options;
    this.dispatcher = dispatcher;
    this.servers = servers;
    this.idleTimeoutMs = idleTimeoutMs;
  }

  @Override
  public Future<?> start() {
    HttpServer server = vertx.createHttpServer(options)
        .connectionHandler(connection -> {
          ChannelPipeline pipeline = ((ConnectionBase) connection).channel().pipeline();
          pipeline.addFirst(LingeringClose.NAME, new LingeringClose());
          if (idleTimeoutMs > 0) pipeline.addAfter(LingeringClose.NAME, IdleTimeout.NAME, new IdleTimeout(idleTimeoutMs));
        })
        .requestHandler(dispatcher);
    servers.add(server);
    return server.listen();
  }
}
