package onager.kernel.exchange;

import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelPromise;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoop;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http.websocketx.extensions.WebSocketServerExtension;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.charset.Charset;
import java.security.cert.X509Certificate;
import java.util.concurrent.RejectedExecutionException;
import onager.kernel.config.HandlerMode;
import onager.kernel.http.RequestTarget;
import onager.kernel.limits.Deadline;
import onager.kernel.limits.HeapPressure;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.log.AccessLog;
import onager.kernel.log.AccessRecord;
import onager.kernel.log.Logs;
import onager.kernel.metrics.LoopMeters;
import onager.kernel.metrics.Refusals;
import onager.kernel.metrics.ServerMetrics;
import onager.kernel.proxy.Forwarded;
import onager.kernel.proxy.ProxyProtocol;
import onager.kernel.request.BodyFlow;
import onager.kernel.request.BodyTooLargeException;
import onager.kernel.request.BufferedBody;
import onager.kernel.request.ClientAbortException;
import onager.kernel.request.EmptyBody;
import onager.kernel.request.InflatingBody;
import onager.kernel.request.RequestHeaders;
import onager.kernel.request.StreamingBody;
import onager.kernel.response.BodyStreamer;
import onager.kernel.response.ChunkSink;
import onager.kernel.response.InvalidResponseException;
import onager.kernel.response.ResponseMaps;
import onager.kernel.response.ResponseStream;
import onager.kernel.response.Responses;
import onager.kernel.ring.RingRequest;
import onager.kernel.websocket.Side;
import onager.kernel.websocket.WebSocketHandshake;
import onager.kernel.websocket.WebSocketListener;
import onager.kernel.websocket.WebSocketSwitch;

/**
 * One request and its response, whatever protocol carries them: the request
 * map's source ({@link RequestFields}), the task that runs the handler, and
 * the one place that turns what the handler did (returned, responded, threw,
 * or not in time) into the answer its {@link RequestStream} writes.
 *
 * <p>A whole answer (a body in memory, a file, an error) is made on the thread
 * that has it and <em>published</em> here for the stream to take on the event
 * loop ({@link #takeAnswer}); a streamed body goes to the stream part by part
 * from the thread that writes it. Every call into the stream is made on the
 * event loop; the exchange is the task that carries a publication there, so
 * the hop allocates nothing.
 */
