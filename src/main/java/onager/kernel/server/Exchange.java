package onager.kernel.server;

import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoop;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.internal.http.HttpServerRequestInternal;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.impl.ConnectionBase;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.Charset;
import onager.kernel.limits.Deadline;
import onager.kernel.limits.HeapPressure;
import onager.kernel.limits.RequestTimeouts;
import onager.kernel.log.Logs;
import onager.kernel.request.BodyTooLargeException;
import onager.kernel.request.BufferedBody;
import onager.kernel.request.ClientAbortException;
import onager.kernel.request.EmptyBody;
import onager.kernel.request.InflatingBody;
import onager.kernel.request.RequestHeaders;
import onager.kernel.request.StreamingBody;
import onager.kernel.response.BodyStreamer;
import onager.kernel.response.ChunkSink;
import onager.kernel.response.ResponseHead;
import onager.kernel.response.InvalidResponseException;
import onager.kernel.response.ResponseMaps;
import onager.kernel.response.ResponseStream;
import onager.kernel.response.ResponseWriter;
import onager.kernel.ring.RingRequest;

/**
 * One request and its response, from the moment Vert.x hands the request over
 * until the response has ended.
 *
 * <p>It is the request map's source ({@link RequestFields}), the task that runs the handler
 * on its thread, and the task that writes the response on the event loop, so the
 * hop from one thread to the other allocates nothing. Every call into Vert.x is
 * made on the event loop; other threads hand work to it through {@link #loop}.
 */
final class Exchange extends Deadline implements RequestFields, VirtualStarts.Task, ChunkSink {
  private static final int OPEN = 0;
  private static final int ANSWERED = 1;
  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(Exchange.class, "state", int.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static final int RUN_HANDLER = 0;
  private static final int WRITE_RESPONSE = 1;

  private static final Buffer EMPTY = BufferInternal.buffer(Unpooled.EMPTY_BUFFER);

  final Dispatcher server;
  final HttpServerRequest request;
  final HttpServerResponse response;
  final EventLoop loop;
  private final VirtualStarts starts;
  // Null when :request-timeout-ms is 0.
  private final RequestTimeouts timeouts;

  private InputStream body = EmptyBody.INSTANCE;
  private StreamingBody streaming;

  @SuppressWarnings("unused") // through STATE
  private volatile int state;
  private int phase = RUN_HANDLER;
  private Object pending;
  private boolean closeAfterEnd;

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
  private IPersistentMap headers;
  private String serverName;
  private String remoteAddr;

  Exchange(Dispatcher server, HttpServerRequest request, RequestTimeouts timeouts, VirtualStarts starts) {
    this.server = server;
    this.starts = starts;
    this.request = request;
    this.response = request.response();
    this.loop = ((HttpServerRequestInternal) request).context().nettyEventLoop();
    this.timeouts = timeouts;
  }

  /** Starts the request timeout's clock: the handler has this long to answer. On the event loop. */
  void startClock() {
    if (timeouts != null) timeouts.start(this);
  }

  // The request is answered for (or never will be): stop tracking it, so that a long
  // or broken-off response does not keep it until the timeout. On the event loop.
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
    if (!claim()) return;
    // A client that left: its connection logged it.
    if (response.closed()) return;
    Logs.HANDLER.warn("handler for {} {} answered nothing within :request-timeout-ms ({} ms); the client got 503",
        request.method(), request.uri(), timeoutMs);
    closeAfterEnd = true;
    writeError(503);
  }

  // ---- the request body ----

  /** Lets a blocking handler read the body while it arrives. */
  void streamBody(boolean expectContinue) {
    streaming = new StreamingBody(request, loop, server.maxBody, server.lowMemoryPercent, expectContinue);
    body = streaming;
  }

  /** The body was sent compressed: the handler reads it decompressed, :max-body counting the result. */
  void inflateBody(InflatingBody.Coding coding) {
    body = new InflatingBody(body, coding, server.maxBody, server.lowMemoryPercent, streaming != null);
  }

