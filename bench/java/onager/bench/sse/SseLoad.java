package onager.bench.sse;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server-sent event subscribers of the benchmarks: C connections, each a
 * GET of an event stream, counting the events that arrive (the blank lines
 * that end them) on Vert.x's HTTP client on one event loop. The server sets
 * the pace; the harness weighs its CPU per event. It prints one line of JSON
 * in the shape of wrk's script (bench/wrk/bench.lua), events as "requests".
 *
 * <p>Run: {@code java -cp CLASSPATH onager.bench.sse.SseLoad --port P
 *   --path /sse/clock?interval-ms=100 --connections 1000 --seconds 10}
 */
public final class SseLoad {
  private SseLoad() {}

  public static void main(String[] args) throws Exception {
    int port = 8080;
    String path = "/sse/clock?interval-ms=100";
    int connections = 1000;
    int seconds = 10;
    for (int i = 0; i + 1 < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(v);
        case "--path" -> path = v;
        case "--connections" -> connections = Integer.parseInt(v);
        case "--seconds" -> seconds = Integer.parseInt(v);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setPreferNativeTransport(true));
    HttpClient client = vertx.createHttpClient(new HttpClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port),
        new PoolOptions().setHttp1MaxSize(connections).setMaxWaitQueueSize(-1));
    AtomicLong events = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong open = new AtomicLong();
    boolean[] counting = {false};
    for (int i = 0; i < connections; i++) {
      // An event ends with a blank line: two line feeds in a row, which may fall in two reads.
      boolean[] lastWasLf = {false};
      client.request(HttpMethod.GET, path)
          .compose(r -> r.send())
          .onSuccess(response -> {
            open.incrementAndGet();
            response.exceptionHandler(e -> errors.incrementAndGet());
            response.handler((Buffer b) -> {
              int ends = 0;
              for (int k = 0; k < b.length(); k++) {
                boolean lf = b.getByte(k) == '\n';
                if (lf && lastWasLf[0]) ends++;
                lastWasLf[0] = lf;
              }
              if (counting[0]) events.addAndGet(ends);
            });
          })
          .onFailure(e -> errors.incrementAndGet());
    }
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (open.get() + errors.get() < connections && System.nanoTime() < deadline) Thread.sleep(10);
    vertx.runOnContext(v -> counting[0] = true);
    long start = System.nanoTime();
    Thread.sleep(seconds * 1000L);
    long end = System.nanoTime();
    System.out.printf("{\"requests\":%d,\"duration_us\":%d,"
            + "\"errors\":{\"connect\":%d,\"read\":0,\"write\":0,\"status\":0,\"timeout\":0},"
            + "\"latency_us\":{\"p50\":0,\"p90\":0,\"p99\":0,\"max\":0,\"mean\":0}}%n",
        events.get(), (end - start) / 1000, errors.get());
    System.out.flush();
    System.exit(0);
  }
}
