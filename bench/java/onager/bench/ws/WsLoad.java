package onager.bench.ws;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.WebSocket;
import io.vertx.core.http.WebSocketClient;
import io.vertx.core.http.WebSocketClientOptions;
import io.vertx.core.http.WebSocketConnectOptions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The WebSocket load generator of the benchmarks, the harness's wrk for
 * WebSockets: Vert.x's WebSocket client on one event loop, pinned by the
 * harness to the core the server does not have. It prints one line of JSON in
 * the shape of wrk's script (bench/wrk/bench.lua): "requests" is the messages
 * received, latencies are per message, in microseconds.
 *
 * <pre>
 *   echo       each of C connections sends a small text message and waits for it to come back, then sends the next
 *   broadcast  C connections join the room; one sends, and the next message goes once every member
 *              has the one before (up to 4 in flight): "requests" counts the deliveries
 *   idle       C connections open and stay quiet: it prints {"ready":C} once they are all open,
 *              and closes them after the seconds (the memory benchmark weighs the server meanwhile)
 * </pre>
 *
 * Run: {@code java -cp CLASSPATH onager.bench.ws.WsLoad --port P --path /ws/echo --mode echo
 *   --connections 64 --seconds 10 [--size 32]}
 */
public final class WsLoad {
  private static final int WINDOW = 4;
  private static final int CONNECT_BATCH = 200;
  // Latencies recorded up to this many microseconds (10 s); one bucket per µs up to it would be
  // large, so buckets grow: 1 µs to 1 ms, then 100 µs.
  private static final int FINE = 1000;
  private static final int COARSE = 100_000;

  private final AtomicLongArray buckets = new AtomicLongArray(FINE + COARSE + 1);
  private final AtomicLong received = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();
  private volatile boolean measuring = true;

  private void record(long nanos) {
    long us = nanos / 1000;
    int i = us < FINE ? (int) us : (int) Math.min(FINE + (us - FINE) / 100, FINE + COARSE);
    buckets.incrementAndGet(i);
  }

  private long percentile(double p, long total) {
    long want = (long) Math.ceil(total * p);
    long seen = 0;
    for (int i = 0; i < buckets.length(); i++) {
      seen += buckets.get(i);
      if (seen >= want && want > 0) return i < FINE ? i : FINE + (long) (i - FINE) * 100;
    }
    return 0;
  }

  public static void main(String[] args) throws Exception {
    String host = "127.0.0.1";
    int port = 8080;
    String path = "/ws/echo";
    String mode = "echo";
    int connections = 64;
    int seconds = 10;
    int size = 32;
    for (int i = 0; i + 1 < args.length; i += 2) {
      String v = args[i + 1];
      switch (args[i]) {
        case "--port" -> port = Integer.parseInt(v);
        case "--path" -> path = v;
        case "--mode" -> mode = v;
        case "--connections" -> connections = Integer.parseInt(v);
        case "--seconds" -> seconds = Integer.parseInt(v);
        case "--size" -> size = Integer.parseInt(v);
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(1).setPreferNativeTransport(true));
    WebSocketClient client = vertx.createWebSocketClient(new WebSocketClientOptions()
        .setMaxConnections(connections + 8).setConnectTimeout(10_000));
    WebSocketConnectOptions target = new WebSocketConnectOptions().setHost(host).setPort(port).setURI(path);
    List<WebSocket> sockets = new ArrayList<>();
    // A few hundred handshakes at a time: thousands at once would overrun the server's accept queue.
    for (int i = 0; i < connections; i += CONNECT_BATCH) {
      List<Future<WebSocket>> batch = new ArrayList<>();
      for (int j = i; j < Math.min(connections, i + CONNECT_BATCH); j++) batch.add(client.connect(target));
      for (Future<WebSocket> f : batch) sockets.add(f.toCompletionStage().toCompletableFuture().get());
    }
    WsLoad load = new WsLoad();
    String payload = "x".repeat(Math.max(1, size - 12));
    long start = System.nanoTime();
    if (mode.equals("echo")) {
      load.echo(vertx, sockets, payload);
    } else if (mode.equals("broadcast")) {
      load.broadcast(vertx, sockets, payload);
    } else if (mode.equals("idle")) {
      System.out.println("{\"ready\":" + sockets.size() + "}");
      System.out.flush();
    } else {
      throw new IllegalArgumentException("--mode is echo, broadcast or idle, not " + mode);
    }
    Thread.sleep(seconds * 1000L);
    load.measuring = false;
    long end = System.nanoTime();
    long n = load.received.get();
    System.out.printf("{\"requests\":%d,\"duration_us\":%d,"
            + "\"errors\":{\"connect\":0,\"read\":0,\"write\":%d,\"status\":0,\"timeout\":0},"
            + "\"latency_us\":{\"p50\":%d,\"p90\":%d,\"p99\":%d,\"max\":0,\"mean\":0}}%n",
        n, (end - start) / 1000, load.errors.get(),
        load.percentile(0.5, n), load.percentile(0.9, n), load.percentile(0.99, n));
    System.out.flush();
    Future.all(sockets.stream().map(WebSocket::close).toList()).await();
    vertx.close().await();
  }

  // Each socket: send, wait for the echo, send again.
  private void echo(Vertx vertx, List<WebSocket> sockets, String payload) {
    for (WebSocket ws : sockets) {
      long[] sentAt = new long[1];
      ws.exceptionHandler(e -> errors.incrementAndGet());
      ws.textMessageHandler(m -> {
        if (!measuring) return;
        record(System.nanoTime() - sentAt[0]);
        received.incrementAndGet();
        sentAt[0] = System.nanoTime();
        ws.writeTextMessage(payload);
      });
      vertx.runOnContext(v -> {
        sentAt[0] = System.nanoTime();
        ws.writeTextMessage(payload);
      });
    }
  }

  // One sender, every socket a member: message k goes once every member has k - WINDOW.
  private void broadcast(Vertx vertx, List<WebSocket> sockets, String payload) {
    int members = sockets.size();
    AtomicInteger[] got = new AtomicInteger[WINDOW];
    long[] sentAt = new long[WINDOW];
    Arrays.setAll(got, i -> new AtomicInteger());
    AtomicLong next = new AtomicLong();
    WebSocket sender = sockets.get(0);
    Runnable[] send = new Runnable[1];
    send[0] = () -> {
      long k = next.getAndIncrement();
      int slot = (int) (k % WINDOW);
      got[slot].set(0);
      sentAt[slot] = System.nanoTime();
      sender.writeTextMessage(k + " " + payload);
    };
    for (WebSocket ws : sockets) {
      ws.exceptionHandler(e -> errors.incrementAndGet());
      ws.textMessageHandler(m -> {
        if (!measuring) return;
        int slot = (int) (Long.parseLong(m.substring(0, m.indexOf(' '))) % WINDOW);
        record(System.nanoTime() - sentAt[slot]);
        received.incrementAndGet();
        if (got[slot].incrementAndGet() == members) send[0].run();
      });
    }
    vertx.runOnContext(v -> {
      for (int i = 0; i < WINDOW; i++) send[0].run();
    });
  }
}
