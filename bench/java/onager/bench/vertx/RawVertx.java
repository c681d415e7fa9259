package onager.bench.vertx;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.SSLEngineOptions;
import io.vertx.core.transport.Transport;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import java.util.zip.CRC32;

/**
 * The ceiling the benchmarks measure Onager against: the demo's endpoints in
 * plain Java on Vert.x, written the way TechEmpower's Vert.x entry is (one
 * verticle per event loop, strict thread mode, header names and values made
 * once as AsciiString, the Date value made once a second, the plaintext body a
 * constant buffer). It sends the same headers as Onager: Content-Type, Date,
 * a six-letter Server, Content-Length.
 *
 * <p>Its clear-text port speaks HTTP/1.1 and h2c (by prior knowledge, RFC 9113
 * §3.3, and by Upgrade); with {@code --tls-port} a second port speaks TLS 1.3 and
 * 1.2 with h2 and http/1.1 offered by ALPN (RFC 7301), from a PEM certificate and
 * key, through the JDK's TLS or OpenSSL's (netty-tcnative-boringssl-static, when
 * on the class path): the set-up Onager's TLS and HTTP/2 have.
 *
 * <pre>
 *   /plaintext        "Hello, World!"
 *   /json             {"message":"Hello, World!"}, serialised per request with Jackson
 *   /sleep?ms=N       answers after N ms (a timer: the event loop never blocks)
 *   /download?size=N  N bytes of the demo's repeating alphabet, made 32 KiB at a time, with back-pressure
 *   /upload           reads the body as it arrives; answers its length and CRC-32
 *   /ws/echo          a WebSocket that sends each message back, text or binary
 *   /ws/room          a WebSocket chat room: each message goes to every member
 *   /sse/clock        server-sent events every interval-ms (1000), numbered from 1
 * </pre>
 *
 * <p>{@code --transport} picks Netty's transport as Onager's :transport option does:
 * {@code auto} (the default) is Vert.x's native transport when it loads (epoll on
 * Linux), else NIO; {@code epoll}, {@code io-uring} and {@code nio} that one, or
 * it fails. The line saying where it listens names the transport it runs on.
 *
 * Run: {@code java -cp CLASSPATH onager.bench.vertx.RawVertx [--port 8080]
 *   [--tls-port 8443 --ssl-cert cert.pem --ssl-key key.pem [--ssl-provider jdk|openssl]]
 *   [--transport auto|epoll|io-uring|nio]}
 */
public final class RawVertx extends VerticleBase implements Handler<HttpServerRequest> {
  private static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized("content-type");
  private static final CharSequence CONTENT_LENGTH = HttpHeaders.createOptimized("content-length");
  private static final CharSequence SERVER = HttpHeaders.createOptimized("server");
  private static final CharSequence DATE = HttpHeaders.createOptimized("date");
  private static final CharSequence SERVER_NAME = HttpHeaders.createOptimized("vert.x");
  private static final CharSequence TEXT_PLAIN = HttpHeaders.createOptimized("text/plain; charset=utf-8");
  private static final CharSequence JSON = HttpHeaders.createOptimized("application/json");
  private static final CharSequence OCTETS = HttpHeaders.createOptimized("application/octet-stream");
  private static final CharSequence EVENT_STREAM = HttpHeaders.createOptimized("text/event-stream; charset=utf-8");
  private static final CharSequence CACHE_CONTROL = HttpHeaders.createOptimized("cache-control");
  private static final CharSequence NO_CACHE = HttpHeaders.createOptimized("no-cache");

  private static final Buffer HELLO = Buffer.buffer("Hello, World!", "UTF-8");
  private static final CharSequence HELLO_LENGTH = HttpHeaders.createOptimized(String.valueOf(HELLO.length()));

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The body of /json, as a record Jackson serialises. */
  public record Message(String message) {}

  private static final int CHUNK = 32 * 1024;
  private static final int MAX_SLEEP_MS = 60_000;
  // The alphabet, repeated: the byte at offset k of a /download body is 'a' + k mod 26, as in the demo.
  private static final byte[] PATTERN = new byte[26 * 2048];

  static {
    for (int i = 0; i < PATTERN.length; i++) PATTERN[i] = (byte) ('a' + i % 26);
  }

