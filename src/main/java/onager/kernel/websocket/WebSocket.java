package onager.kernel.websocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.websocketx.BinaryWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PingWebSocketFrame;
import io.netty.handler.codec.http.websocketx.PongWebSocketFrame;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketCloseStatus;
import io.netty.handler.codec.http.websocketx.WebSocketFrame;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The server's end of one WebSocket, for the listener and anyone it hands the
 * socket to: every method may be called from any thread. Messages go out in the
 * order they were sent.
 */
public final class WebSocket {
  /** What {@link #sendAsync} tells when the message has gone, or could not go. */
  public interface Callback {
    void succeeded();

    void failed(Throwable cause);
  }

  // RFC 6455 §5.5: a control frame's payload is at most 125 bytes.
  private static final int MAX_CONTROL_PAYLOAD = 125;

  private final WebSocketConnection connection;
  private final Channel channel;
  // The connection's promise for writes no one waits on (WebSocketConnection says why).
  private final ChannelPromise unwatched;
  private final long writeTimeoutMs;
  private final String protocol;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition writable = lock.newCondition();
  // Bytes handed to the event loop by other threads and not yet written: they count against the
  // high-water mark as Netty counts its own hand-overs, so that a sender cannot outrun the loop.
  private final AtomicLong handedOver = new AtomicLong();
  private volatile int waiting;

  WebSocket(WebSocketConnection connection, Channel channel, ChannelPromise unwatched, long writeTimeoutMs,
            String protocol) {
    this.connection = connection;
    this.channel = channel;
    this.unwatched = unwatched;
    this.writeTimeoutMs = writeTimeoutMs;
    this.protocol = protocol;
  }

  /**
   * Sends {@code message}: a CharSequence as text, a ByteBuffer or byte[] as
   * binary. Off the event loop it waits while more than the high-water mark of
   * bytes wait to be sent. Throws {@link Closed} (an IOException) when the
   * socket is closed, or closes within the wait (the peer took nothing for
   * the write timeout).
   */
  public void send(Object message) throws IOException {
    if (!connection.sending()) throw closed();
    write(frame(message));
    if (!channel.eventLoop().inEventLoop() && full()) awaitWritable();
  }

  /**
   * Sends {@code message} (as {@link #send}) without waiting; {@code callback}
   * learns, on the event loop, whether it went out.
   */
  public void sendAsync(Object message, Callback callback) {
    if (!connection.sending()) {
      callback.failed(closed());
      return;
    }
    WebSocketFrame frame;
    try {
      frame = frame(message);
    } catch (IllegalArgumentException e) {
      callback.failed(e);
      return;
    }
    if (channel.eventLoop().inEventLoop()) {
      writeTelling(frame, callback);
      return;
    }
    try {
      channel.eventLoop().execute(() -> writeTelling(frame, callback));
    } catch (RejectedExecutionException stopped) {
      frame.release();
      callback.failed(closed());
    }
  }

  private void writeTelling(WebSocketFrame frame, Callback callback) {
    channel.writeAndFlush(frame).addListener(done -> {
      if (done.isSuccess()) {
        callback.succeeded();
      } else {
        callback.failed(done.cause());
      }
    });
  }

  /**
   * Writes {@code frame} for no one to wait on. From another thread it goes to the
   * event loop as one task: Netty's own hand-over (a recycled write task) and a
   * pooled buffer would each give every virtual thread that sends Netty's
   * thread-local state, its buffer cache among it, made for one message.
   */
  private void write(WebSocketFrame frame) throws IOException {
    if (channel.eventLoop().inEventLoop()) {
      channel.writeAndFlush(frame, unwatched);
      return;
    }
    long size = frame.content().readableBytes();
    handedOver.addAndGet(size);
    try {
      channel.eventLoop().execute(() -> {
        channel.writeAndFlush(frame, unwatched);
        handedOver.addAndGet(-size);
        if (waiting > 0 && !full()) wakeSenders();
      });
    } catch (RejectedExecutionException stopped) {
      handedOver.addAndGet(-size);
      frame.release();
      throw closed();
    }
  }

  // More than the high-water mark waits to be sent, in the channel or on its way to it. A channel
  // that closes drops its outbound buffer first: unwritable from then on, with nothing to wait for.
  private boolean full() {
    return !channel.isWritable() && channel.unsafe().outboundBuffer() != null
        || handedOver.get() > channel.config().getWriteBufferHighWaterMark();
  }

  /** Sends a ping with {@code data} (at most 125 bytes; null for none). */
  public void ping(ByteBuffer data) throws IOException {
    if (!connection.sending()) throw closed();
    write(new PingWebSocketFrame(control(data)));
  }

