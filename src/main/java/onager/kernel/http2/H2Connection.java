package onager.kernel.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Flags;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2LocalFlowController;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.ssl.SslHandler;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import onager.kernel.exchange.Dispatcher;
import onager.kernel.exchange.Exchange;
import onager.kernel.exchange.VirtualStarts;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.log.Logs;

/**
 * One HTTP/2 connection's requests: Netty's {@link H2Handler} reads and writes
 * the frames, and tells this listener of them. Each request stream becomes an
 * {@link H2Stream}, whose {@link Exchange} goes to the {@link Dispatcher} as an
 * HTTP/1.1 request's does.
 *
 * <p>The requests without a body that one read brings and whose sync handlers
 * run in the same place start together at the end of the read (the
 * dispatcher's batch), and what they answer is flushed once. Streams are
 * independent: none waits for another's answer (RFC 9113 §5).
 *
 * <p>Writes are flushed at the end of the read that caused them, or else by one
 * task on the event loop after the answers that came in the meantime. All
 * methods run on the event loop.
 */
final class H2Connection extends Http2ConnectionAdapter implements Http2FrameListener {
  private static final long CONTROL_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Dispatcher server;
  private final VirtualStarts starts;
  // Null when :request-timeout-ms is 0.
  private final RequestTimeouts timeouts;
  final Http2Limits limits;

  private ChannelHandlerContext ctx;
  private H2Handler handler;
  Http2ConnectionEncoder encoder;
  private Http2Connection connection;
  private Http2Connection.PropertyKey key;
  private H2Clock clock;
  // The header blocks the client opens, for the header timeout; null when :header-timeout-ms is 0.
  final HeaderBlocks blocks;
  boolean secure;

  boolean reading;
  private boolean flushScheduled;
  private final Runnable flushTask = this::flushNow;
  private boolean ended;

  // The exchanges of this read that start together at its end.
  private Exchange[] batch = new Exchange[16];
  private int batched;

  // Control frames in the current second, for the flood limit.
  private long controlSince;
  private int controlFrames;

  H2Connection(Dispatcher server, VirtualStarts starts, RequestTimeouts timeouts, Http2Limits limits) {
    this.server = server;
    this.starts = starts;
    this.timeouts = timeouts;
    this.limits = limits;
    this.blocks = limits.headerTimeoutMs() > 0 ? new HeaderBlocks() : null;
  }

  void attach(ChannelHandlerContext ctx, H2Handler handler) {
    this.ctx = ctx;
    this.handler = handler;
    this.encoder = handler.encoder();
    this.connection = handler.connection();
    this.key = connection.newKey();
    this.secure = ctx.pipeline().get(SslHandler.class) != null;
    connection.addListener(this);
    int more = limits.connectionWindowSize() - limits.initialWindowSize();
    if (more > 0) {
      // The connection's window is RFC 9113's 65535 until told otherwise (§6.9.2), whatever the
      // streams' are: without more, one stream's unread body would hold back all the others.
      try {
        Http2LocalFlowController flow = handler.decoder().flowController();
        flow.incrementWindowSize(connection.connectionStream(), more);
      } catch (Http2Exception e) {
        throw new IllegalStateException(e);
      }
    }
    clock = new H2Clock(this, limits);
    clock.start(ctx);
    flushSoon();
  }

  Channel channel() {
    return ctx.channel();
  }

  ChannelHandlerContext ctx() {
    return ctx;
  }

  Http2Connection connection() {
    return connection;
  }

  H2Stream streamOf(Http2Stream s) {
    return s == null ? null : s.getProperty(key);
  }

  // ---- flushing ----

  /** Flushes what was written, now or once the current read or task is done. */
  void flushSoon() {
    if (reading || flushScheduled || ended) return;
    flushScheduled = true;
    ctx.executor().execute(flushTask);
  }

  private void flushNow() {
    flushScheduled = false;
    if (!ended) handler.flush(ctx);
  }

  void readComplete() {
    startBatch();
    reading = false;
  }

