package onager.kernel.http2;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultFileRegion;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.ReferenceCountUtil;
import java.nio.channels.ClosedChannelException;
import onager.kernel.exchange.Exchange;
import onager.kernel.exchange.RequestStream;
import onager.kernel.request.ClientAbortException;

/**
 * One HTTP/2 request stream: the protocol side of its {@link Exchange}. The
 * request body's DATA go to the exchange as they come, and the window they took
 * is given back as the handler's reader keeps up: while the reader is behind
 * ({@link #pauseBody}) the bytes that arrive are not returned, so the client
 * can send no more than the stream's window ahead of the reader. The response
 * goes out as HEADERS and DATA through Netty's encoder, whose flow controller
 * holds back what the client's window has no room for; the write of a part
 * completes when it has left, which is what holds back a streamed body's source
 * (see {@code response.ResponseStream}). All methods run on the event loop.
 */
final class H2Stream implements RequestStream, ChannelFutureListener {
  private final H2Connection connection;
  final Http2Stream stream;
  Exchange exchange;

  // The request body ended (END_STREAM came); the response ended; the stream closed.
  private boolean bodyEnded;
  private boolean done;
  private boolean closed;
  private boolean headSent;
  private boolean continued;
  // The reader is behind: the bytes arriving are returned once it catches up.
  private boolean paused;
  private int unconsumed;
  private FileSender file;

  // For the clock: body bytes came; the client granted window; since when the body or the writes stall.
  boolean bodyMoved;
  boolean windowMoved;
  long bodyQuietSince;
  long writeQuietSince;

  H2Stream(H2Connection connection, Http2Stream stream, boolean bodyEnded) {
    this.connection = connection;
    this.stream = stream;
    this.bodyEnded = bodyEnded;
  }

  // ---- RequestStream ----

  @Override
  public Channel channel() {
    return connection.channel();
  }

  @Override
  public boolean secure() {
    return connection.secure;
  }

  @Override
  public void answersReady() {
    HttpResponse answer = exchange.takeAnswer();
    if (answer == null) return;
    DefaultFileRegion region = exchange.takeAnswerFile();
    if (closed || done || connection.ended()) {
      ReferenceCountUtil.release(answer);
      if (region != null) region.release();
      return;
    }
    ByteBuf content = answer instanceof FullHttpResponse full ? full.content() : null;
    boolean bodyless = region == null && (content == null || !content.isReadable());
    headSent = true;
    if (bodyless) {
      ReferenceCountUtil.release(answer);
      connection.writeHeaders(stream, H2Heads.of(answer), true, endPromise());
      ended();
    } else if (region != null) {
      ReferenceCountUtil.release(answer);
      connection.writeHeaders(stream, H2Heads.of(answer), false, channel().voidPromise());
      file = new FileSender(connection, this, region);
      file.start();
    } else {
      connection.writeHeaders(stream, H2Heads.of(answer), false, channel().voidPromise());
      connection.writeData(stream, content, true, endPromise());
      ended();
    }
    connection.flushSoon();
  }

  @Override
  public void writePart(Exchange x, HttpObject part, ChannelPromise promise) {
    if (closed || done || connection.ended()) {
      ReferenceCountUtil.release(part);
      promise.tryFailure(new ClosedChannelException());
      return;
    }
    if (part instanceof HttpResponse head) {
      headSent = true;
      connection.writeHeaders(stream, H2Heads.of(head), false, promise);
    } else if (part instanceof LastHttpContent last) {
      connection.writeData(stream, last.content(), true, promise.isVoid() ? endPromise() : promise);
      if (!promise.isVoid()) promise.addListener(this);
      ended();
    } else if (part instanceof HttpContent content) {
      connection.writeData(stream, content.content(), false, promise);
    } else {
      ReferenceCountUtil.release(part);
      promise.trySuccess();
    }
    connection.flushSoon();
  }

  @Override
  public void pauseBody(Exchange x) {
    paused = true;
  }

  @Override
  public void resumeBody(Exchange x) {
    if (!paused) return;
    paused = false;
    int n = unconsumed;
    unconsumed = 0;
    connection.consumed(stream, n);
  }

  @Override
  public void sendContinue(Exchange x) {
    if (continued || headSent || closed || bodyEnded) return;
    continued = true;
    connection.writeHeaders(stream, H2Heads.status(100), false, channel().voidPromise());
    connection.flushSoon();
  }

  @Override
  public void abort(Exchange x) {
    // Nothing else tells the client that the response it has begun to get is not whole.
    if (headSent && !done) {
      done = true;
      connection.reset(stream, Http2Error.INTERNAL_ERROR);
    }
  }

  // ---- from the connection ----

  /** A DATA frame's bytes; returns how many of them go back to the window now. */
  int data(ByteBuf data, boolean endOfStream) {
    int n = data.readableBytes();
    bodyMoved = true;
    if (n > 0) exchange.bodyData(data.retain());
    int consumed = n;
    if (paused) {
      unconsumed += n;
      consumed = 0;
    }
    if (endOfStream) bodyEnd();
    return consumed;
  }

  void bodyEnd() {
    if (bodyEnded) return;
    bodyEnded = true;
    exchange.bodyEnd();
  }

  boolean receivingBody() {
    return !bodyEnded && !closed;
  }

  boolean paused() {
    return paused;
  }

  boolean answered() {
    return done;
  }

  boolean responding() {
    return headSent && !done;
  }

  /** The body stalled: the exchange answers 408 if it has not answered, and its reader learns why. */
  void bodyStalled() {
    exchange.refuse(408, "the request body stalled for :body-timeout-ms");
    exchange.bodyFailed(new ClientAbortException(408, "the request body stalled for :body-timeout-ms", null, true));
    if (!done) {
      done = true;
      connection.reset(stream, Http2Error.CANCEL);
    }
  }

  /** The client took none of the response for the idle timeout: the stream is reset, its source let go. */
  void writeStalled() {
    done = true;
    connection.reset(stream, Http2Error.CANCEL);
  }

  void closed() {
    if (closed) return;
    closed = true;
    if (!bodyEnded) {
      exchange.bodyFailed(new ClientAbortException(0, "the stream closed before the request body ended", null,
          true));
    }
    if (done) {
      exchange.streamDone();
    } else {
      exchange.streamClosed();
    }
    FileSender f = file;
    if (f != null) f.release();
  }

  /** The file body's last piece. */
  void lastFilePiece(ByteBuf piece) {
    connection.writeData(stream, piece, true, endPromise());
    ended();
  }

  // The last part is handed to the encoder.
  void ended() {
    done = true;
    file = null;
    exchange.ended();
  }

  // The last write's promise: once it is out, a request body still coming is not wanted.
  private ChannelPromise endPromise() {
    return bodyEnded ? channel().voidPromise() : channel().newPromise().addListener(this);
  }

  @Override
  public void operationComplete(ChannelFuture f) {
    // RFC 9113 §8.1: a server that answered before the request ended may ask the client to stop
    // sending it with RST_STREAM NO_ERROR.
    if (f.isSuccess() && !bodyEnded && !closed) connection.reset(stream, Http2Error.NO_ERROR);
  }
}
