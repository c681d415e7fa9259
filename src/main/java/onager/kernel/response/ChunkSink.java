package onager.kernel.response;

/**
 * Where a {@link ResponseStream} sends its chunks: the request's exchange, which
 * writes them on the event loop.
 */
public interface ChunkSink {
  /**
   * Chunks are waiting in {@code from}: the sink takes them on the event loop
   * with {@link ResponseStream#take}, writes them, and reports with
   * {@link ResponseStream#written}. Called on the thread that writes the body,
   * once for every batch of chunks the sink has not yet taken.
   */
  void drain(ResponseStream from);

  /**
   * The writer of {@code from}, waiting for its chunks to drain, may go on: the
   * sink calls {@link ResponseStream#wakeWriter} now or soon after, from a thread
   * of its choice. Called where {@link ResponseStream#written} was.
   */
  void resume(ResponseStream from);

  /**
   * The body writer failed with {@code cause}. If nothing was sent yet the client
   * can still get an error status; if part of the response is on its way, only
   * closing the connection tells the client it is incomplete.
   */
  void abort(ResponseStream from, Throwable cause);

  /**
   * Runs {@code then} once the connection the response goes out on has gone (at
   * once when it has): a body that waits for something to send (server-sent
   * events) learns of it before its next write fails. One per response; from any thread.
   */
  void whenClosed(Runnable then);
}
