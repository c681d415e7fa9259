package onager.kernel.http1;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.Http1ServerConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import onager.kernel.http.RejectedRequestException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The strict decoder alone on an embedded channel: raw request bytes in, the
 * decoded messages and what it told its {@link HeadListener} out.
 */
final class StrictRequestDecoderTest {
  private static final int MAX_HEADER_COUNT = 4;

  /** Notes what the decoder tells, in order: "pending", or the kind of head seen. */
  private static final class Heads implements HeadListener {
    final List<String> told = new ArrayList<>();

    @Override
    public void headPending() {
      told.add("pending");
    }

    @Override
    public void headSeen(int kind) {
      told.add(switch (kind) {
        case HEAD_PLAIN -> "plain";
        case HEAD_TO_CHECK -> "to-check";
        case HEAD_BODY -> "body";
        default -> "kind " + kind;
      });
    }
  }

  private final Heads heads = new Heads();
  private final EmbeddedChannel channel = new EmbeddedChannel(new StrictRequestDecoder(
      new Http1ServerConfig().setMaxInitialLineLength(4096).setMaxHeaderSize(8192).setMaxChunkSize(8192),
      MAX_HEADER_COUNT, heads));

  @AfterEach
  void close() {
    Object msg;
    while ((msg = channel.readInbound()) != null) ReferenceCountUtil.release(msg);
    channel.finishAndReleaseAll();
  }

  private void write(String raw) {
    channel.writeInbound(Unpooled.copiedBuffer(raw, StandardCharsets.US_ASCII));
  }

  // The request decoded from raw, what followed it (its content, if any) let go of.
  private HttpRequest request(String raw) {
    write(raw);
    HttpRequest request = assertInstanceOf(HttpRequest.class, channel.readInbound());
    if (request instanceof LastHttpContent last) last.release();
    Object rest;
    while ((rest = channel.readInbound()) != null) ReferenceCountUtil.release(rest);
    return request;
  }

  private void assertRefused(int status, String raw) {
    HttpRequest request = request(raw);
    assertTrue(request.decoderResult().isFailure(), "refused: " + raw);
    RejectedRequestException cause = assertInstanceOf(RejectedRequestException.class,
        request.decoderResult().cause());
    assertEquals(status, cause.status(), cause.getMessage());
  }

  private void assertPasses(String raw) {
    HttpRequest request = request(raw);
    assertTrue(request.decoderResult().isSuccess(), () -> String.valueOf(request.decoderResult().cause()));
  }

  // ---- heads that pass, and their kinds ----

  @Test
  void headWithoutFramingHeadersIsPlain() {
    assertPasses("GET /a?b=c HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\n\r\n");
    assertEquals(List.of("plain"), heads.told);
  }

  @ParameterizedTest
  @ValueSource(strings = {"Content-Length: 2", "Expect: 100-continue", "Upgrade: websocket", "Connection: close",
      "content-length: 0", "CONNECTION: keep-alive"})
  void headWithFramingOrUpgradeHeaderIsToCheck(String header) {
    write("POST / HTTP/1.1\r\nHost: a\r\n" + header + "\r\n\r\n");
    HttpRequest request = assertInstanceOf(HttpRequest.class, channel.readInbound());
    assertTrue(request.decoderResult().isSuccess());
    assertEquals(List.of("to-check"), heads.told);
  }

  @Test
  void headWithTransferEncodingHasBody() {
    write("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n");
    HttpRequest request = assertInstanceOf(HttpRequest.class, channel.readInbound());
    assertTrue(request.decoderResult().isSuccess());
    HttpContent content = assertInstanceOf(HttpContent.class, channel.readInbound());
    assertEquals("hi", content.content().toString(StandardCharsets.US_ASCII));
    content.release();
    assertInstanceOf(LastHttpContent.class, channel.<Object>readInbound());
    assertEquals(List.of("body"), heads.told);
  }

  @Test
  void http10RequestNeedsNoHost() {
    assertPasses("GET / HTTP/1.0\r\n\r\n");
  }

  @Test
  void absoluteFormAndAsteriskTargetsPass() {
    assertPasses("GET http://example.com/x HTTP/1.1\r\nHost: example.com\r\n\r\n");
    assertPasses("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n");
  }

  @Test
  void headerCountAtTheLimitPasses() {
    assertPasses("GET / HTTP/1.1\r\nHost: a\r\nB: 1\r\nC: 2\r\nD: 3\r\n\r\n");
  }

  // ---- a head in pieces ----