  // ---- requests ----

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
                            boolean endOfStream) throws Http2Exception {
    Http2Stream stream = connection.stream(streamId);
    if (stream == null) return;
    H2Stream known = streamOf(stream);
    if (known != null) {
      // Trailers: they end the body (RFC 9113 §8.1); Ring has no place for their fields.
      if (!endOfStream) {
        throw Http2Exception.streamError(streamId, Http2Error.PROTOCOL_ERROR, "trailers without END_STREAM");
      }
      known.bodyEnd();
      return;
    }
    clock.active();
    opened(streamId);
    HttpRequest request = H2Request.of(streamId, headers);
    H2Stream h = new H2Stream(this, stream, endOfStream);
    stream.setProperty(key, h);
    Exchange x = new Exchange(server, h, request, true, !endOfStream, starts, timeouts);
    h.exchange = x;
    if (headers.size() > limits.maxHeaderCount() + 4) {
      x.refuse(431, "more header fields than :max-header-count");
      return;
    }
    if (!server.admit(x)) return;
    if (server.batches(x)) {
      if (batched > 0 && !server.batchesWith(batch[0], x)) startBatch();
      if (batched == batch.length) batch = Arrays.copyOf(batch, batched * 2);
      batch[batched++] = x;
    } else {
      server.start(x);
    }
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                            short weight, boolean exclusive, int padding, boolean endOfStream)
      throws Http2Exception {
    onHeadersRead(ctx, streamId, headers, padding, endOfStream);
  }

  /**
   * The HTTP/1.1 request that upgraded the connection is its stream 1, half
   * closed already (RFC 7540 §3.2): it is answered here, as HTTP/2.
   */
  void upgraded(HttpRequest request) {
    Http2Stream stream = connection.stream(1);
    if (stream == null) return;
    opened(1);
    HttpRequest asked = H2Request.ofUpgrade(request);
    H2Stream h = new H2Stream(this, stream, true);
    stream.setProperty(key, h);
    Exchange x = new Exchange(server, h, asked, true, false, starts, timeouts);
    h.exchange = x;
    if (server.admit(x)) server.start(x);
    flushSoon();
  }

  private void startBatch() {
    int n = batched;
    if (n == 0) return;
    batched = 0;
    try {
      server.startAll(batch, n);
    } finally {
      Arrays.fill(batch, 0, n, null);
    }
  }

  @Override
  public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    H2Stream h = streamOf(connection.stream(streamId));
    if (h == null) return data.readableBytes() + padding;
    clock.active();
    return h.data(data, endOfStream) + padding;
  }

  /** Returns {@code n} bytes of {@code stream}'s window: its handler's reader took them. */
  void consumed(Http2Stream stream, int n) {
    if (n <= 0 || ended || stream.state() == Http2Stream.State.CLOSED) return;
    try {
      handler.decoder().flowController().consumeBytes(stream, n);
      flushSoon();
    } catch (Http2Exception e) {
      handler.onError(ctx, false, e);
    }
  }

  // ---- streams ending ----

  @Override
  public void onStreamClosed(Http2Stream stream) {
    // The idle timeout counts from the last stream's end, as from an HTTP/1.1 connection's last answer.
    clock.active();
    H2Stream h = streamOf(stream);
    if (h != null) h.closed();
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) {
    resetSeen(streamId);
    if (Logs.CLIENT.isDebugEnabled()) {
      H2Stream h = streamOf(connection.stream(streamId));
      if (h != null && !h.answered()) {
        HttpRequest r = h.exchange.request();
        Logs.CLIENT.debug("{} {}: {} reset the stream ({}) before the response was sent", r.method(), r.uri(),
            channel().remoteAddress(), Http2Error.valueOf(errorCode));
      }
    }
  }

  /** Resets {@code stream} with {@code error}: it cannot be completed, or its client is not served further. */
  void reset(Http2Stream stream, Http2Error error) {
    if (ended || stream.state() == Http2Stream.State.CLOSED) return;
    resetSeen(stream.id());
    handler.resetStream(ctx, stream.id(), error.code(), ctx.newPromise());
    flushSoon();
  }

  // ---- frames on streams that are gone ----

  /**
   * What a stream error Netty found in a client's frame means by RFC 9113 §5.1:
   * a frame on a stream the client had ended is STREAM_CLOSED; one on a stream
   * that closed without a reset is a connection error of that type (a stream
   * reset may still see frames that crossed the reset, which are the stream's
   * own error); one that would open a stream below one already opened, never
   * used, is a connection error of type PROTOCOL_ERROR (§5.1.1).
   */
  Http2Exception asReceived(Http2Exception.StreamException error) {
    int id = error.streamId();
    Http2Stream stream = connection.stream(id);
    if (stream != null) {
      Http2Stream.State state = stream.state();
      // Its request came whole (an error in the request itself is that request's own).
      boolean remoteEnded = streamOf(stream) != null
          && (state == Http2Stream.State.HALF_CLOSED_REMOTE || state == Http2Stream.State.CLOSED);
      return remoteEnded && error.error() == Http2Error.PROTOCOL_ERROR
          ? Http2Exception.streamError(id, Http2Error.STREAM_CLOSED, "a frame on stream %d after its END_STREAM", id)
          : error;
    }
    if (error.error() != Http2Error.STREAM_CLOSED || wasReset(id)) return error;
    if (neverOpened(id)) {
      return Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR, "stream %d opened after a higher one", id);
    }
    return Http2Exception.connectionError(Http2Error.STREAM_CLOSED, "a frame on stream %d after it closed", id);
  }

  // The streams reset lately, either way: frames the client sent before it learnt of a reset are
  // no error of the connection's.
  private final int[] resets = new int[256];
  private int resetAt;
  // Ranges of stream ids the client skipped, which are closed without ever having been open.
  private final int[] skipped = new int[64];
  private int skippedAt;
  private int lastOpened = -1;

  void resetSeen(int id) {
    resets[resetAt] = id;
    resetAt = (resetAt + 1) % resets.length;
  }

  private boolean wasReset(int id) {
    for (int r : resets) {
      if (r == id) return true;
    }
    return false;
  }

  private void opened(int id) {
    if (lastOpened >= 0 && id > lastOpened + 2) {
      skipped[skippedAt] = lastOpened + 2;
      skipped[skippedAt + 1] = id - 2;
      skippedAt = (skippedAt + 2) % skipped.length;
    } else if (lastOpened < 0 && id > 1) {
      skipped[skippedAt] = 1;
      skipped[skippedAt + 1] = id - 2;
      skippedAt = (skippedAt + 2) % skipped.length;
    }
    lastOpened = id;
  }

  private boolean neverOpened(int id) {
    for (int i = 0; i < skipped.length; i += 2) {
      if (skipped[i] != 0 && id >= skipped[i] && id <= skipped[i + 1]) return true;
    }
    return false;
  }

  // ---- control frames ----

  // Legitimate clients send a few of these; a flood of them costs the server an answer or some
  // work each (RFC 9113 §10.5).
  private void controlFrame() throws Http2Exception {
    long now = System.nanoTime();
    if (now - controlSince > CONTROL_WINDOW_NANOS) {
      controlSince = now;
      controlFrames = 0;
    }
    if (++controlFrames > limits.maxControlFramesPerSecond()) {
      Logs.CLIENT.debug("{}: over :http2-max-control-frames-per-second; GOAWAY", channel().remoteAddress());
      throw Http2Exception.connectionError(Http2Error.ENHANCE_YOUR_CALM, "too many control frames");
    }
  }

  @Override
  public void onPriorityRead(ChannelHandlerContext ctx, int streamId, int streamDependency, short weight,
                             boolean exclusive) throws Http2Exception {
    controlFrame();
  }

  @Override
  public void onSettingsRead(ChannelHandlerContext ctx, Http2Settings settings) throws Http2Exception {
    controlFrame();
  }

  @Override
  public void onPingRead(ChannelHandlerContext ctx, long data) throws Http2Exception {
    controlFrame();
  }

  @Override
  public void onSettingsAckRead(ChannelHandlerContext ctx) {}

  @Override
  public void onPingAckRead(ChannelHandlerContext ctx, long data) {}

  @Override
  public void onPushPromiseRead(ChannelHandlerContext ctx, int streamId, int promisedStreamId, Http2Headers headers,
                                int padding) throws Http2Exception {
    // Netty refuses a client's PUSH_PROMISE before this (RFC 9113 §8.4).
    throw Http2Exception.connectionError(Http2Error.PROTOCOL_ERROR, "a client cannot push");
  }

  @Override
  public void onGoAwayRead(ChannelHandlerContext ctx, int lastStreamId, long errorCode, ByteBuf debugData) {}

  @Override
  public void onWindowUpdateRead(ChannelHandlerContext ctx, int streamId, int windowSizeIncrement) {
    if (streamId == 0) {
      clock.windowMoved();
    } else {
      H2Stream h = streamOf(connection.stream(streamId));
      if (h != null) h.windowMoved = true;
    }
  }

  @Override
  public void onUnknownFrame(ChannelHandlerContext ctx, byte frameType, int streamId, Http2Flags flags,
                             ByteBuf payload) {}

  // ---- the connection's end ----

  /** The server stops: GOAWAY, the open streams finish, then the connection closes (Netty's graceful close). */
  void shutdown() {
    startBatch();
    if (!ended) ctx.channel().close();
  }

  /** Closes the connection after a GOAWAY; streams still open get up to the shutdown timeout. */
  void closeGracefully() {
    if (!ended) ctx.channel().close();
  }

  /**
   * A header block stayed open for the header timeout: GOAWAY and close. No other
   * frame of the client's can be read before the block ends (RFC 9113 §6.10), and
   * the block's HPACK state cannot be dropped, so the connection cannot go on.
   */
  void headerTimeout() {
    if (ended) return;
    clock.stop();
    handler.onError(ctx, false, Http2Exception.connectionError(Http2Error.ENHANCE_YOUR_CALM,
        "a header block took longer than :header-timeout-ms"));
    flushSoon();
  }

  /** Closes now, without waiting for open streams. */
  void closeNow() {
    if (ended) return;
    ended = true;
    clock.stop();
    ctx.close();
  }

  boolean ended() {
    return ended;
  }

  void inactive() {
    ended = true;
    if (clock != null) clock.stop();
    Arrays.fill(batch, 0, batched, null);
    batched = 0;
  }

  void writeData(Http2Stream stream, ByteBuf data, boolean endStream, ChannelPromise promise) {
    encoder.writeData(ctx, stream.id(), data, 0, endStream, promise.isVoid() ? ctx.newPromise() : promise);
  }

  void writeHeaders(Http2Stream stream, Http2Headers headers, boolean endStream, ChannelPromise promise) {
    encoder.writeHeaders(ctx, stream.id(), headers, 0, endStream, promise.isVoid() ? ctx.newPromise() : promise);
  }
}
