package onager.kernel.server;

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

  ServerVerticle(HttpServerOptions options, Dispatcher dispatcher, List<HttpServer> servers) {
    this.options = options;
    this.dispatcher = dispatcher;
    this.servers = servers;
  }

  @Override
  public Future<?> start() {
    HttpServer server = vertx.createHttpServer(options)
        .connectionHandler(connection -> ((ConnectionBase) connection).channel().pipeline()
            .addFirst(LingeringClose.NAME, new LingeringClose()))
        .requestHandler(dispatcher);
    servers.add(server);
    return server.listen();
  }
}
