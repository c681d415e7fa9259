package onager.kernel.http1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.vertx.core.http.Http1ServerConfig;
import java.util.List;
import onager.kernel.http.Authority;
import onager.kernel.http.RejectedRequestException;
import onager.kernel.vertx.RequestDecoder;

/**
 * Vert.x's HTTP/1.x request decoder, made strict where Netty is lenient, so that
 * no request is read one way here and another way by a proxy in front
 * (request smuggling), and no header section grows without bound.
 *
 * <p>Netty already refuses bare LF line ends, control characters before the
 * request line and in header names or values, whitespace before a colon,
 * Content-Length values that are not plain digits or that disagree, both
 * Content-Length and Transfer-Encoding, a final coding other than chunked, and
 * malformed chunk sizes, extensions and delimiters. This class adds, through
 * the decoder's own hooks (no second parser):
 * <ul>
 *   <li>the request line: exactly one space between its three parts; a method of
 *   upper-case letters, '-' and '_'; a target of visible ASCII in origin form
 *   ("/..."), absolute form ("http://...") or "*" for OPTIONS; the version
 *   HTTP/1.1 or HTTP/1.0 (another HTTP/x.y gets 505);</li>
 *   <li>headers: no empty name, no obsolete line folding, at most
 *   {@code maxHeaderCount} fields (431);</li>
 *   <li>Host: exactly one in HTTP/1.1, at most one in HTTP/1.0, and a valid
 *   authority, as the authority of an absolute-form target must be;</li>
 *   <li>Transfer-Encoding: a coding other than chunked gets 501.</li>
 * </ul>
 * A refused request becomes a failed message, which the connection answers
 * before it closes. It also tells its {@link HeadListener} when a request head
 * is arriving in pieces, so that the header timeout runs, and what kind of head
 * passed.
 */
public final class StrictRequestDecoder extends RequestDecoder {

  private static final String HTTP_1_1 = "HTTP/1.1";
  private static final String HTTP_1_0 = "HTTP/1.0";

  private final int maxHeaderCount;
  private final HeadListener guard;

  // The request being decoded.
  private int headerCount;
  private int hostCount;
  private int transferEncodingCount;
  private boolean framingOrUpgrade; // Content-Length, Expect, Upgrade or Connection: the guard must look closer
  private boolean optionsMethod;
  private boolean folded;
  private boolean lineEnded; // the last head byte consumed was LF
  private byte[] scratch = new byte[512];
  // Between a request's head and the end of its body: the bytes are body bytes.
  private boolean inBody;

  public StrictRequestDecoder(Http1ServerConfig config, int maxHeaderCount, HeadListener guard) {
    super(config);
    this.maxHeaderCount = maxHeaderCount;
    this.guard = guard;
  }