  /** Receives the whole body, then runs the handler on the event loop. */
  void receiveThenInvoke(boolean expectContinue) {
    BufferedBody buffered = new BufferedBody();
    body = buffered;
    request.handler(chunk -> {
      if (state != OPEN) return;
      buffered.add(chunk);
      HeapPressure.taken(chunk.length());
      if (buffered.size() > server.maxBody && claim()) {
        Logs.CLIENT.debug("413: the body of {} {} is over :max-body", request.method(), request.uri());
        buffered.discard();
        closeAfterEnd = true;
        finished(ResponseWriter.endError(response, 413, server.serverHeader, true));
      } else if (HeapPressure.over(server.lowMemoryPercent) && claim()) {
        Logs.SERVER.warn("503: live objects may fill {}% of the heap, over :low-memory-percent;"
            + " the body of {} {} is not received further", HeapPressure.percent(), request.method(), request.uri());
        buffered.discard();
        closeAfterEnd = true;
        finished(ResponseWriter.endError(response, 503, server.serverHeader, true));
        HeapPressure.requestCollection();
      }
    });
    request.endHandler(v -> {
      if (state == OPEN) {
        startClock();
        invoke();
      }
    });
    if (expectContinue) response.writeContinue();
  }

  // ---- the request map's values ----

  @Override
  public int serverPort() {
    return request.localAddress().port();
  }

  @Override
  public String uri() {
    return request.path();
  }

  @Override
  public String queryString() {
    return request.query();
  }

  @Override
  public boolean secure() {
    return request.isSSL();
  }

  @Override
  public Keyword requestMethod() {
    return RequestValues.method(request.method());
  }

  @Override
  public String protocol() {
    return RequestValues.protocol(request.version());
  }

  @Override
  public InputStream body() {
    return body;
  }