public final class Exchange extends Deadline implements RequestFields, VirtualStarts.Task, ChunkSink, BodyFlow {
  private static final int OPEN = 0;
  private static final int ANSWERED = 1;
  private static final VarHandle STATE;
  private static final VarHandle ON_CLOSED;
  private static final VarHandle REQUEST_ID;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Exchange.class, "state", int.class);
      ON_CLOSED = MethodHandles.lookup().findVarHandle(Exchange.class, "onClosed", Runnable.class);
      REQUEST_ID = MethodHandles.lookup().findVarHandle(Exchange.class, "requestId", String.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  // What run() does: the handler, once; then telling the stream of the published answer.
  private static final int RUN_HANDLER = 0;
  private static final int TELL_STREAM = 1;

  final Dispatcher server;
  final RequestStream stream;
  final HttpRequest request;
  final EventLoop loop;
  final VirtualStarts starts;
  // Null when :request-timeout-ms is 0.
  private final RequestTimeouts timeouts;
  private final boolean keepAlive;
  private final boolean hasBody;
  HandlerMode mode;
  // The batch whose thread runs this handler, which tells the stream of its answers together.
  HandlerRun run;

  private InputStream body = EmptyBody.INSTANCE;
  private StreamingBody streaming;
  private BufferedBody buffered;

  @SuppressWarnings("unused") // through STATE
  private volatile int state;
  private int phase = RUN_HANDLER;
  private Object pending;
  // The server decided that the connection ends after this response.
  private boolean closeAfter;

  // The published answer, and the file after its head; taken once, on the loop. Plain
  // fields: a thread that publishes then tells the stream through a task on the loop,
  // which makes them visible there; the loop may find them sooner, never later.
  private HttpResponse answer;
  private DefaultFileRegion answerFile;
  // The WebSocket a 101 answer switches the connection to.
  private WebSocketSwitch webSocket;
  // The stream went away (set on the loop, read by a batch's thread); the head of a
  // streamed body went out.
  private volatile boolean closed;
  // What runs once the stream has gone (whenClosed), or null; whoever takes it runs it.
  @SuppressWarnings("unused") // through ON_CLOSED
  private volatile Runnable onClosed;
  private boolean headSent;

  // A streamed response: the head's parts, and the body until its writer takes it.
  private int streamStatus;
  private Object streamHeaders;
  private Object streamBody;
  private Object streamMap;
  private long streamLength;
  private boolean endWhenWritten;
  // Written from a virtual thread: its wake-ups go through the loop's starts.
  private volatile boolean virtualWriter;

  // Request values computed on first read; racing threads compute equal values.
  private String path;
  private IPersistentMap headers;
  private String serverName;
  private String remoteAddr;
  // Set once, through REQUEST_ID: two ids made for one request would differ.
  private volatile String requestId;

  // For the access log and the meters, when either is on: when the request arrived, what of
  // the answer went out.
  private long startMillis;
  private long startNanos;
  private int sentStatus;
  private long bytesSent;
  private boolean recorded;
  private boolean lineUnread;
  // For the meters: the loop's counts, where the request counts as active until recorded
  // (null: it never did); the template of the route that took it, and of the mount it went
  // through, if any.
  private LoopMeters active;
  private String route;
  private String mountedAt;

  // What a trusted proxy's headers say; read only with :trusted-proxies, on the first value they decide.
  private Forwarded forwarded;

  /**
   * @param keepAlive the request lets the connection carry another after it
   * @param hasBody   a body follows the request's head
   */
  public Exchange(Dispatcher server, RequestStream stream, HttpRequest request, boolean keepAlive, boolean hasBody,
                  VirtualStarts starts, RequestTimeouts timeouts) {
    this.server = server;
    this.stream = stream;
    this.request = request;
    this.loop = stream.channel().eventLoop();
    this.keepAlive = keepAlive;
    this.hasBody = hasBody;
    this.starts = starts;
    this.timeouts = timeouts;
    if (server.recording) {
      startNanos = System.nanoTime();
      // The wall clock only for the access log's :time.
      if (server.accessLog != null) startMillis = System.currentTimeMillis();
    }
  }

  /** The request counts among the active ones until it is recorded. On the event loop. */
  void countActive() {
    LoopMeters counts = server.metrics.on(loop);
    counts.requestStarted();
    active = counts;
  }

  /** The request as decoded. */
  public HttpRequest request() {
    return request;
  }

  /** True when a body follows the request's head. */
  public boolean hasBody() {
    return hasBody;
  }

  // ---- the request timeout ----

  /** Starts the request timeout's clock: the handler has this long to answer. On the event loop. */
  void startClock() {
    if (timeouts != null) timeouts.start(this);
  }

  /** Lets {@link #startClock} start the clock anew, from now. On the event loop. */
  void stopClockForRestart() {
    if (timeouts != null) timeouts.reset(this);
  }

  // The request is answered for (or never will be). On the event loop.
  private void stopClock() {
    if (timeouts != null) timeouts.done(this);
  }

  // The handler did not answer in time: unless the client is still sending the
  // body it reads, the client gets 503 and the connection closes.
  @Override
  protected void expired(long timeoutMs) {
    if (state != OPEN) return;
    StreamingBody s = streaming;
    if (s != null && s.stillArriving()) {
      timeouts.restart(this);
      return;
    }
    if (!claim() || closed) return;
    Logs.HANDLER.warn("handler for {} {} answered nothing within :request-timeout-ms ({} ms); the client got 503",
        request.method(), request.uri(), timeoutMs);
    closeAfter = true;
    refused(Refusals.REQUEST_TIMEOUT);
    publishError(503);
  }

  // The server refuses the request itself: the meters count why.
  private void refused(int reason) {
    ServerMetrics m = server.metrics;
    if (m != null) m.refused(reason);
  }

  // ---- the request body ----

  /** Lets a blocking handler read the body while it arrives. */
  void streamBody(boolean expectContinue) {
    streaming = new StreamingBody(this, loop, server.maxBody, server.lowMemoryPercent, expectContinue);
    body = streaming;
  }

  /** The body was sent compressed: the handler reads it decompressed, :max-body counting the result. */
  void inflateBody(InflatingBody.Coding coding) {
    body = new InflatingBody(body, coding, server.maxBody, server.lowMemoryPercent, streaming != null);
  }

  /** Receives the whole body, then runs the handler on the event loop. */
  void receiveThenInvoke(boolean expectContinue) {
    buffered = new BufferedBody();
    body = buffered;
    if (expectContinue) stream.sendContinue(this);
  }

  /** The next bytes of the request body, which this exchange now owns. On the event loop. */
  public void bodyData(ByteBuf data) {
    StreamingBody s = streaming;
    if (s != null) {
      s.bodyData(data);
      return;
    }
    BufferedBody b = buffered;
    if (b == null || state != OPEN) {
      data.release();
      return;
    }
    int n = data.readableBytes();
    b.add(data);
    HeapPressure.taken(n);
    if (b.size() > server.maxBody && claim()) {
      Logs.CLIENT.debug("413: the body of {} {} is over :max-body", request.method(), request.uri());
      b.discard();
      closeAfter = true;
      refused(Refusals.BODY_TOO_LARGE);
      publishError(413);
    } else if (HeapPressure.over(server.lowMemoryPercent) && claim()) {
      Logs.SERVER.warn("503: live objects may fill {}% of the heap, over :low-memory-percent;"
          + " the body of {} {} is not received further", HeapPressure.percent(), request.method(), request.uri());
      b.discard();
      closeAfter = true;
      refused(Refusals.LOW_MEMORY);
      publishError(503);
      HeapPressure.requestCollection();
    }
  }

  /** The request body ended. On the event loop. */
  public void bodyEnd() {
    StreamingBody s = streaming;
    if (s != null) {
      s.bodyEnd();
    } else if (buffered != null && state == OPEN) {
      if (server.async) startClock();
      invoke();
    }
  }

  /** The request body cannot arrive whole: {@code cause} says why. On the event loop. */
  public void bodyFailed(IOException cause) {
    StreamingBody s = streaming;
    if (s != null) s.bodyFailed(cause);
  }

  @Override
  public void pauseBody() {
    stream.pauseBody(this);
  }

  @Override
  public void resumeBody() {
    stream.resumeBody(this);
  }

  @Override
  public void sendContinue() {
    stream.sendContinue(this);
  }

  @Override
  public void abortBody() {
    stream.abort(this);
  }

  // ---- the request map's values ----

  @Override
  public int serverPort() {
    if (server.trustedProxies != null) {
      int port = forwarded().port;
      if (port > 0) return port;
    }
    return stream.channel().localAddress() instanceof InetSocketAddress inet ? inet.getPort() : -1;
  }

  @Override
  public String uri() {
    String p = path;
    if (p == null) {
      p = RequestTarget.path(request.uri());
      path = p;
    }
    return p;
  }

  @Override
  public String queryString() {
    return RequestTarget.query(request.uri());
  }

  @Override
  public boolean secure() {
    return stream.secure();
  }

  @Override
  public Keyword scheme() {
    if (server.trustedProxies != null) {
      Boolean secure = forwarded().secure;
      if (secure != null) return secure ? RequestValues.HTTPS : RequestValues.HTTP;
    }
    return stream.secure() ? RequestValues.HTTPS : RequestValues.HTTP;
  }

  @Override
  public X509Certificate sslClientCert() {
    return stream.clientCertificate();
  }

  @Override
  public Keyword requestMethod() {
    return RequestValues.method(request.method());
  }

  @Override
  public String protocol() {
    return RequestValues.protocol(request.protocolVersion());
  }

  @Override
  public InputStream body() {
    return body;
  }

  @Override
  public boolean hasRequestId() {
    return server.requestIds != null;
  }

  @Override
  public String requestId() {
    String id = requestId;
    if (id == null) {
      String made = server.requestIds.of(request.headers());
      id = (String) REQUEST_ID.compareAndExchange(this, null, made);
      if (id == null) id = made;
    }
    return id;
  }

  /**
   * A router's route took the request: {@code template} is its path as the route
   * table wrote it, {@code mount} true for a mount (whose handler may route the rest
   * again). Any thread that runs the handler, before it answers.
   */
  @Override
  public void routed(String template, boolean mount) {
    if (server.metrics == null) return;
    String outer = mountedAt;
    String full = outer == null ? template : outer + template;
    if (mount) {
      mountedAt = full;
      route = full + "/*";
    } else {
      route = full;
    }
  }

  @Override
  public String header(CharSequence name) {
    return request.headers().get(name);
  }

  @Override
  public IPersistentMap headers() {
    IPersistentMap h = headers;
    if (h == null) {
      h = RequestHeaders.toMap(request.headers());
      headers = h;
    }
    return h;
  }

  // The host the request names, else the address the client reached.
  @Override
  public String serverName() {
    String name = serverName;
    if (name == null) {
      if (server.trustedProxies != null) name = forwarded().host;
      if (name == null) name = RequestValues.namedHost(request.uri(), request.headers().get(HttpHeaderNames.HOST));
      if (name == null) name = hostAddress(stream.channel().localAddress());
      serverName = name;
    }
    return name;
  }

  @Override
  public String remoteAddr() {
    String addr = remoteAddr;
    if (addr == null) {
      if (server.trustedProxies != null) addr = forwarded().address;
      if (addr == null) addr = hostAddress(peer());
      remoteAddr = addr;
    }
    return addr;
  }

  // The connection's other end: the client, or the proxy in front, or whom a PROXY header names.
  private SocketAddress peer() {
    Channel channel = stream.channel();
    return server.proxyProtocol ? ProxyProtocol.peer(channel) : channel.remoteAddress();
  }

  // Racing threads work out equal values.
  private Forwarded forwarded() {
    Forwarded f = forwarded;
    if (f == null) {
      f = Forwarded.of(server.trustedProxies, peer(), request.headers(), stream.secure());
      forwarded = f;
    }
    return f;
  }

  // An IP address as text; a Unix domain socket's as nginx writes it (its $remote_addr):
  // "unix:" and the path, which a client's socket seldom has.
  private static String hostAddress(SocketAddress address) {
    if (address instanceof InetSocketAddress inet && inet.getAddress() != null) return inet.getAddress().getHostAddress();
    if (address instanceof DomainSocketAddress unix) return "unix:" + unix.path();
    if (address instanceof UnixDomainSocketAddress unix) return "unix:" + unix.getPath();
    return String.valueOf(address);
  }

  // ---- running the handler ----

  @Override
  public void run() {
    if (phase == TELL_STREAM) {
      stream.answersReady();
    } else {
      invoke();
    }
  }

  /** Runs the handler: the one place any handler is called. */
  void invoke() {
    RingRequest ring = new RingRequest(this);
    try {
      if (server.async) {
        server.handler.invoke(ring, new Responder(this, false), new Responder(this, true));
      } else {
        // A field, not a local, so that send can let go of it (see send).
        pending = server.handler.invoke(ring);
        if (claim()) {
          send();
        } else {
          discardLate(pending);
          pending = null;
        }
      }
    } catch (Throwable t) {
      fail(t);
    }
  }

  private boolean claim() {
    return STATE.compareAndSet(this, OPEN, ANSWERED);
  }

  // An answer that came after the request was answered for (timeout, error): its body
  // will never be sent, but a stream or file handle in it must still be closed.
  static void discardLate(Object answer) {
    if (ResponseMaps.isResponse(answer)) Responses.closeQuietly(ResponseMaps.get(answer, ResponseMaps.BODY));
  }

  /** An async handler's {@code respond}; any thread. */
  void respond(Object answer) {
    if (claim()) {
      pending = answer;
      send();
    } else {
      discardLate(answer);
      Logs.HANDLER.warn("respond called on {} {}, which already has its response; ignored", request.method(),
          request.uri());
    }
  }

  /** No thread for the handler (say, no memory): its client gets a 500 like any failed handler's. */
  @Override
  public void failedToStart(Throwable cause) {
    fail(cause);
  }

  /** A handler threw, or an async handler called {@code raise}; any thread. */
  void fail(Throwable cause) {
    if (claim()) {
      int status = Failures.report(request, cause);
      // The body the handler read was over :max-body, or the heap nearly full.
      if (status == 413) refused(Refusals.BODY_TOO_LARGE);
      if (status == 503) refused(Refusals.LOW_MEMORY);
      publishError(status);
    } else {
      Failures.reportLate(request, cause);
    }
  }

  /**
   * Answers for the server, before any handler runs: the request is refused
   * with {@code status}, and the connection ends after the answer. On the event loop.
   */
  public void refuse(int status, String why) {
    if (!claim()) return;
    if (Logs.CLIENT.isDebugEnabled()) {
      Logs.CLIENT.debug("{}: {} ({} {})", status, why, request.method(), request.uri());
    }
    closeAfter = true;
    ServerMetrics m = server.metrics;
    if (m != null) m.refused(Refusals.ofStatus(status));
    publishError(status);
  }

  // ---- the answer ----

  /** The answer published for the stream, once; null before (and after). On the event loop. */
  public HttpResponse takeAnswer() {
    HttpResponse a = answer;
    if (a != null) {
      answer = null;
      if (server.recording) {
        sentStatus = a.status().code();
        if (a instanceof FullHttpResponse full) bytesSent = full.content().readableBytes();
      }
    }
    return a;
  }

  /** The WebSocket the connection becomes once the 101 {@link #takeAnswer} gave is out, or null. */
  public WebSocketSwitch takeWebSocket() {
    WebSocketSwitch w = webSocket;
    webSocket = null;
    return w;
  }

  /** The file whose bytes follow the head {@link #takeAnswer} gave, or null. */
  public DefaultFileRegion takeAnswerFile() {
    DefaultFileRegion f = answerFile;
    answerFile = null;
    if (f != null) bytesSent = f.count();
    return f;
  }

  /**
   * The whole response went out (its last part handed to the channel): the
   * request body is let go of. True when the connection may carry another
   * request. On the event loop.
   */
  public boolean ended() {
    record(false);
    stopClock();
    StreamingBody s = streaming;
    if (s != null) {
      if (s.tooLarge()) {
        closeAfter = true;
      } else {
        s.detach();
      }
    }
    return keepAlive && !closeAfter;
  }

  /** True when the stream went away: a handler not yet run need not run. */
  boolean closed() {
    return closed;
  }

  /** The stream went away: nothing more of the response can go out. On the event loop. */
  public void streamClosed() {
    record(true);
    closed = true;
    Runnable then = (Runnable) ON_CLOSED.getAndSet(this, null);
    if (then != null) then.run();
    stopClock();
    DefaultFileRegion f = answerFile;
    if (answer != null && f != null) {
      answerFile = null;
      f.release();
    }
    StreamingBody s = streaming;
    if (s != null) s.detach();
  }

  /**
   * The request's line could not be read: its request is the decoder's stand-in,
   * which the access log does not show as the client's. On the event loop.
   */
  public void requestLineUnread() {
    lineUnread = true;
  }

  /**
   * The stream is done with this exchange, which it may have reset (a stalled
   * client, a response cut short) without telling it: unless it {@link #ended},
   * the access log has it as aborted. On the event loop.
   */
  public void streamDone() {
    record(true);
  }

  // The exchange is finished, once: the response went out whole, or not. The access log
  // records it, the meters time it.
  private void record(boolean aborted) {
    if (recorded || !server.recording) return;
    recorded = true;
    long end = System.nanoTime();
    long nanos = end - startNanos;
    ServerMetrics m = server.metrics;
    if (m != null) {
      // Timed before it leaves the active gauge, so no scrape finds it neither active nor timed.
      LoopMeters counts = active != null ? active : m.on(loop);
      counts.requestFinished(route, request.method(), sentStatus, nanos, end);
      if (active != null) counts.requestEnded();
    }
    AccessLog log = server.accessLog;
    if (log != null) {
      log.add(new AccessRecord(lineUnread ? null : request, remoteAddr(), sentStatus, bytesSent, startMillis,
          nanos, requestId(), aborted));
    }
  }

  // The connection ends after this response: the server decided so, or the connection drains
  // (the server stops). Recorded, so that the connection closes only after a response that said
  // so: a close the client was not told of races the next request it sends (RFC 9112 §9.6).
  private boolean closing() {
    if (!closeAfter && draining()) closeAfter = true;
    return closeAfter;
  }

  private boolean draining() {
    return stream.draining() || server.stopping();
  }

  private void publish(HttpResponse response, DefaultFileRegion file) {
    if (!closeAfter && Responses.closes(response)) closeAfter = true;
    answerFile = file;
    answer = response;
    tellStream();
  }

  private void publishError(int status) {
    publish(Responses.error(status, request.protocolVersion(), closing(), server.serverHeader), null);
  }

  // The stream learns of the answer on the loop: at once there, with the rest of its batch
  // on the batch's thread, else through a task.
  private void tellStream() {
    if (loop.inEventLoop()) {
      stream.answersReady();
      return;
    }
    HandlerRun r = run;
    if (r != null && r.isRunningOn(Thread.currentThread())) {
      r.answered();
      return;
    }
    phase = TELL_STREAM;
    try {
      loop.execute(this);
    } catch (RejectedExecutionException stopped) {
      // The server stopped past :shutdown-timeout-ms: the connection is gone with its loop.
      Responses.closeQuietly(takeAnswerFile());
    }
  }

  /** Sends the handler's answer in {@link #pending}, on the thread that has it. */
  private void send() {
    Object answer = pending;
    pending = null;
    if (!ResponseMaps.isResponse(answer)) {
      refuse(new InvalidResponseException("the handler returned " + describe(answer) + ", not a response map"));
      return;
    }
    Object listener = ResponseMaps.get(answer, ResponseMaps.WEBSOCKET_LISTENER);
    if (listener != null) {
      switchToWebSocket(answer, listener);
      return;
    }
    Object body = ResponseMaps.get(answer, ResponseMaps.BODY);
    boolean head = request.method() == HttpMethod.HEAD;
    int status;
    try {
      status = ResponseMaps.status(answer);
      Object headerMap = ResponseMaps.get(answer, ResponseMaps.HEADERS);
      if (head || Responses.inMemory(body) || Responses.bodiless(status)) {
        publish(Responses.full(status, headerMap, body, head, request.protocolVersion(), keepAlive, closing(),
            server.serverHeader), null);
        return;
      }
      if (Responses.isFile(body)) {
        Responses.checkFile(body);
        File file = Responses.file(body);
        long length = file.length();
        HttpResponse h = Responses.head(status, headerMap, file, length, request.protocolVersion(), keepAlive,
            closing(), server.serverHeader);
        publish(h, new DefaultFileRegion(file, 0, length));
        return;
      }
      // Keep the parts of the head and the body, and let go of the map: its :body
      // would keep the head of a lazy seq alive for as long as the seq is sent.
      streamLength = ResponseMaps.declaredLength(headerMap);
      streamHeaders = headerMap;
    } catch (InvalidResponseException e) {
      refuse(e);
      return;
    }
    boolean builtIn = BodyStreamer.isBuiltIn(body);
    streamStatus = status;
    streamMap = builtIn ? null : answer; // protocol writers get the map, as Ring's do
    streamBody = body;
    endWhenWritten = !server.async || builtIn;
    answer = null;
    body = null;
    HandlerRun r = run;
    if (r != null && r.isRunningOn(Thread.currentThread())) {
      // The answers before this one go out first.
      r.tellStream();
      stream();
    } else if (!loop.inEventLoop() && !server.async) {
      stream();
    } else {
      // Never block the event loop, nor the thread that called respond.
      server.virtualThreads.newThread(this::stream).start();
    }
  }

  // A listener in the answer (Ring 1.11): a 101 and the switch, or the reason the request cannot have it.
  private void switchToWebSocket(Object answer, Object listener) {
    WebSocketHandshake.Refusal no = !stream.switchesToWebSocket()
        ? new WebSocketHandshake.Refusal(400, "WebSockets run over HTTP/1.1 only")
        : draining() ? new WebSocketHandshake.Refusal(503, "the server is stopping")
        : WebSocketHandshake.check(request, server.webSockets);
    if (no != null) {
      Logs.CLIENT.debug("{} {}: {} from {}", request.method(), request.uri(), no.status(), no.why());
      FullHttpResponse refusal = Responses.error(no.status(), request.protocolVersion(), closing(),
          server.serverHeader);
      // RFC 6455 §4.4: the versions the server speaks.
      if (no.status() == 426) refusal.headers().set(HttpHeaderNames.SEC_WEBSOCKET_VERSION, "13");
      publish(refusal, null);
      return;
    }
    Object protocol = ResponseMaps.get(answer, ResponseMaps.WEBSOCKET_PROTOCOL);
    if (protocol != null && !(protocol instanceof String p && WebSocketHandshake.offered(request, p))) {
      refuse(new InvalidResponseException(":ring.websocket/protocol " + describe(protocol)
          + " is not a protocol the client offered in Sec-WebSocket-Protocol"));
      return;
    }
    WebSocketListener adapted;
    FullHttpResponse switching;
    try {
      adapted = (WebSocketListener) server.webSocketListener.invoke(listener);
      switching = Responses.full(101, ResponseMaps.get(answer, ResponseMaps.HEADERS), null, false,
          HttpVersion.HTTP_1_1, true, false, server.serverHeader);
    } catch (InvalidResponseException e) {
      refuse(e);
      return;
    }
    WebSocketServerExtension deflate = WebSocketHandshake.deflate(request, server.webSockets);
    HttpHeaders h = switching.headers();
    h.set(HttpHeaderNames.UPGRADE, HttpHeaderValues.WEBSOCKET);
    h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
    h.set(HttpHeaderNames.SEC_WEBSOCKET_ACCEPT, WebSocketHandshake.accept(request));
    if (protocol != null) h.set(HttpHeaderNames.SEC_WEBSOCKET_PROTOCOL, protocol);
    if (deflate != null) h.set(HttpHeaderNames.SEC_WEBSOCKET_EXTENSIONS, WebSocketHandshake.extensionsField(deflate));
    webSocket = new WebSocketSwitch(adapted, server.runner(server.modeOf(this), loop, starts),
        (String) protocol, deflate, server.openSockets, Side.SERVER);
    publish(switching, null);
  }

  // For an answer already claimed that cannot be sent: log why, send 500 instead.
  private void refuse(InvalidResponseException e) {
    Logs.HANDLER.error("handler for {} {} failed; the client got 500", request.method(), request.uri(), e);
    publishError(500);
  }

  // ---- streamed bodies ----

  private void stream() {
    virtualWriter = Thread.currentThread().isVirtual();
    ResponseStream out = new ResponseStream(this, stream.channel().alloc(), streamLength);
    try {
      Charset charset = ResponseMaps.charset(ResponseMaps.headerValue(streamHeaders, "content-type"));
      Object map = streamMap;
      streamMap = null;
      BodyStreamer.write(takeStreamBody(), map, out, charset, server.bodyWriter);
      if (endWhenWritten) out.close();
    } catch (Throwable t) {
      out.abort(t);
    }
  }

  // Hands the body over without a local here keeping it (see send).
  private Object takeStreamBody() {
    Object b = streamBody;
    streamBody = null;
    return b;
  }

  @Override
  public void whenClosed(Runnable then) {
    ON_CLOSED.setVolatile(this, then);
    // The stream went away before the hook was set: streamClosed may not have seen it.
    if (closed) {
      Runnable r = (Runnable) ON_CLOSED.getAndSet(this, null);
      if (r != null) r.run();
    }
  }

  @Override
  public void drain(ResponseStream from) {
    loop.execute(() -> sendOnLoop(from));
  }

  @Override
  public void resume(ResponseStream from) {
    if (virtualWriter && loop.inEventLoop()) {
      starts.wake(from::wakeWriter);
    } else {
      from.wakeWriter();
    }
  }

  private void sendOnLoop(ResponseStream from) {
    ResponseStream.Chunks chunks = from.take();
    int length = chunks.length();
    if (closed) {
      release(chunks);
      from.written(length, new IOException("the connection closed before the response was sent"));
      return;
    }
    if (chunks.first() && !startStream(from, length)) {
      release(chunks);
      return;
    }
    Channel channel = stream.channel();
    ByteBuf[] data = chunks.data();
    // Writes complete in order: the last one's outcome is the batch's.
    bytesSent += length;
    ChannelPromise done = channel.newPromise();
    done.addListener(f -> from.written(length, f.cause()));
    int last = chunks.last() ? data.length : data.length - 1;
    for (int i = 0; i < data.length; i++) {
      stream.writePart(this, new DefaultHttpContent(data[i]), i == last ? done : channel.voidPromise());
    }
    if (chunks.last()) {
      stream.writePart(this, LastHttpContent.EMPTY_LAST_CONTENT, done);
    } else if (data.length == 0) {
      done.setSuccess();
    }
  }

  // Chunks that will not be written.
  private static void release(ResponseStream.Chunks chunks) {
    for (ByteBuf b : chunks.data()) b.release();
  }

  // Sends the head of a streamed response; false when the response was refused instead.
  private boolean startStream(ResponseStream from, int length) {
    stopClock();
    HttpResponse head;
    try {
      head = Responses.head(streamStatus, streamHeaders, null, -1, request.protocolVersion(), keepAlive, closing(),
          server.serverHeader);
    } catch (InvalidResponseException e) {
      refuse(e);
      from.written(length, new IOException("the response was refused: " + e.getMessage()));
      return false;
    }
    if (Responses.closes(head) || Responses.closeDelimited(head)) closeAfter = true;
    headSent = true;
    sentStatus = streamStatus;
    stream.writePart(this, head, stream.channel().voidPromise());
    return true;
  }

  @Override
  public void abort(ResponseStream from, Throwable cause) {
    boolean tooLarge = Failures.causedBy(cause, BodyTooLargeException.class);
    if (ClientAbortException.unlogged(cause)) {
      Failures.clientAborted(request, cause, 0);
    } else if (!from.isConnectionFailure(cause) && !ClientAbortException.isCause(cause) && !tooLarge) {
      Logs.HANDLER.error("writing the response body for {} {} failed", request.method(), request.uri(), cause);
    }
    int status = tooLarge ? 413 : 500;
    loop.execute(() -> {
      if (closed) return;
      if (headSent) {
        stream.abort(this);
        record(true);
      } else {
        if (tooLarge) {
          closeAfter = true;
          refused(Refusals.BODY_TOO_LARGE);
        }
        publishError(status);
      }
    });
  }

  private static String describe(Object o) {
    return o == null ? "nil" : "a " + o.getClass().getName();
  }
}