  @Override
  protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
    if (inBody) {
      int before = out.size();
      super.decode(ctx, in, out);
      if (out.size() > before && out.get(out.size() - 1) instanceof LastHttpContent) inBody = false;
      return;
    }
    int from = in.readerIndex();
    int before = out.size();
    super.decode(ctx, in, out);
    // Netty consumes whole lines only; the head's lines are scanned for folding once more,
    // which its parser would silently join.
    if (!folded) scanForFolding(in, from, in.readerIndex());
    HttpRequest request = null;
    for (int i = before; i < out.size(); i++) {
      Object o = out.get(i);
      if (o instanceof HttpRequest r) request = r;
    }
    if (request == null) {
      if (guard != null && (in.readerIndex() > from || in.isReadable())) guard.headPending();
      return;
    }
    if (folded && request.decoderResult().isSuccess()) {
      request.setDecoderResult(DecoderResult.failure(
          new RejectedRequestException(400, "obsolete line folding in the request head")));
    }
    inBody = !(out.get(out.size() - 1) instanceof LastHttpContent);
    folded = false;
    lineEnded = false;
  }

  // The head bytes are copied out first: read one at a time, a direct buffer costs
  // a bounds and liveness check per byte when Netty cannot use Unsafe (JDK 25+).
  private void scanForFolding(ByteBuf in, int from, int to) {
    int n = to - from;
    if (n <= 0) return;
    byte[] bytes = scratch;
    if (bytes.length < n) scratch = bytes = new byte[Math.max(n, bytes.length * 2)];
    in.getBytes(from, bytes, 0, n);
    if (lineEnded && isBlank(bytes[0])) {
      folded = true;
      return;
    }
    for (int i = 0; i < n - 1; i++) {
      if (bytes[i] == '\n' && isBlank(bytes[i + 1])) {
        folded = true;
        return;
      }
    }
    lineEnded = bytes[n - 1] == '\n';
  }

  private static boolean isBlank(byte b) {
    return b == ' ' || b == '\t';
  }

  // ---- the request line ----

  @Override
  protected String splitFirstWordInitialLine(byte[] line, int start, int length) {
    if (start != 0) throw bad("whitespace before the request line");
    for (int i = start; i < start + length; i++) {
      byte b = line[i];
      if (!(b >= 'A' && b <= 'Z' || b == '-' || b == '_')) throw bad("the method is not upper-case letters");
    }
    optionsMethod = length == 7 && line[0] == 'O' && line[1] == 'P' && line[2] == 'T';
    return super.splitFirstWordInitialLine(line, start, length);
  }

  @Override
  protected String splitSecondWordInitialLine(byte[] line, int start, int length) {
    if (length == 0) throw bad("no request target");
    requireOneSpaceBefore(line, start);
    for (int i = start; i < start + length; i++) {
      byte b = line[i];
      // Signed bytes: anything from 0x80 up is negative, so this refuses it too.
      if (b <= 0x20 || b == 0x7f) {
        throw bad("the request target has byte 0x" + Integer.toHexString(b & 0xff));
      }
    }
    byte first = line[start];
    if (first != '/' && !(length == 1 && first == '*' && optionsMethod) && !isAbsoluteForm(line, start, length)) {
      throw bad("the request target is not a path, an absolute URI or * (for OPTIONS)");
    }
    return super.splitSecondWordInitialLine(line, start, length);
  }

  // scheme "://" ...: a letter, then letters, digits, '+', '-' or '.'.
  private static boolean isAbsoluteForm(byte[] line, int start, int length) {
    int end = start + length;
    if (!isLetter(line[start])) return false;
    for (int i = start + 1; i + 2 < end; i++) {
      byte b = line[i];
      if (b == ':') return line[i + 1] == '/' && line[i + 2] == '/';
      if (!(isLetter(b) || b >= '0' && b <= '9' || b == '+' || b == '-' || b == '.')) return false;
    }
    return false;
  }

  private static boolean isLetter(byte b) {
    return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z';
  }

  @Override
  protected String splitThirdWordInitialLine(byte[] line, int start, int length) {
    requireOneSpaceBefore(line, start);
    if (length == 8 && line[start] == 'H' && line[start + 1] == 'T' && line[start + 2] == 'T'
        && line[start + 3] == 'P' && line[start + 4] == '/' && line[start + 6] == '.') {
      byte major = line[start + 5];
      byte minor = line[start + 7];
      if (major == '1' && minor == '1') return HTTP_1_1;
      if (major == '1' && minor == '0') return HTTP_1_0;
      if (major >= '0' && major <= '9' && minor >= '0' && minor <= '9') {
        throw new RejectedRequestException(505, "HTTP/" + (char) major + "." + (char) minor + " is not supported");
      }
    }
    throw bad("the request line does not end with an HTTP version");
  }

  // Netty splits the line at any run of SP, HT, VT, FF or CR; RFC 9112 §3 has one SP.
  private static void requireOneSpaceBefore(byte[] line, int start) {
    if (start < 2 || line[start - 1] != ' ' || isSeparator(line[start - 2])) {
      throw bad("the parts of the request line are not separated by one space");
    }
  }

  private static boolean isSeparator(byte b) {
    return b == ' ' || b == '\t' || b == 0x0b || b == 0x0c || b == '\r';
  }

  // A request line that could not be read has no version to answer in. RFC 9110 §2.5: the
  // answer takes the highest version the server conforms to, HTTP/1.1; Netty's stand-in
  // request says HTTP/1.0, which its answer would carry.
  @Override
  protected HttpMessage createInvalidMessage() {
    return new StandIn();
  }

  /** True when {@code request} stands in for a request line that could not be read. */
  static boolean isStandIn(HttpRequest request) {
    return request instanceof StandIn;
  }

  private static final class StandIn extends DefaultFullHttpRequest {
    StandIn() {
      super(HttpVersion.HTTP_1_1, HttpMethod.GET, "/bad-request", Unpooled.EMPTY_BUFFER);
    }
  }

  @Override
  protected HttpMessage createMessage(String[] initialLine) {
    headerCount = 0;
    hostCount = 0;
    transferEncodingCount = 0;
    framingOrUpgrade = false;
    return super.createMessage(initialLine);
  }

  // ---- headers ----

  @Override
  protected AsciiString splitHeaderName(byte[] line, int start, int length) {
    if (length == 0) throw bad("a header field has an empty name");
    if (++headerCount > maxHeaderCount) {
      throw new RejectedRequestException(431, "more than " + maxHeaderCount + " header fields");
    }
    AsciiString name = super.splitHeaderName(line, start, length);
    switch (length) {
      case 4 -> {
        if (name.contentEqualsIgnoreCase(HttpHeaderNames.HOST)) hostCount++;
      }
      case 17 -> {
        if (name.contentEqualsIgnoreCase(HttpHeaderNames.TRANSFER_ENCODING)) transferEncodingCount++;
      }
      case 6, 7, 10, 14 -> framingOrUpgrade |= name.contentEqualsIgnoreCase(HttpHeaderNames.EXPECT)
          || name.contentEqualsIgnoreCase(HttpHeaderNames.UPGRADE)
          || name.contentEqualsIgnoreCase(HttpHeaderNames.CONNECTION)
          || name.contentEqualsIgnoreCase(HttpHeaderNames.CONTENT_LENGTH);
      default -> { }
    }
    return name;
  }

  // Netty calls this once the head is parsed, before it settles the body's framing:
  // the place for checks that need the whole head.
  @Override
  protected boolean isContentAlwaysEmpty(HttpMessage message) {
    if (message instanceof HttpRequest request) checkHead(request);
    return super.isContentAlwaysEmpty(message);
  }

  private void checkHead(HttpRequest request) {
    boolean http11 = request.protocolVersion() == HttpVersion.HTTP_1_1;
    if (hostCount > 1) throw bad("more than one Host header");
    // An absolute-form target's authority is the one the request names (RFC 9112 §3.2.2):
    // checked as a Host header is, so that userinfo or a second host in it are refused.
    String targetAuthority = Authority.ofTarget(request.uri());
    if (targetAuthority != null) Authority.check(targetAuthority);
    if (hostCount == 1) {
      Authority.check(request.headers().get(HttpHeaderNames.HOST));
    } else if (http11) {
      throw bad("an HTTP/1.1 request without a Host header");
    }
    if (transferEncodingCount > 0) {
      TransferCodings.check(request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING), http11);
    }
    // Told only once the head has passed: a refused one is not plain whatever its headers.
    if (guard != null) {
      guard.headSeen(transferEncodingCount > 0 ? HeadListener.HEAD_BODY
          : framingOrUpgrade ? HeadListener.HEAD_TO_CHECK : HeadListener.HEAD_PLAIN);
    }
  }

  private static RejectedRequestException bad(String why) {
    return new RejectedRequestException(400, why);
  }
}
