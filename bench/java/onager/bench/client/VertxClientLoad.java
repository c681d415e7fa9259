package onager.bench.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.util.AsciiString;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.internal.buffer.BufferInternal;
import java.io.IOException;
import java.io.InputStream;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The ceiling of the client benchmark: Vert.x's HTTP client called from Java
 * with no Clojure, the way a Java program on virtual threads would, each
 * caller waiting for its response. The same pool size, HTTP/2 by ALPN over TLS
 * and h1 in clear text as Onager's client defaults to.
 *
 * <pre>java onager.bench.client.VertxClientLoad get URL CALLERS WARMUP-S DURATION-S
 *      ... download URL SIZE | upload URL SIZE</pre>
 */
public final class VertxClientLoad {
  private VertxClientLoad() {}

  // The User-Agent Onager's client sends by default, so that both clients send the same requests and
  // the server does the same work: the layer's cost is measured on the same exchanges.
  private static final AsciiString USER_AGENT = AsciiString.cached("onager");

  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String url = args[1];
    boolean ssl = url.startsWith("https:");
    // As many event loops as Onager's client makes by default: one per CPU it may use.
    Vertx vertx = Vertx.vertx(new VertxOptions().setPreferNativeTransport(true)
        .setEventLoopPoolSize(Runtime.getRuntime().availableProcessors()));
    HttpClientAgent client = vertx.httpClientBuilder()
        .with(new HttpClientOptions().setUseAlpn(true).setProtocolVersion(HttpVersion.HTTP_2)
            .setTrustAll(true).setVerifyHost(false)
            .setDecompressionSupported(true).setKeepAlive(true))
        .with(new PoolOptions().setHttp1MaxSize(64).setHttp2MaxSize(1).setMaxWaitQueueSize(1024))
        .build();
    RequestOptions base = new RequestOptions().setAbsoluteURI(url)
        .setProtocolVersion(ssl ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1);
    switch (mode) {
      case "get" -> LoadLoop.closedLoop(Integer.parseInt(args[2]), Long.parseLong(args[3]) * 1000,
          Long.parseLong(args[4]) * 1000, () -> get(client, base));
      case "download" -> {
        long size = Long.parseLong(args[2]);
        LoadLoop.transfer(() -> download(client, url, size / 4), () -> download(client, url, size));
      }
      case "upload" -> {
        long size = Long.parseLong(args[2]);
        LoadLoop.transfer(() -> upload(client, base, size / 4), () -> upload(client, base, size));
      }
      default -> throw new IllegalArgumentException(mode);
    }
    client.close();
    vertx.close();
    System.exit(0);
  }

  private static long get(HttpClientAgent client, RequestOptions base) throws Exception {
    return client.request(new RequestOptions(base))
        .compose(req -> req.putHeader(HttpHeaders.USER_AGENT, USER_AGENT).send().compose(HttpClientResponse::body))
        .map(b -> (long) b.length())
        .toCompletionStage().toCompletableFuture().get();
  }

  private static long download(HttpClientAgent client, String url, long size) throws Exception {
    AtomicLong total = new AtomicLong();
    String sep = url.contains("?") ? "&" : "?";
    client.request(new RequestOptions().setAbsoluteURI(url + sep + "size=" + size))
        .compose(req -> req.putHeader(HttpHeaders.USER_AGENT, USER_AGENT).send().compose(resp -> {
          resp.handler(b -> total.addAndGet(b.length()));
          return resp.end();
        }))
        .toCompletionStage().toCompletableFuture().get();
    return total.get();
  }

  // The body comes from the same generator as every other client's (LoadLoop.zeros), read a piece
  // at a time on the event loop while the connection takes more; each piece is copied once, into
  // pooled direct memory released once written: the least a Java program reading a stream can do.
  private static long upload(HttpClientAgent client, RequestOptions base, long size) throws Exception {
    InputStream in = LoadLoop.zeros(size);
    byte[] piece = new byte[65536];
    Future<Long> done = client.request(new RequestOptions(base).setMethod(HttpMethod.POST)).compose(req -> {
      req.putHeader(HttpHeaders.USER_AGENT, USER_AGENT).putHeader(HttpHeaders.CONTENT_LENGTH, Long.toString(size));
      Future<HttpClientResponse> response = req.response();
      new Object() {
        void pump() {
          try {
            int n;
            while (!req.writeQueueFull() && (n = in.read(piece)) >= 0) {
              ByteBuf pooled = ByteBufAllocator.DEFAULT.directBuffer(n).writeBytes(piece, 0, n);
              req.write(BufferInternal.buffer(pooled)).onComplete(ignored -> pooled.release());
            }
            if (req.writeQueueFull()) {
              req.drainHandler(v -> pump());
            } else {
              req.end();
            }
          } catch (IOException e) {
            req.reset(0, e);
          }
        }
      }.pump();
      return response.compose(HttpClientResponse::body).map(b -> size);
    });
    return done.toCompletionStage().toCompletableFuture().get();
  }
}
