package onager.kernel.tls;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import onager.kernel.log.Logs;
import onager.kernel.vertx.VertxInternals;

/**
 * Waits for a TLS connection's handshake, then installs the protocol the client
 * and the server agreed on by ALPN (RFC 7301): HTTP/2 when the server has it and
 * the client chose "h2", HTTP/1.1 otherwise, a client offering no ALPN included
 * (§3.1). A failed handshake is the client's problem: logged at debug, the
 * connection closed, nothing else touched.
 */
public final class Alpn extends ChannelInboundHandlerAdapter {
  public static final String NAME = "onager-alpn";

  private final Consumer<ChannelPipeline> http1;
  private final Consumer<ChannelPipeline> h2;
  // What arrived decrypted in the read that completed the handshake, for the protocol installed.
  private final List<Object> early = new ArrayList<>(1);
  private boolean failed;

  /**
   * {@code http1} installs HTTP/1.1 in a pipeline whose handshake is done;
   * {@code h2} installs HTTP/2, or is null while the server offers HTTP/1.1 only.
   */
  public Alpn(Consumer<ChannelPipeline> http1, Consumer<ChannelPipeline> h2) {
    this.http1 = http1;
    this.h2 = h2;
  }

  /** The protocols to offer in ALPN, the server's preference first (RFC 7301 §3.2). */
  public static List<String> protocols(boolean h2) {
    return h2 ? List.of(ApplicationProtocolNames.HTTP_2, ApplicationProtocolNames.HTTP_1_1)
        : List.of(ApplicationProtocolNames.HTTP_1_1);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    early.add(msg);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof SslHandshakeCompletionEvent done) {
      if (done.isSuccess()) {
        installProtocol(ctx);
      } else {
        fail(ctx, done.cause());
      }
    } else if (VertxInternals.isShutdown(event)) {
      // The server stops while the handshake is under way: no request has come, none will.
      ctx.close();
    } else {
      ctx.fireUserEventTriggered(event);
    }
  }

  private void installProtocol(ChannelHandlerContext ctx) {
    SslHandler tls = ctx.pipeline().get(SslHandler.class);
    String protocol = tls == null ? null : tls.applicationProtocol();
    if (h2 != null && ApplicationProtocolNames.HTTP_2.equals(protocol)) {
      h2.accept(ctx.pipeline());
    } else {
      http1.accept(ctx.pipeline());
    }
    ctx.pipeline().remove(this);
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (early.isEmpty()) return;
    for (Object msg : early) ctx.fireChannelRead(msg);
    early.clear();
    ctx.fireChannelReadComplete();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    fail(ctx, cause);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    for (Object msg : early) ReferenceCountUtil.release(msg);
    early.clear();
    ctx.fireChannelInactive();
  }

  // The handshake event and the exception that caused it both come: one log line.
  private void fail(ChannelHandlerContext ctx, Throwable cause) {
    if (!failed) {
      failed = true;
      Logs.CLIENT.debug("TLS handshake with {} failed: {}", ctx.channel().remoteAddress(),
          TlsFailure.reason(cause));
    }
    ctx.close();
  }
}
