package onager.kernel.client;

import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import clojure.lang.Named;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.net.ProxyOptions;
import java.io.File;
import java.net.CookieHandler;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import onager.kernel.http.ContentType;
import onager.kernel.http.Tokens;
import onager.kernel.params.FormEncoding;

/**
 * A request map read once into what the exchange needs: where it goes, its
 * head, its body, and the options it overrides. Every key is checked as it is
 * read; one that cannot be sent fails the request with an ex-info naming the
 * key, the value and what it takes ({@link ClientFailure#invalid}). Keys it does
 * not know are left alone, as clj-http leaves them for middleware.
 */
final class ClientRequest {
  private static final Keyword METHOD = Keyword.intern("method");
  private static final Keyword REQUEST_METHOD = Keyword.intern("request-method");
  private static final Keyword URL = Keyword.intern("url");
  private static final Keyword SCHEME = Keyword.intern("scheme");
  private static final Keyword SERVER_NAME = Keyword.intern("server-name");
  private static final Keyword SERVER_PORT = Keyword.intern("server-port");
  private static final Keyword URI = Keyword.intern("uri");
  private static final Keyword QUERY_STRING = Keyword.intern("query-string");
  private static final Keyword HEADERS = Keyword.intern("headers");
  private static final Keyword QUERY_PARAMS = Keyword.intern("query-params");
  private static final Keyword FORM_PARAMS = Keyword.intern("form-params");
  private static final Keyword JSON_PARAMS = Keyword.intern("json-params");
  private static final Keyword BODY = Keyword.intern("body");
  private static final Keyword CONTENT_TYPE = Keyword.intern("content-type");
  private static final Keyword ACCEPT = Keyword.intern("accept");
  private static final Keyword BASIC_AUTH = Keyword.intern("basic-auth");
  private static final Keyword OAUTH_TOKEN = Keyword.intern("oauth-token");
  private static final Keyword AS = Keyword.intern("as");
  private static final Keyword CONNECT_TIMEOUT_MS = Keyword.intern("connect-timeout-ms");
  private static final Keyword IDLE_TIMEOUT_MS = Keyword.intern("idle-timeout-ms");
  private static final Keyword REQUEST_TIMEOUT_MS = Keyword.intern("request-timeout-ms");
  private static final Keyword REDIRECTS = Keyword.intern("redirects");
  private static final Keyword MAX_REDIRECTS = Keyword.intern("max-redirects");
  private static final Keyword MAX_BODY = Keyword.intern("max-body");
  private static final Keyword THROW_EXCEPTIONS = Keyword.intern("throw-exceptions?");
  private static final Keyword COOKIE_STORE = Keyword.intern("cookie-store");
  private static final Keyword PROXY = Keyword.intern("proxy");
  private static final Keyword MULTIPART = Keyword.intern("multipart");

  final IPersistentMap map;
  final HttpMethod method;
  final Target target;
  /** The fields to send; the client's shared base fields until one is set here. */
  MultiMap headers;
  private final MultiMap base;
  final RequestBody body;
  final long connectTimeoutMs;
  final long idleTimeoutMs;
  final long requestTimeoutMs;
  final Redirects redirects;
  final int maxRedirects;
  /** The limit of a buffered body; a stream's is {@link #maxStreamBody}, none unless the request sets one. */
  final long maxBody;
  final long maxStreamBody;
  final boolean throwExceptions;
  final As as;
  /** Where cookies come from and go to; null for none. */
  final CookieHandler cookies;
  /** The request's own proxy; null for the client's. */
  final ProxyOptions proxy;

