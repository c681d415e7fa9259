package onager.kernel.http2;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Settings;
import java.util.Base64;
import java.util.List;
import onager.kernel.exchange.Dispatcher;
import onager.kernel.exchange.VirtualStarts;
import onager.kernel.http1.Upgrade;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.log.Logs;
import onager.kernel.vertx.VertxInternals;

/**
 * h2c by {@code Upgrade: h2c} (RFC 7540 §3.2): a request without a body that
 * asks for it, with one HTTP2-Settings field and both names in its Connection
 * field, is answered 101 Switching Protocols, and the connection goes on in
 * HTTP/2 with that request as stream 1. Off by default (the server's
 * {@code :h2c-upgrade?}): behind a reverse proxy that passes Upgrade on, it lets
 * a client open a connection through the proxy that the proxy no longer reads
 * (h2c smuggling).
 */
public final class H2cUpgrade implements Upgrade {
  private static final String H2C = "h2c";
  private static final String SETTINGS = "http2-settings";

  private final Http2Limits limits;
  private final Dispatcher server;
  private final VirtualStarts starts;
  private final RequestTimeouts timeouts;

  public H2cUpgrade(Http2Limits limits, Dispatcher server, VirtualStarts starts, RequestTimeouts timeouts) {
    this.limits = limits;
    this.server = server;
    this.starts = starts;
    this.timeouts = timeouts;
  }

  @Override
  public boolean upgrade(ChannelHandlerContext ctx, HttpRequest request) {
    HttpHeaders h = request.headers();
    List<String> settingsFields = h.getAll(SETTINGS);
    if (request.protocolVersion() != HttpVersion.HTTP_1_1 || !h.containsValue(HttpHeaderNames.UPGRADE, H2C, true)
        || settingsFields.size() != 1 || !h.containsValue(HttpHeaderNames.CONNECTION, SETTINGS, true)
        || !h.containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE, true)) {
      return false;
    }
    Http2Settings settings = settings(settingsFields.get(0));
    if (settings == null) return false;
    HttpHeaders switching = VertxInternals.newHeaders();
    switching.add(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
    switching.add(HttpHeaderNames.UPGRADE, H2C);
    ctx.writeAndFlush(new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS,
        Unpooled.EMPTY_BUFFER, switching, EmptyHttpHeaders.INSTANCE), ctx.voidPromise());
    H2Handler handler = Http2Pipeline.connection(ctx.pipeline(), limits, server, starts, timeouts);
    try {
      handler.onHttpServerUpgrade(settings);
    } catch (Http2Exception e) {
      Logs.CLIENT.debug("h2c upgrade from {} failed: {}", ctx.channel().remoteAddress(), e.getMessage());
      ctx.channel().close();
      return true;
    }
    handler.listener().upgraded(request);
    return true;
  }

  // The SETTINGS payload, base64url-encoded (RFC 7540 §3.2.1); null when it is not one.
  private static Http2Settings settings(String field) {
    byte[] payload;
    try {
      payload = Base64.getUrlDecoder().decode(field.trim().replace("=", ""));
    } catch (IllegalArgumentException e) {
      return null;
    }
    if (payload.length % 6 != 0) return null;
    Http2Settings settings = new Http2Settings();
    try {
      for (int i = 0; i < payload.length; i += 6) {
        char id = (char) (((payload[i] & 0xff) << 8) | (payload[i + 1] & 0xff));
        long value = ((long) (payload[i + 2] & 0xff) << 24) | ((payload[i + 3] & 0xff) << 16)
            | ((payload[i + 4] & 0xff) << 8) | (payload[i + 5] & 0xff);
        settings.put(id, Long.valueOf(value));
      }
    } catch (IllegalArgumentException e) {
      return null;
    }
    return settings;
  }
}
