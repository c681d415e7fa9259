package onager.kernel.http1;

import io.netty.buffer.ByteBuf;

/**
 * A request body that takes its bytes straight from the decoder, through the
 * {@link ConnectionGuard}, before Vert.x would copy each piece to the heap. Its
 * methods run on the connection's event loop.
 */
public interface BodySink {
  /** The next bytes of the body; the sink owns {@code data} and must release it. */
  void bodyData(ByteBuf data);

  /**
   * The connection lets go of the body: a new request began on it, or it closed.
   * The sink must release what it holds of the connection's memory now.
   */
  void detach();
}
