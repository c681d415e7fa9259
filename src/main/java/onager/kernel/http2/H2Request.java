package onager.kernel.http2;

import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.Map;
import onager.kernel.vertx.VertxInternals;

/**
 * An HTTP/2 request's HEADERS as the request an exchange reads: the method and
 * target from {@code :method} and {@code :path}, the fields as they came but for
 * the pseudo-headers, {@code :authority} as the Host the HTTP/1.1 form would
 * carry (RFC 9113 §8.3.1), and the cookie crumbs joined into one field with
 * {@code "; "} (§8.2.3). Its version is {@link #HTTP_2}, which the request map
 * shows as {@code :protocol "HTTP/2.0"}.
 */
final class H2Request {
  private H2Request() {}

  /** HTTP/2 as a version of the HTTP/1 message model. */
  static final HttpVersion HTTP_2 = new HttpVersion("HTTP", 2, 0, true);

  private static final AsciiString HOST = AsciiString.cached("host");
  private static final AsciiString COOKIE = AsciiString.cached("cookie");

  /**
   * The request {@code headers} carry (validated by the decoder: pseudo-headers
   * first, known, once each; names lower case, no connection-specific field).
   * Throws a stream error for a request that is malformed in a way the decoder
   * does not check.
   */
  static HttpRequest of(int streamId, Http2Headers headers) throws Http2Exception {
    CharSequence method = headers.method();
    CharSequence path = headers.path();
    if (method == null || path == null || path.length() == 0 || headers.scheme() == null) {
      throw malformed(streamId, "a request needs :method, :scheme and a non-empty :path");
    }
    HttpMethod m = method(method);
    if (m == null) throw malformed(streamId, "a :method that is not a token");
    HttpHeaders fields = VertxInternals.newHeaders();
    CharSequence cookie = null;
    CharSequence host = null;
    Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iterator();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      CharSequence name = e.getKey();
      if (name.length() > 0 && name.charAt(0) == ':') continue;
      CharSequence value = e.getValue();
      if (COOKIE.contentEquals(name)) {
        cookie = cookie == null ? value : cookie + "; " + value;
        continue;
      }
      if (HOST.contentEquals(name)) {
        if (host != null) throw malformed(streamId, "more than one host field");
        host = value;
      }
      fields.add(name, value);
    }
    if (cookie != null) fields.add(COOKIE, cookie);
    CharSequence authority = headers.authority();
    if (authority != null) {
      if (host == null) {
        fields.add(HOST, authority);
      } else if (!AsciiString.contentEqualsIgnoreCase(host, authority)) {
        // A proxy that routes by :authority and an application that reads Host must not disagree.
        throw malformed(streamId, "a host field that differs from :authority");
      }
    }
    return new DefaultHttpRequest(HTTP_2, m, path.toString(), fields);
  }

  /**
   * The HTTP/1.1 request that upgraded its connection to h2c, as the request of
   * stream 1: the same, less the fields that were about the HTTP/1.1 connection.
   */
  static HttpRequest ofUpgrade(HttpRequest request) {
    HttpHeaders fields = VertxInternals.newHeaders();
    Iterator<Map.Entry<CharSequence, CharSequence>> it = request.headers().iteratorCharSequence();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      CharSequence name = e.getKey();
      if (!H2Heads.connectionSpecific(H2Heads.lowerCase(name)) && !AsciiString.contentEqualsIgnoreCase(name, SETTINGS)) {
        fields.add(name, e.getValue());
      }
    }
    return new DefaultHttpRequest(HTTP_2, request.method(), request.uri(), fields);
  }

  private static final AsciiString SETTINGS = AsciiString.cached("http2-settings");

  private static HttpMethod method(CharSequence name) {
    // The common ones without a string: the static table gives them as interned values.
    if (HttpMethod.GET.asciiName().contentEquals(name)) return HttpMethod.GET;
    if (HttpMethod.POST.asciiName().contentEquals(name)) return HttpMethod.POST;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= ' ' || c >= 0x7f || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) return null;
    }
    return name.length() == 0 ? null : HttpMethod.valueOf(name.toString());
  }

  private static Http2Exception malformed(int streamId, String why) {
    return Http2Exception.streamError(streamId, Http2Error.PROTOCOL_ERROR, "malformed request: %s", why);
  }
}
