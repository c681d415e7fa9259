package onager.kernel.vertx;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.impl.headers.HeadersAdaptor;
import io.vertx.core.http.impl.headers.Http1xHeaders;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.impl.ConnectionBase;
import io.vertx.core.net.impl.ShutdownEvent;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Iterator;
import java.util.Map;

/**
 * The parts of Vert.x's implementation the kernel relies on, in one place, so
 * that an upgrade of Vert.x that moves them breaks this class only. Vert.x keeps
 * the event loops, deployment and listening; Onager takes each connection's
 * pipeline from there (see {@code onager.kernel.http1.Http1Connection}).
 */
public final class VertxInternals {
  private VertxInternals() {}

  // The Netty headers under the MultiMap that Vert.x's HTTP/1.1 client gives a response;
  // null if this Vert.x hides them (then the MultiMap is read as it is).
  private static final VarHandle ADAPTED = adaptedHeaders();

  private static VarHandle adaptedHeaders() {
    try {
      return MethodHandles.privateLookupIn(HeadersAdaptor.class, MethodHandles.lookup())
          .findVarHandle(HeadersAdaptor.class, "headers", HttpHeaders.class);
    } catch (ReflectiveOperationException | RuntimeException e) {
      return null;
    }
  }

  /** The Netty event loop a verticle's context runs on. */
  public static EventLoop eventLoop(Context context) {
    return ((ContextInternal) context).nettyEventLoop();
  }

  /** The channel under a connection Vert.x accepted, whose pipeline it has just built. */
  public static Channel channel(HttpConnection connection) {
    return ((ConnectionBase) connection).channel();
  }

  /**
   * A new event-loop context of {@code vertx}, on its next event loop, whatever
   * context the calling thread is on.
   */
  public static Context newEventLoopContext(Vertx vertx) {
    return ((VertxInternal) vertx).createEventLoopContext();
  }

  /**
   * The name of the Netty transport {@code vertx} runs on, from its implementation's
   * class: "epoll", "io-uring", "kqueue" or "nio" (Vert.x tells only whether it is native).
   */
  public static String transportName(Vertx vertx) {
    String name = ((VertxInternal) vertx).transport().getClass().getSimpleName();
    return switch (name) {
      case "EpollTransport" -> "epoll";
      case "IoUringTransport" -> "io-uring";
      case "KQueueTransport" -> "kqueue";
      case "NioTransport" -> "nio";
      default -> name;
    };
  }

  /** The channel under a socket a Vert.x NetClient connected, its TLS and proxy handshakes done. */
  public static Channel channel(NetSocket socket) {
    return ((NetSocketInternal) socket).channelHandlerContext().channel();
  }

  /**
   * True for the event a Vert.x server sends each of its connections when it
   * shuts down gracefully: stop taking requests, finish the ones in flight.
   */
  public static boolean isShutdown(Object event) {
    return event instanceof ShutdownEvent;
  }

  /**
   * Empty headers of the kind Vert.x's request decoder makes and its response
   * encoder writes in one pass: both an {@link HttpHeaders} and a {@link MultiMap}.
   */
  public static HttpHeaders newHeaders() {
    return Http1xHeaders.httpHeaders();
  }

  /**
   * The fields of a response's {@code headers} as Vert.x's client gives them
   * (HTTP/1.1's and HTTP/2's), as the decoder that made them keeps them: no string
   * made per field, as the MultiMap's own iterator would. Pseudo-header fields
   * included. Null for headers of another kind.
   */
  public static Iterator<Map.Entry<CharSequence, CharSequence>> fields(MultiMap headers) {
    if (headers instanceof HeadersAdaptor && ADAPTED != null) {
      return ((HttpHeaders) ADAPTED.get(headers)).iteratorCharSequence();
    }
    if (headers instanceof io.vertx.core.http.impl.headers.HttpHeaders h2) return h2.unwrap().iterator();
    return null;
  }

  /** {@code headers} as a MultiMap: they are one already when Vert.x's decoder made them. */
  public static MultiMap multiMap(HttpHeaders headers) {
    return (MultiMap) headers;
  }

  /**
   * {@code buf} as a Buffer, without a copy. Vert.x never releases it: whoever
   * made it releases it once it is written.
   */
  public static Buffer buffer(ByteBuf buf) {
    return BufferInternal.buffer(buf);
  }

  /** The Netty buffer under {@code buffer}, without a copy: a view with indices of its own. */
  public static ByteBuf byteBuf(Buffer buffer) {
    return ((BufferInternal) buffer).getByteBuf();
  }
}
