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
import java.util.Locale;
import java.util.Map;

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

  static IPersistentMap of(int status, MultiMap headers, Object body, HttpVersion version, String url,
                           IPersistentVector redirects) {
    return new PersistentArrayMap(new Object[] {
        STATUS, status, HEADERS, headers(headers), BODY, body, VERSION, version(version), URL, url,
        TRACE_REDIRECTS, redirects});
  }

  private static Keyword version(HttpVersion v) {
    return switch (v) {
      case HTTP_1_0 -> HTTP_1_0;
      case HTTP_2 -> HTTP_2;
      default -> HTTP_1_1;
    };
  }

  // Names and values in order, a name's later values joining its first: a small array
  // searched in place, since a response carries few headers.
  static IPersistentMap headers(MultiMap headers) {
    return headers(headers, headers.size());
  }

  /** The same for {@code size} fields in any form: Vert.x's MultiMap, Netty's HttpHeaders. */
  static IPersistentMap headers(Iterable<Map.Entry<String, String>> headers, int size) {
    Object[] kvs = new Object[Math.max(2, size * 2)];
    int n = 0;
    for (Map.Entry<String, String> e : headers) {
      String name = e.getKey().toLowerCase(Locale.ROOT);
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
        kvs[n++] = e.getValue();
      } else if (kvs[at + 1] instanceof PersistentVector values) {
        kvs[at + 1] = values.cons(e.getValue());
      } else {
        kvs[at + 1] = PersistentVector.create(kvs[at + 1], e.getValue());
      }
    }
    Object[] used = n == kvs.length ? kvs : Arrays.copyOf(kvs, n);
    return n <= 16 ? new PersistentArrayMap(used) : PersistentHashMap.create(used);
  }
}