  // IMF-fixdate (RFC 9110 §5.6.7), as Onager sends it.
  private static final DateTimeFormatter IMF_FIXDATE =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH);

  // The members of /ws/room, from every event loop.
  private static final Set<ServerWebSocket> ROOM = ConcurrentHashMap.newKeySet();

  private final Config config;
  private CharSequence date = dateNow();

  RawVertx(Config config) {
    this.config = config;
  }

  /**
   * The command line: ports, the TLS port's certificate, key and provider (sslPort 0: none),
   * and the transport.
   */
  record Config(int port, int sslPort, String cert, String key, String provider, String transport) {
    static Config parse(String[] args) {
      int port = 8080;
      int sslPort = 0;
      String cert = null;
      String key = null;
      String provider = "jdk";
      String transport = "auto";
      for (int i = 0; i + 1 < args.length; i += 2) {
        String v = args[i + 1];
        switch (args[i]) {
          case "--port" -> port = Integer.parseInt(v);
          case "--tls-port" -> sslPort = Integer.parseInt(v);
          case "--ssl-cert" -> cert = v;
          case "--ssl-key" -> key = v;
          case "--ssl-provider" -> provider = v;
          case "--transport" -> transport = v;
          default -> throw new IllegalArgumentException("unknown argument " + args[i]);
        }
      }
      if (args.length % 2 != 0) throw new IllegalArgumentException("no value after " + args[args.length - 1]);
      if (sslPort != 0 && (cert == null || key == null)) {
        throw new IllegalArgumentException("--tls-port needs --ssl-cert and --ssl-key");
      }
      return new Config(port, sslPort, cert, key, provider, transport);
    }

    /** The transport --transport names; one that cannot load fails with Netty's reason. */
    Transport vertxTransport() {
      Transport best = Transport.nativeTransport();
      Transport t = switch (transport) {
        case "auto" -> best != null && best.available() ? best : Transport.NIO;
        case "epoll" -> Transport.EPOLL;
        case "io-uring" -> Transport.IO_URING;
        case "nio" -> Transport.NIO;
        default -> throw new IllegalArgumentException("--transport is auto, epoll, io-uring or nio, not " + transport);
      };
      if (t == null || !t.available()) {
        throw new IllegalStateException("--transport " + transport + " cannot be used here"
            + (t == null ? ": its jar is not on the class path" : ": " + t.unavailabilityCause()));
      }
      return t;
    }

    SSLEngineOptions engine() {
      return switch (provider) {
        case "jdk" -> new JdkSSLEngineOptions();
        case "openssl" -> {
          if (!OpenSSLEngineOptions.isAvailable()) {
            throw new IllegalStateException("--ssl-provider openssl needs io.netty:netty-tcnative-boringssl-static"
                + " on the class path");
          }
          yield new OpenSSLEngineOptions();
        }
        default -> throw new IllegalArgumentException("--ssl-provider is jdk or openssl, not " + provider);
      };
    }
  }

  private static CharSequence dateNow() {
    return HttpHeaders.createOptimized(IMF_FIXDATE.format(ZonedDateTime.now(ZoneOffset.UTC)));
  }

  @Override
  public Future<?> start() {
    vertx.setPeriodic(1000, id -> date = dateNow());
    Future<?> clear = vertx.createHttpServer(options(config.port()).setHttp2ClearTextEnabled(true))
        .requestHandler(this)
        .webSocketHandler(RawVertx::webSocket)
        .listen();
    if (config.sslPort() == 0) return clear;
    Future<?> tls = vertx.createHttpServer(options(config.sslPort())
            .setSsl(true)
            .setUseAlpn(true)
            .setAlpnVersions(List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1))
            .setEnabledSecureTransportProtocols(Set.of("TLSv1.3", "TLSv1.2"))
            .setSslEngineOptions(config.engine())
            .setKeyCertOptions(new PemKeyCertOptions().setCertPath(config.cert()).setKeyPath(config.key())))
        .requestHandler(this)
        .listen();
    return Future.all(clear, tls);
  }

  private static HttpServerOptions options(int port) {
    return new HttpServerOptions()
        .setPort(port)
        .setHost("0.0.0.0")
        .setTcpNoDelay(true)
        .setStrictThreadMode(true);
  }

  @Override
  public void handle(HttpServerRequest request) {
    switch (request.path()) {
      case "/plaintext" -> plaintext(request.response());
      case "/json" -> json(request.response());
      case "/sleep" -> sleep(request);
      case "/download" -> download(request);
      case "/upload" -> upload(request);
      case "/sse/clock" -> clock(request);
      default -> request.response().setStatusCode(404).end();
    }
  }

  private static void webSocket(ServerWebSocket ws) {
    switch (ws.path()) {
      case "/ws/echo" -> {
        ws.textMessageHandler(ws::writeTextMessage);
        ws.binaryMessageHandler(ws::writeBinaryMessage);
      }
      case "/ws/room" -> {
        ROOM.add(ws);
        ws.closeHandler(v -> ROOM.remove(ws));
        ws.textMessageHandler(m -> {
          for (ServerWebSocket member : ROOM) member.writeTextMessage(m);
        });
      }
      default -> ws.close((short) 1008, "no such endpoint");
    }
  }

  private MultiMap head(HttpServerResponse response, CharSequence contentType) {
    return response.headers()
        .add(CONTENT_TYPE, contentType)
        .add(SERVER, SERVER_NAME)
        .add(DATE, date);
  }

  private void plaintext(HttpServerResponse response) {
    head(response, TEXT_PLAIN).add(CONTENT_LENGTH, HELLO_LENGTH);
    response.end(HELLO);
  }

  private void json(HttpServerResponse response) {
    byte[] body;
    try {
      body = MAPPER.writeValueAsBytes(new Message("Hello, World!"));
    } catch (Exception e) {
      response.setStatusCode(500).end();
      return;
    }
    head(response, JSON);
    response.end(Buffer.buffer(body));
  }

  private void sleep(HttpServerRequest request) {
    long ms = Math.min(MAX_SLEEP_MS, Math.max(0, longParam(request, "ms", 50)));
    HttpServerResponse response = request.response();
    vertx.setTimer(Math.max(1, ms), id -> {
      head(response, TEXT_PLAIN);
      response.end("slept " + ms + " ms\n");
    });
  }

  private void download(HttpServerRequest request) {
    long size = Math.max(0, longParam(request, "size", 1 << 20));
    HttpServerResponse response = request.response();
    head(response, OCTETS).add(CONTENT_LENGTH, Long.toString(size));
    new Download(response, size).handle(null);
  }

  /** Writes a generated body a chunk at a time, pausing while the connection's queue is full. */
  private static final class Download implements Handler<Void> {
    private final HttpServerResponse response;
    private final long size;
    private long sent;

    Download(HttpServerResponse response, long size) {
      this.response = response;
      this.size = size;
    }

    @Override
    public void handle(Void ignored) {
      while (sent < size) {
        int n = (int) Math.min(CHUNK, size - sent);
        byte[] chunk = new byte[n];
        int off = (int) (sent % 26);
        for (int done = 0; done < n; ) {
          int m = Math.min(n - done, PATTERN.length - 26);
          System.arraycopy(PATTERN, (off + done) % 26, chunk, done, m);
          done += m;
        }
        sent += n;
        // Wrapped, not copied: the array is Netty's from here on.
        Buffer data = BufferInternal.buffer(Unpooled.wrappedBuffer(chunk));
        if (sent == size) {
          response.end(data);
          return;
        }
        response.write(data);
        if (response.writeQueueFull()) {
          response.drainHandler(this);
          return;
        }
      }
      response.end();
    }
  }

  private void clock(HttpServerRequest request) {
    long every = Math.max(10, longParam(request, "interval-ms", 1000));
    HttpServerResponse response = request.response().setChunked(true);
    head(response, EVENT_STREAM).add(CACHE_CONTROL, NO_CACHE);
    response.write(Buffer.buffer());
    long[] n = {0};
    long timer = vertx.setPeriodic(every, every, id -> {
      n[0]++;
      response.write("id: " + n[0] + "\nevent: tick\ndata: " + n[0] + "\n\n");
    });
    response.closeHandler(v -> vertx.cancelTimer(timer));
  }

  private void upload(HttpServerRequest request) {
    CRC32 crc = new CRC32();
    long[] total = new long[1];
    request.handler(chunk -> {
      ByteBuf buf = ((BufferInternal) chunk).getByteBuf();
      total[0] += buf.readableBytes();
      crc.update(buf.nioBuffer());
    });
    request.endHandler(v -> {
      HttpServerResponse response = request.response();
      head(response, TEXT_PLAIN);
      response.end(total[0] + " bytes, crc32 " + Long.toHexString(crc.getValue()) + "\n");
    });
  }

  private static long longParam(HttpServerRequest request, String name, long fallback) {
    String v = request.getParam(name);
    if (v == null) return fallback;
    try {
      return Long.parseLong(v);
    } catch (NumberFormatException e) {
      return fallback;
    }
  }

  public static void main(String[] args) {
    Config config = Config.parse(args);
    int loops = Runtime.getRuntime().availableProcessors();
    Transport transport = config.vertxTransport();
    Vertx vertx = Vertx.builder()
        .with(new VertxOptions().setEventLoopPoolSize(loops).setDisableTCCL(true))
        .withTransport(transport)
        .build();
    vertx.deployVerticle(() -> new RawVertx(config), new DeploymentOptions().setInstances(loops))
        .toCompletionStage().toCompletableFuture().join();
    System.out.println("raw Vert.x listening on http://127.0.0.1:" + config.port() + "/"
        + (config.sslPort() == 0 ? "" : " and https://127.0.0.1:" + config.sslPort() + "/ (" + config.provider() + ")")
        + " (" + loops + " event loops, transport " + transport.name().replace('_', '-') + ")");
    System.out.flush();
  }
}