  private ClientRequest(IPersistentMap map, ClientConfig config, LastTarget targets, MultiMap base) {
    this.map = map;
    RequestDefaults d = config.defaults;
    method = method(map);
    Target t = target(map, targets);
    Object query = map.valAt(QUERY_PARAMS);
    if (query != null) {
      if (!(query instanceof Map<?, ?> q)) throw invalid("query-params", query, "a map of parameters");
      t = t.withQuery(encode("query-params", q));
    }
    target = t;
    this.base = base;
    Object given = map.valAt(HEADERS);
    headers = given == null ? base : HeaderFields.of(map, given);
    if (given != null && config.userAgent != null && !headers.contains(HttpHeaders.USER_AGENT)) {
      headers.set(HttpHeaders.USER_AGENT, config.userAgent);
    }
    contentHeaders(map);
    auth(map, t);
    body = body(map, config);
    connectTimeoutMs = millis(CONNECT_TIMEOUT_MS, d.connectTimeoutMs);
    idleTimeoutMs = millis(IDLE_TIMEOUT_MS, d.idleTimeoutMs);
    requestTimeoutMs = millis(REQUEST_TIMEOUT_MS, d.requestTimeoutMs);
    Object r = map.valAt(REDIRECTS);
    redirects = r == null ? d.redirects : Redirects.of(r);
    if (redirects == null) throw invalid("redirects", r, "one of :none, :same-origin, :normal, :all");
    maxRedirects = Math.toIntExact(Math.min(Integer.MAX_VALUE, count(MAX_REDIRECTS, d.maxRedirects, 0)));
    Object max = map.valAt(MAX_BODY);
    maxBody = count(MAX_BODY, d.maxBody, 1);
    maxStreamBody = max == null ? Long.MAX_VALUE : maxBody;
    Object te = map.valAt(THROW_EXCEPTIONS);
    if (te != null && !(te instanceof Boolean)) throw invalid("throw-exceptions?", te, "true or false");
    throwExceptions = te == null ? d.throwExceptions : (Boolean) te;
    Object a = map.valAt(AS);
    as = a == null ? d.as : As.of(a);
    if (as == null) {
      throw invalid("as", a, "one of :string, :bytes, :byte-buffer, :stream, :json, :json-string-keys");
    }
    Object store = map.valAt(COOKIE_STORE);
    if (store != null && !(store instanceof CookieHandler)) {
      throw invalid("cookie-store", store, "a cookie store made by onager.client/cookie-store");
    }
    cookies = store != null ? (CookieHandler) store : d.cookies;
    Object p = map.valAt(PROXY);
    proxy = p == null ? null : ClientProxies.of(p);
    if (p != null && proxy == null) throw invalid("proxy", p, ClientProxies.ALLOWED);
  }

  /**
   * The request {@code map} describes, with {@code config}'s defaults, its URL
   * parsed by {@code targets}, sending the fields of {@code base} (which it never
   * changes) unless it gives its own; throws the ex-info naming a bad key.
   */
  static ClientRequest parse(IPersistentMap map, ClientConfig config, LastTarget targets, MultiMap base) {
    return new ClientRequest(map, config, targets, base);
  }

  /** The URL as the errors name it. */
  String url() {
    return target.url();
  }

  private RuntimeException invalid(String key, Object value, String allowed) {
    return ClientFailure.invalid(map, key, value, allowed);
  }

  private HttpMethod method(IPersistentMap m) {
    Object v = m.valAt(METHOD);
    String key = "method";
    if (v == null) {
      v = m.valAt(REQUEST_METHOD);
      key = "request-method";
    }
    if (v == null) return HttpMethod.GET;
    String name = v instanceof Keyword k ? k.getName() : v instanceof String s ? s : null;
    if (name == null || !Tokens.isToken(name)) throw invalid(key, v, "a method keyword such as :get or :post");
    return HttpMethod.valueOf(name.toUpperCase(Locale.ROOT));
  }

  private Target target(IPersistentMap m, LastTarget targets) {
    Object url = m.valAt(URL);
    String text;
    String key = "url";
    if (url != null) {
      if (!(url instanceof String || url instanceof java.net.URL || url instanceof java.net.URI)) {
        throw invalid("url", url, "an absolute http or https URL");
      }
      text = url.toString();
    } else {
      Object host = m.valAt(SERVER_NAME);
      if (host == null) throw invalid("url", null, "an absolute http or https URL (or Ring's :server-name and :uri)");
      Object scheme = m.valAt(SCHEME);
      Object port = m.valAt(SERVER_PORT);
      Object uri = m.valAt(URI);
      Object qs = m.valAt(QUERY_STRING);
      text = (scheme == null ? "http" : name(scheme)) + "://" + host + (port == null ? "" : ":" + port)
          + (uri == null ? "/" : uri) + (qs == null ? "" : "?" + qs);
      key = "server-name";
      url = text;
    }
    try {
      return targets.parse(text);
    } catch (IllegalArgumentException e) {
      throw invalid(key, url, "an absolute http or https URL (" + e.getMessage() + ")");
    }
  }

  private void contentHeaders(IPersistentMap m) {
    Object ct = m.valAt(CONTENT_TYPE);
    if (ct != null) own().set(HttpHeaders.CONTENT_TYPE, mediaType("content-type", ct));
    Object accept = m.valAt(ACCEPT);
    if (accept != null) own().set(HttpHeaders.ACCEPT, mediaType("accept", accept));
  }

  // clj-http's shorthand: :json is application/json.
  private String mediaType(String key, Object v) {
    if (v instanceof Keyword k) return "application/" + k.getName();
    if (v instanceof String s) return HeaderFields.value(map, key, v, s);
    throw invalid(key, v, "a media type string, or a keyword such as :json");
  }