  /** Sends an unsolicited pong with {@code data} (at most 125 bytes; null for none). */
  public void pong(ByteBuffer data) throws IOException {
    if (!connection.sending()) throw closed();
    write(new PongWebSocketFrame(control(data)));
  }

  /**
   * Starts the closing handshake with {@code code} (1000, a code of RFC 6455
   * §7.4.1 an endpoint may send, or 3000 to 4999) and {@code reason}; the
   * connection ends when the peer answers, or after a few seconds. Closing a
   * closed socket does nothing.
   */
  public void close(int code, String reason) {
    if (!WebSocketCloseStatus.isValidStatusCode(code)) {
      throw new IllegalArgumentException("not a close code an endpoint may send: " + code);
    }
    String why = reason == null ? "" : reason;
    // RFC 6455 §5.5: the code and the reason's UTF-8 together fit a control frame.
    if (ByteBufUtil.utf8Bytes(why) > MAX_CONTROL_PAYLOAD - 2) {
      throw new IllegalArgumentException("a close reason is at most 123 bytes of UTF-8");
    }
    connection.close(code, why);
  }

  /** True until a close frame went either way or the connection ended. */
  public boolean isOpen() {
    return connection.sending();
  }

  /** The subprotocol the handshake agreed on (RFC 6455 §1.9), or null for none. */
  public String protocol() {
    return protocol;
  }

  /** The address of the other end: the client's on the server, the server's on a client. */
  public SocketAddress remoteAddress() {
    return channel.remoteAddress();
  }

  // Wakes the senders waiting in send: the channel drained, or closed.
  void wakeSenders() {
    lock.lock();
    try {
      writable.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void awaitWritable() throws IOException {
    // A channel may close between the hand-over and the check: the message went as far as any
    // sent just before the close, so only a sender that did wait learns that the close came first.
    boolean waited = false;
    lock.lock();
    try {
      long left = TimeUnit.MILLISECONDS.toNanos(writeTimeoutMs);
      waiting++;
      while (full() && channel.isActive()) {
        waited = true;
        if (writeTimeoutMs == 0) {
          writable.await();
        } else {
          if (left <= 0) break;
          left = writable.awaitNanos(left);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while the peer took the messages sent before", e);
    } finally {
      waiting--;
      lock.unlock();
    }
    if (waited && !channel.isActive()) throw closed("the WebSocket closed before the peer took the message");
  }

  // On the event loop the frame's bytes go in a pooled buffer of the loop's cache; elsewhere in
  // a heap copy (see write), which the frame encoder copies into the loop's buffer with its head.
  private WebSocketFrame frame(Object message) {
    boolean onLoop = channel.eventLoop().inEventLoop();
    if (message instanceof CharSequence text) {
      connection.messageSent(true);
      return new TextWebSocketFrame(onLoop ? ByteBufUtil.writeUtf8(channel.alloc(), text)
          : Unpooled.wrappedBuffer(text.toString().getBytes(StandardCharsets.UTF_8)));
    }
    if (message instanceof ByteBuffer data) {
      connection.messageSent(false);
      if (!onLoop) return new BinaryWebSocketFrame(Unpooled.copiedBuffer(data.duplicate()));
      ByteBuf copy = channel.alloc().buffer(data.remaining());
      copy.writeBytes(data.duplicate());
      return new BinaryWebSocketFrame(copy);
    }
    if (message instanceof byte[] data) {
      connection.messageSent(false);
      return new BinaryWebSocketFrame(onLoop ? channel.alloc().buffer(data.length).writeBytes(data)
          : Unpooled.copiedBuffer(data));
    }
    throw new IllegalArgumentException("a WebSocket message is a String (text) or a ByteBuffer or byte[] (binary), not "
        + (message == null ? "nil" : "a " + message.getClass().getName()));
  }

  private static ByteBuf control(ByteBuffer data) {
    if (data == null) return Unpooled.EMPTY_BUFFER;
    if (data.remaining() > MAX_CONTROL_PAYLOAD) {
      throw new IllegalArgumentException("a ping or pong carries at most 125 bytes, not " + data.remaining());
    }
    return Unpooled.copiedBuffer(data.duplicate());
  }

  private IOException closed() {
    return closed("the WebSocket is closed");
  }

  // The connection's end, when it has ended, says whose doing the close was.
  private IOException closed(String what) {
    String ending = connection.ending();
    return new Closed(ending == null ? what : what + ": " + ending);
  }

  /**
   * A send on a socket that is closed, or closed while the send waited: the
   * peer's doing or this side's, never a failure of the listener's. Once the
   * connection has ended, the message says how: who closed it, with what code
   * and reason, or that it ended without a closing handshake.
   */
  public static final class Closed extends IOException {
    Closed(String message) {
      super(message);
    }
  }
}