  @Test
  void partOfAHeadIsPendingUntilTheRestArrives() {
    write("GET / HT");
    assertNull(channel.readInbound());
    assertEquals(List.of("pending"), heads.told);
    write("TP/1.1\r\nHost: a\r\n");
    assertNull(channel.readInbound());
    write("\r\n");
    HttpRequest request = assertInstanceOf(HttpRequest.class, channel.readInbound());
    assertTrue(request.decoderResult().isSuccess());
    assertEquals("plain", heads.told.get(heads.told.size() - 1));
    assertTrue(heads.told.subList(0, heads.told.size() - 1).stream().allMatch("pending"::equals), heads.told::toString);
  }

  @Test
  void bodyBytesAreNotAPendingHead() {
    write("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\nab");
    assertNotNull(channel.readInbound());
    ReferenceCountUtil.release(channel.readInbound());
    heads.told.clear();
    write("cd");
    assertInstanceOf(LastHttpContent.class, channel.<Object>readInbound()).release();
    assertEquals(List.of(), heads.told);
  }

  @Test
  void twoHeadsInOneWriteAreEachSeen() {
    write("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n");
    assertEquals("/1", assertInstanceOf(HttpRequest.class, channel.readInbound()).uri());
    ReferenceCountUtil.release(channel.readInbound());
    assertEquals("/2", assertInstanceOf(HttpRequest.class, channel.readInbound()).uri());
    assertEquals(List.of("plain", "to-check"), heads.told);
  }

  // ---- refusals ----

  @Test
  void obsoleteLineFoldingIsRefused() {
    assertRefused(400, "GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n c\r\n\r\n");
  }

  @Test
  void foldingSplitAcrossReadsIsRefused() {
    write("GET / HTTP/1.1\r\nHost: a\r\nX-A: b\r\n");
    assertRefused(400, "\tc\r\n\r\n");
  }

  @Test
  void twoHostHeadersAreRefused() {
    assertRefused(400, "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
    assertEquals(List.of(), heads.told);
  }

  @Test
  void http11RequestWithoutHostIsRefused() {
    assertRefused(400, "GET / HTTP/1.1\r\nAccept: */*\r\n\r\n");
  }

  @Test
  void hostWithUserinfoIsRefused() {
    assertRefused(400, "GET / HTTP/1.1\r\nHost: user@a\r\n\r\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"get / HTTP/1.1", "G=T / HTTP/1.1", " GET / HTTP/1.1"})
  void badMethodIsRefused(String line) {
    assertRefused(400, line + "\r\nHost: a\r\n\r\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"GET  / HTTP/1.1", "GET /  HTTP/1.1", "GET\t/ HTTP/1.1", "GET / \tHTTP/1.1"})
  void requestLinePartsNotSeparatedByOneSpaceAreRefused(String line) {
    assertRefused(400, line + "\r\nHost: a\r\n\r\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"GET a HTTP/1.1", "GET * HTTP/1.1", "GET /\u007f HTTP/1.1"})
  void badTargetIsRefused(String line) {
    assertRefused(400, line + "\r\nHost: a\r\n\r\n");
  }

  @Test
  void otherHttpVersionGets505() {
    assertRefused(505, "GET / HTTP/2.0\r\nHost: a\r\n\r\n");
  }

  @Test
  void notAnHttpVersionGets400() {
    assertRefused(400, "GET / HTTPS/1.1\r\nHost: a\r\n\r\n");
  }

  @Test
  void headerCountOverTheLimitGets431() {
    assertRefused(431, "GET / HTTP/1.1\r\nHost: a\r\nB: 1\r\nC: 2\r\nD: 3\r\nE: 4\r\n\r\n");
  }

  @Test
  void codingBeforeChunkedGets501() {
    assertRefused(501, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip, chunked\r\n\r\n");
  }

  @ParameterizedTest
  @ValueSource(strings = {"gzip", "chunked, chunked", "chunked;q=1"})
  void transferEncodingNotEndingInOneChunkedGets400(String value) {
    assertRefused(400, "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: " + value + "\r\n\r\n");
  }

  @Test
  void transferEncodingInHttp10Gets400() {
    assertRefused(400, "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n");
  }

  @Test
  void refusedRequestLineIsAnsweredAsHttp11() {
    HttpRequest request = request("get / HTTP/1.0\r\n\r\n");
    assertTrue(request.decoderResult().isFailure());
    assertEquals("HTTP/1.1", request.protocolVersion().text());
  }
}
