package onager.kernel.client;

import clojure.lang.IPersistentMap;
import clojure.lang.IPersistentVector;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import clojure.lang.PersistentVector;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpVersion;
import java.util.Arrays;
import java.util.Iterator;
import java.util.Map;
import onager.kernel.http.HeaderNames;
import onager.kernel.vertx.VertxInternals;

/**
 * The response map: {@code :status}, {@code :headers} (lower-case names, a
 * repeated header's values in a vector, as clj-http gives them), {@code :body},
 * {@code :version} ({@code :http-1.1} or {@code :http-2}), {@code :url} (the last
 * one asked, after redirects) and {@code :trace-redirects} (the URLs redirected
 * to, in order, as clj-http names it).
 */
final class ClientResponses {
  private ClientResponses() {}

  private static final Keyword STATUS = Keyword.intern("status");
  private static final Keyword HEADERS = Keyword.intern("headers");
  private static final Keyword BODY = Keyword.intern("body");
  private static final Keyword VERSION = Keyword.intern("version");
  private static final Keyword URL = Keyword.intern("url");
  private static final Keyword TRACE_REDIRECTS = Keyword.intern("trace-redirects");
  private static final Keyword HTTP_1_0 = Keyword.intern("http-1.0");
  private static final Keyword HTTP_1_1 = Keyword.intern("http-1.1");
  private static final Keyword HTTP_2 = Keyword.intern("http-2");

  // The boxed statuses, made once: Integer.valueOf keeps only those under 128.
  private static final Integer[] STATUSES = new Integer[600];

  static {
    for (int i = 0; i < STATUSES.length; i++) STATUSES[i] = i;
  }

  private static Integer status(int s) {
    return s >= 0 && s < STATUSES.length ? STATUSES[s] : Integer.valueOf(s);
  }

  static IPersistentMap of(int status, MultiMap headers, Object body, HttpVersion version, String url,
                           IPersistentVector redirects) {
    return new PersistentArrayMap(new Object[] {
        STATUS, status(status), HEADERS, new LazyHeaders(headers), BODY, body, VERSION, version(version), URL, url,
        TRACE_REDIRECTS, redirects});
  }

  private static Keyword version(HttpVersion v) {
    return switch (v) {
      case HTTP_1_0 -> HTTP_1_0;
      case HTTP_2 -> HTTP_2;
      default -> HTTP_1_1;
    };
  }

  /** The fields of a response's {@code headers}, as Vert.x's client gives them. */
  static IPersistentMap headers(MultiMap headers) {
    Iterator<Map.Entry<CharSequence, CharSequence>> fields = VertxInternals.fields(headers);
    return headers(fields != null ? fields : headers.iterator());
  }

  /**
   * The map of {@code fields} in order, a name's later values joining its first,
   * pseudo-header fields (HTTP/2's {@code :status}) left out: a small array searched
   * in place, since a response carries few headers.
   */
  static IPersistentMap headers(Iterator<? extends Map.Entry<? extends CharSequence, ? extends CharSequence>> fields) {
    Object[] kvs = new Object[16];
    int n = 0;
    while (fields.hasNext()) {
      Map.Entry<? extends CharSequence, ? extends CharSequence> e = fields.next();
      CharSequence raw = e.getKey();
      if (raw.length() > 0 && raw.charAt(0) == ':') continue;
      String name = HeaderNames.lowerCase(raw);
      String value = e.getValue().toString();
      int at = -1;
      for (int i = 0; i < n; i += 2) {
        if (kvs[i].equals(name)) {
          at = i;
          break;
        }
      }
      if (at < 0) {
        if (n + 2 > kvs.length) kvs = Arrays.copyOf(kvs, kvs.length * 2);
        kvs[n++] = name;
        kvs[n++] = value;
      } else if (kvs[at + 1] instanceof PersistentVector values) {
        kvs[at + 1] = values.cons(value);
      } else {
        kvs[at + 1] = PersistentVector.create(kvs[at + 1], value);
      }
    }
    Object[] used = n == kvs.length ? kvs : Arrays.copyOf(kvs, n);
    return n <= 16 ? new PersistentArrayMap(used) : PersistentHashMap.create(used);
  }
}
