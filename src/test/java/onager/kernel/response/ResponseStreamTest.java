package onager.kernel.response;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A response stream's back-pressure, with the test in the event loop's place:
 * when its writer stops, and that it goes on only once the sink wakes it.
 */
final class ResponseStreamTest {
  /** Notes what the stream asks of its sink. */
  private static final class Sink implements ChunkSink {
    final BlockingQueue<ResponseStream> drains = new LinkedBlockingQueue<>();
    final AtomicInteger resumes = new AtomicInteger();

    @Override
    public void drain(ResponseStream from) {
      drains.add(from);
    }

    @Override
    public void resume(ResponseStream from) {
      resumes.incrementAndGet();
    }

    @Override
    public void abort(ResponseStream from, Throwable cause) {
      throw new AssertionError("aborted", cause);
    }

    @Override
    public void whenClosed(Runnable then) {
      // The test's connection never goes.
    }
  }

  private static void awaitWaiting(Thread t) throws InterruptedException {
    for (int i = 0; i < 500 && t.getState() != Thread.State.WAITING; i++) Thread.sleep(10);
    assertEquals(Thread.State.WAITING, t.getState(), "the writer waits");
  }

  @Test
  void theWriterStopsAboveTheHighMarkAndGoesOnOnlyWhenTheSinkWakesIt() throws Exception {
    Sink sink = new Sink();
    ResponseStream out = new ResponseStream(sink, UnpooledByteBufAllocator.DEFAULT, -1);
    int chunks = (int) (ResponseStream.HIGH_WATER / ResponseStream.CHUNK) + 1;
    byte[] chunk = new byte[ResponseStream.CHUNK];
    Thread writer = Thread.ofVirtual().start(() -> {
      try {
        for (int i = 0; i <= chunks; i++) out.write(chunk);
        out.close();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    });
    awaitWaiting(writer);

    // What the loop would do: take the chunks and report them written, one by one.
    long held = 0;
    while (sink.drains.poll() != null) {
      for (ByteBuf b : out.take().data()) {
        held += b.readableBytes();
        b.release();
      }
    }
    assertEquals((long) chunks * ResponseStream.CHUNK, held, "the writer stopped once above the high mark");
    for (int i = 0; i < chunks; i++) {
      held -= ResponseStream.CHUNK;
      out.written(ResponseStream.CHUNK, null);
      assertEquals(held <= ResponseStream.LOW_WATER ? 1 : 0, sink.resumes.get(),
          "resumed once the bytes held fall to the low mark, and only then; held " + held);
    }
    assertEquals(Thread.State.WAITING, writer.getState(), "the writer waits for its wake-up");

    out.wakeWriter();
    ResponseStream more = sink.drains.poll(5, TimeUnit.SECONDS);
    assertTrue(more != null, "the woken writer went on");
    writer.join(5000);
    ResponseStream.Chunks rest = out.take();
    for (ByteBuf b : rest.data()) b.release();
    assertTrue(rest.last(), "the body ended");
    assertEquals(1, sink.resumes.get(), "no second wake-up for one stop");
  }
}
