package onager.kernel.websocket;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
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
import java.util.concurrent.TimeUnit;
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
    channel.writeAndFlush(frame(message), unwatched);
    if (!channel.isWritable() && !channel.eventLoop().inEventLoop()) awaitWritable();
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
    ChannelFuture f = channel.writeAndFlush(frame);
    f.addListener(done -> {
      if (done.isSuccess()) {
        callback.succeeded();
      } else {
        callback.failed(done.cause());
      }
    });
  }

  /** Sends a ping with {@code data} (at most 125 bytes; null for none). */
  public void ping(ByteBuffer data) throws IOException {
    if (!connection.sending()) throw closed();
    channel.writeAndFlush(new PingWebSocketFrame(control(data)), unwatched);
  }

  /** Sends an unsolicited pong with {@code data} (at most 125 bytes; null for none). */
  public void pong(ByteBuffer data) throws IOException {
    if (!connection.sending()) throw closed();
    channel.writeAndFlush(new PongWebSocketFrame(control(data)), unwatched);
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
    lock.lock();
    try {
      long left = TimeUnit.MILLISECONDS.toNanos(writeTimeoutMs);
      while (!channel.isWritable() && channel.isActive()) {
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
      lock.unlock();
    }
    if (!channel.isActive()) throw new Closed("the WebSocket closed before the peer took the message");
  }

  private WebSocketFrame frame(Object message) {
    if (message instanceof CharSequence text) {
      return new TextWebSocketFrame(ByteBufUtil.writeUtf8(channel.alloc(), text));
    }
    if (message instanceof ByteBuffer data) {
      ByteBuf copy = channel.alloc().buffer(data.remaining());
      copy.writeBytes(data.duplicate());
      return new BinaryWebSocketFrame(copy);
    }
    if (message instanceof byte[] data) {
      return new BinaryWebSocketFrame(channel.alloc().buffer(data.length).writeBytes(data));
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

  private static IOException closed() {
    return new Closed("the WebSocket is closed");
  }

  /**
   * A send on a socket that is closed, or closed while the send waited: the
   * peer's doing or this side's, never a failure of the listener's.
   */
  public static final class Closed extends IOException {
    Closed(String message) {
      super(message);
    }
  }
}