  @Override
  public String header(CharSequence name) {
    return request.getHeader(name);
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

  @Override
  public String serverName() {
    String name = serverName;
    if (name == null) {
      name = RequestValues.namedHost(request.uri(), request.getHeader(HttpHeaders.HOST));
      if (name == null) name = request.localAddress().hostAddress();
      serverName = name;
    }
    return name;
  }

  @Override
  public String remoteAddr() {
    String addr = remoteAddr;
    if (addr == null) {
      SocketAddress remote = request.remoteAddress();
      addr = remote.hostAddress() != null ? remote.hostAddress() : remote.toString();
      remoteAddr = addr;
    }
    return addr;
  }

  // ---- running the handler ----

  @Override
  public void run() {
    if (phase == WRITE_RESPONSE) {
      writeDirect(pending);
    } else {
      invoke();
    }
  }

  void invoke() {
    RingRequest ring = new RingRequest(this);
    try {
      if (server.async) {
        server.handler.invoke(ring, new Responder(this, false), new Responder(this, true));
      } else {
        // A field, not a local, so that send can let go of it (see send).
        pending = server.handler.invoke(ring);
        sendReturned();
      }
    } catch (Throwable t) {
      fail(t);
    }
  }

  /**
   * The sync handler already ran, on the loop's {@link LoopShortcut}: sends what it
   * returned, or answers for what it threw, as {@link #invoke} does. On the event loop.
   */
  void answered(Object returned, Throwable thrown) {
    if (thrown != null) {
      fail(thrown);
      return;
    }
    pending = returned;
    try {
      sendReturned();
    } catch (Throwable t) {
      fail(t);
    }
  }

  private void sendReturned() {
    if (claim()) {
      send(true);
    } else {
      discardLate(pending);
      pending = null;
    }
  }

  private boolean claim() {
    return STATE.compareAndSet(this, OPEN, ANSWERED);
  }

  // An answer that came after the request was answered for (timeout, error): its body
  // will never be sent, but a stream or file handle in it must still be closed.
  static void discardLate(Object answer) {
    if (ResponseMaps.isResponse(answer) && ResponseMaps.get(answer, ResponseMaps.BODY) instanceof Closeable c) {
      try {
        c.close();
      } catch (IOException | RuntimeException ignored) {
        // Nothing was going to read it.
      }
    }
  }

  /** An async handler's {@code respond}; any thread. */
  void respond(Object answer) {
    if (claim()) {
      pending = answer;
      send(false);
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
      onLoop(() -> writeError(status));
    } else {
      Failures.reportLate(request, cause);
    }
  }

  private void logHandlerFailure(Throwable cause) {
    Logs.HANDLER.error("handler for {} {} failed; the client got 500", request.method(), request.uri(), cause);
  }

  private void onLoop(Runnable task) {
    if (loop.inEventLoop()) {
      task.run();
    } else {
      loop.execute(task);
    }
  }

  // ---- writing the response ----

  /**
   * Sends the answer in {@link #pending}; {@code handlerThread}: we are on the
   * blocking thread that ran the handler.
   */
  private void send(boolean handlerThread) {
    Object answer = pending;
    pending = null;
    if (!ResponseMaps.isResponse(answer)) {
      refuse(new InvalidResponseException("the handler returned " + describe(answer) + ", not a response map"));
      return;
    }
    Object body = ResponseMaps.get(answer, ResponseMaps.BODY);
    if (BodyStreamer.isDirect(body) || isHead() || bodilessStatus(answer)) {
      if (loop.inEventLoop()) {
        writeDirect(answer);
      } else {
        pending = answer;
        phase = WRITE_RESPONSE;
        loop.execute(this);
      }
      return;
    }
    // Keep the parts of the head and the body, and let go of the map: its :body
    // would keep the head of a lazy seq alive for as long as the seq is sent.
    boolean builtIn = BodyStreamer.isBuiltIn(body);
    streamStatus = ResponseMaps.status(answer);
    streamHeaders = ResponseMaps.get(answer, ResponseMaps.HEADERS);
    try {
      streamLength = ResponseMaps.declaredLength(streamHeaders);
    } catch (InvalidResponseException e) {
      refuse(e);
      return;
    }
    streamMap = builtIn ? null : answer; // protocol writers get the map, as Ring's do
    streamBody = body;
    endWhenWritten = !server.async || builtIn;
    answer = null;
    body = null;
    if (handlerThread && !loop.inEventLoop()) {
      stream();
    } else {
      // Never block the event loop, nor the thread that called respond.
      server.virtualThreads.newThread(this::stream).start();
    }
  }

  // For an answer already claimed that cannot be sent: log why, send 500 instead.
  private void refuse(InvalidResponseException e) {
    logHandlerFailure(e);
    onLoop(() -> writeError(500));
  }

  private boolean isHead() {
    return request.method() == io.vertx.core.http.HttpMethod.HEAD;
  }

  private static boolean bodilessStatus(Object answer) {
    try {
      return ResponseWriter.bodiless(ResponseMaps.status(answer));
    } catch (InvalidResponseException e) {
      return true; // the direct path reports it
    }
  }

  private void writeDirect(Object answer) {
    Object body = ResponseMaps.get(answer, ResponseMaps.BODY);
    Object headers = ResponseMaps.get(answer, ResponseMaps.HEADERS);
    Future<Void> end;
    try {
      ResponseWriter.checkDirectBody(body);
      ResponseHead head = ResponseWriter.head(response, ResponseMaps.status(answer), headers, server.serverHeader);
      if (server.draining) response.headers().set("connection", "close");
      closeAfterEnd |= saysClose(head.flags);
      end = BodyStreamer.isDirect(body)
          ? ResponseWriter.endDirect(response, body, head, isHead())
          : ResponseWriter.endUnread(response, body);
    } catch (InvalidResponseException e) {
      refuse(e);
      return;
    }
    finished(end);
  }

  // The handler's own Connection: close. Vert.x keeps the connection open unless the
  // request asked for the close, but a server that sends it must close after the response.
  private boolean saysClose(int flags) {
    return (flags & ResponseMaps.HAS_CONNECTION) != 0
        && response.headers().contains(HttpHeaders.CONNECTION, HttpHeaders.CLOSE, true);
  }

  private void writeError(int status) {
    stopClock();
    if (response.ended()) return;
    if (response.headWritten()) {
      request.connection().close();
      return;
    }
    // Refusing the rest of a body, or answering for a handler that may still run: the connection ends.
    closeAfterEnd |= status == 413 || status == 503;
    boolean close = closeAfterEnd || server.draining;
    finished(ResponseWriter.endError(response, status, server.serverHeader, close));
  }

  /** The response has ended (or will, when {@code end} completes): settle the connection. */
  private void finished(Future<Void> end) {
    stopClock();
    StreamingBody s = streaming;
    if (s != null) {
      if (s.tooLarge()) {
        closeAfterEnd = true;
      } else {
        s.detach();
      }
    }
    if (closeAfterEnd) {
      end.onComplete(ar -> request.connection().close());
    }
  }

  // ---- streamed bodies ----

  private void stream() {
    virtualWriter = Thread.currentThread().isVirtual();
    ResponseStream out = new ResponseStream(this, ((ConnectionBase) request.connection()).channel().alloc(),
        streamLength);
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
    Object body = streamBody;
    streamBody = null;
    return body;
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
    if (response.ended()) {
      release(chunks);
      from.written(length, new java.io.IOException("the response has already ended"));
      return;
    }
    if (chunks.first() && !startStream(from, length)) {
      release(chunks);
      return;
    }
    ByteBuf[] data = chunks.data();
    Future<Void> done;
    int handed = 0;
    try {
      // Writes complete in order, so the last one's outcome is the batch's. Vert.x writes
      // a slice of each chunk that it never releases: the chunk goes back to the pool
      // once its write completes (or fails). A write that throws has taken nothing.
      for (; handed < data.length - 1; handed++) {
        releaseWhenDone(response.write(BufferInternal.buffer(data[handed])), data[handed]);
      }
      Buffer tail = data.length == 0 ? EMPTY : BufferInternal.buffer(data[handed]);
      done = chunks.last() ? response.end(tail) : response.write(tail);
      if (data.length > 0) releaseWhenDone(done, data[handed++]);
    } catch (RuntimeException e) {
      for (; handed < data.length; handed++) data[handed].release();
      from.written(length, e);
      return;
    }
    done.onComplete(ar -> from.written(length, ar.cause()));
    if (chunks.last()) finished(done);
  }

  private static void releaseWhenDone(Future<Void> write, ByteBuf chunk) {
    write.onComplete(ar -> chunk.release());
  }

  // Chunks that will not be written.
  private static void release(ResponseStream.Chunks chunks) {
    for (ByteBuf b : chunks.data()) b.release();
  }

  // Sends the head of a streamed response; false when the response was refused instead.
  private boolean startStream(ResponseStream from, int length) {
    stopClock();
    try {
      int flags = ResponseWriter.head(response, streamStatus, streamHeaders, server.serverHeader).flags;
      if (server.draining) response.headers().set("connection", "close");
      closeAfterEnd |= saysClose(flags);
      if ((flags & (ResponseMaps.HAS_CONTENT_LENGTH | ResponseMaps.HAS_TRANSFER_ENCODING)) == 0) {
        if (request.version() == HttpVersion.HTTP_1_0) {
          // No chunked coding in HTTP/1.0: the end of the connection ends the body.
          closeAfterEnd = true;
        } else {
          response.setChunked(true);
        }
      }
      return true;
    } catch (InvalidResponseException e) {
      refuse(e);
      from.written(length, new java.io.IOException("the response was refused: " + e.getMessage()));
      return false;
    }
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
    loop.execute(() -> writeError(status));
  }

  private static String describe(Object o) {
    return o == null ? "nil" : "a " + o.getClass().getName();
  }
}