  private void auth(IPersistentMap m, Target t) {
    Object basic = m.valAt(BASIC_AUTH);
    Object token = m.valAt(OAUTH_TOKEN);
    String credentials = null;
    if (basic instanceof String s) {
      credentials = s;
    } else if (basic instanceof java.util.List<?> pair && pair.size() == 2) {
      credentials = pair.get(0) + ":" + pair.get(1);
    } else if (basic != null) {
      throw invalid("basic-auth", basic, "[user password] or \"user:password\"");
    } else if (t.userInfo != null) {
      credentials = URLDecoder.decode(t.userInfo.replace("+", "%2B"), StandardCharsets.UTF_8);
    }
    if (credentials != null) {
      own().set(HttpHeaders.AUTHORIZATION,
          "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8)));
    } else if (token != null) {
      if (!(token instanceof String s)) throw invalid("oauth-token", token, "a string");
      own().set(HttpHeaders.AUTHORIZATION, "Bearer " + HeaderFields.value(map, "oauth-token", token, s));
    }
  }

  private RequestBody body(IPersistentMap m, ClientConfig config) {
    Object form = m.valAt(FORM_PARAMS);
    Object json = m.valAt(JSON_PARAMS);
    Object multipart = m.valAt(MULTIPART);
    Object b = m.valAt(BODY);
    int given = (form != null ? 1 : 0) + (json != null ? 1 : 0) + (multipart != null ? 1 : 0) + (b != null ? 1 : 0);
    if (given > 1) {
      throw invalid("body", b, "given alone: one of :body, :form-params, :json-params and :multipart");
    }
    if (multipart != null) {
      RequestBody parts = MultipartBody.of(multipart, own());
      if (parts == null) throw invalid("multipart", multipart, MultipartBody.ALLOWED);
      return parts;
    }
    if (form != null) {
      if (!(form instanceof Map<?, ?> f)) throw invalid("form-params", form, "a map of parameters");
      defaultContentType("application/x-www-form-urlencoded");
      return new BufferBody(Buffer.buffer(encode("form-params", f).getBytes(StandardCharsets.US_ASCII)));
    }
    if (json != null) {
      defaultContentType("application/json");
      try {
        return new BufferBody(Buffer.buffer(config.jsonWriter.writeBytes(json)));
      } catch (IOException | RuntimeException e) {
        throw invalid("json-params", json, "data JSON can hold (" + ClientFailure.reason(e) + ")");
      }
    }
    if (b == null) return RequestBody.NONE;
    if (b instanceof String s) return new BufferBody(Buffer.buffer(s.getBytes(charset())));
    if (b instanceof byte[] bytes) return new BufferBody(Buffer.buffer(bytes));
    if (b instanceof ByteBuffer bb) {
      byte[] copy = new byte[bb.remaining()];
      bb.duplicate().get(copy);
      return new BufferBody(Buffer.buffer(copy));
    }
    if (b instanceof File || b instanceof Path) {
      File f = b instanceof Path p ? p.toFile() : (File) b;
      if (!f.isFile() || !f.canRead()) throw invalid("body", b, "a file that exists and can be read");
      return new FileBody(f);
    }
    if (b instanceof InputStream in) return StreamedBody.of(in);
    if (b instanceof Iterable<?> items && !(b instanceof Map)) return StreamedBody.of(items);
    throw invalid("body", b, "a string, bytes, a ByteBuffer, a File, an InputStream or a sequence of strings "
        + "and byte arrays");
  }

  // The fields to change: the request's own, copied from the shared ones first.
  private MultiMap own() {
    if (headers == base) headers = MultiMap.caseInsensitiveMultiMap().addAll(base);
    return headers;
  }

  private void defaultContentType(String type) {
    if (!headers.contains(HttpHeaders.CONTENT_TYPE)) own().set(HttpHeaders.CONTENT_TYPE, type);
  }

  // A string body is encoded in the charset its Content-Type names, else UTF-8.
  private Charset charset() {
    String name = ContentType.charsetParam(headers.get(HttpHeaders.CONTENT_TYPE));
    if (name == null) return StandardCharsets.UTF_8;
    try {
      return Charset.forName(name);
    } catch (IllegalArgumentException e) {
      throw invalid("headers", map.valAt(HEADERS), "a Content-Type whose charset the JVM knows");
    }
  }

  private String encode(String key, Map<?, ?> params) {
    try {
      return FormEncoding.encode(params);
    } catch (IllegalArgumentException e) {
      throw invalid(key, params, "a map of parameters: " + e.getMessage());
    }
  }

  private long millis(Keyword key, long fallback) {
    return count(key, fallback, 0);
  }

  // A whole number at least min, or the fallback when the key is absent.
  private long count(Keyword key, long fallback, long min) {
    Object v = map.valAt(key);
    if (v == null) return fallback;
    if (!(v instanceof Long || v instanceof Integer || v instanceof Short || v instanceof Byte)
        || ((Number) v).longValue() < min) {
      throw invalid(key.getName(), v, "a whole number, " + min + " or more");
    }
    return ((Number) v).longValue();
  }

  private static String name(Object o) {
    return o instanceof Named n ? n.getName() : String.valueOf(o);
  }
}
