package onager.kernel.response;

/**
 * Where a {@link ResponseStream} sends its chunks: the request's exchange, which
 * writes them on the event loop. Called on the thread that writes the body.
 */
public interface ChunkSink {
  /**
   * Queues {@code data[0, length)} for the wire. {@code first}: the response head
   * goes out with it; {@code last}: the response ends with it. When the write
   * completes, the sink calls {@link ResponseStream#written}.
   */
  void send(ResponseStream from, byte[] data, int length, boolean first, boolean last);

  /**
   * The body writer failed with {@code cause}. If nothing was sent yet the client
   * can still get an error status; if part of the response is on its way, only
   * closing the connection tells the client it is incomplete.
   */
  void abort(ResponseStream from, Throwable cause);
}
