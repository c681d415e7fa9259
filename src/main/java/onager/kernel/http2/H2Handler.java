package onager.kernel.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.AbstractHttp2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Settings;
import onager.kernel.vertx.VertxInternals;

/**
 * Netty's HTTP/2 connection (frames, HPACK, flow control, stream states) with
 * Onager's {@link H2Connection} as its frame listener, told of the pipeline
 * events the listener needs: the end of a read (start the batch, flush once),
 * the server's shutdown (GOAWAY), the channel's end.
 */
final class H2Handler extends Http2ConnectionHandler {
  static final String NAME = "onager-http2";

  private final H2Connection connection;

  private H2Handler(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder, Http2Settings settings,
                    H2Connection connection) {
    super(decoder, encoder, settings);
    this.connection = connection;
  }

  H2Connection listener() {
    return connection;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) throws Exception {
    super.handlerAdded(ctx);
    connection.attach(ctx, this);
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
    connection.reading = true;
    HeaderBlocks blocks = connection.blocks;
    if (blocks != null && msg instanceof ByteBuf bytes) blocks.read(bytes);
    super.channelRead(ctx, msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
    connection.readComplete();
    // Netty's flushes what the read's frames and handlers wrote, once.
    super.channelReadComplete(ctx);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
    if (VertxInternals.isShutdown(event)) {
      connection.shutdown();
    } else {
      super.userEventTriggered(ctx, event);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    connection.inactive();
    super.channelInactive(ctx);
  }

  @Override
  public void handlerRemoved0(ChannelHandlerContext ctx) throws Exception {
    connection.inactive();
    super.handlerRemoved0(ctx);
  }

  @Override
  protected void onStreamError(ChannelHandlerContext ctx, boolean outbound, Throwable cause,
                               Http2Exception.StreamException error) {
    Http2Exception meant = outbound ? error : connection.asReceived(error);
    if (meant instanceof Http2Exception.StreamException stream) {
      connection.resetSeen(stream.streamId());
      super.onStreamError(ctx, outbound, cause, stream);
    } else {
      onConnectionError(ctx, outbound, meant, meant);
    }
  }

  /** Builds the handler with the limits' settings and Netty's flood protections. */
  static final class Builder extends AbstractHttp2ConnectionHandlerBuilder<H2Handler, Builder> {
    private final H2Connection connection;

    Builder(H2Connection connection, Http2Limits limits) {
      this.connection = connection;
      server(true);
      frameListener(connection);
      initialSettings(new Http2Settings()
          .maxConcurrentStreams(limits.maxConcurrentStreams())
          .initialWindowSize(limits.initialWindowSize())
          .maxFrameSize(limits.maxFrameSize())
          .headerTableSize(limits.headerTableSize())
          .maxHeaderListSize(limits.maxHeaderListSize()));
      gracefulShutdownTimeoutMillis(limits.shutdownTimeoutMs());
      // Rapid reset (CVE-2023-44487), and resets a client provokes with bad frames (CVE-2025-55163).
      decoderEnforceMaxRstFramesPerWindow(limits.maxResets(), limits.resetWindowSeconds());
      encoderEnforceMaxRstFramesPerWindow(limits.maxResets(), limits.resetWindowSeconds());
      // CONTINUATION flood: many small frames in one header block.
      decoderEnforceMaxSmallContinuationFrames(limits.maxSmallContinuations());
      decoderEnforceMaxConsecutiveEmptyDataFrames(limits.maxEmptyDataFrames());
      // A client that sends SETTINGS or PING and never reads the acknowledgements.
      encoderEnforceMaxQueuedControlFrames(limits.maxQueuedControlFrames());
      validateHeaders(true);
    }

    H2Handler make() {
      return build();
    }

    @Override
    protected H2Handler build(Http2ConnectionDecoder decoder, Http2ConnectionEncoder encoder,
                              Http2Settings settings) {
      return new H2Handler(decoder, encoder, settings, connection);
    }
  }
}
