package onager.kernel.request;

import clojure.lang.IPersistentMap;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import onager.kernel.http.HeaderNames;

/**
 * Builds the Ring {@code :headers} map: names lower-cased, repeated headers joined
 * with {@code ", "}, except {@code cookie}, joined with {@code "; "} as Ring 1.11+
 * and RFC 6265 say. Built once per request, only if the handler reads it.
 */
public final class RequestHeaders {
  private RequestHeaders() {}

  // Up to this many names a linear scan finds duplicates faster than hashing.
  private static final int SCAN_LIMIT = 16;
  // A PersistentArrayMap beyond this many entries is slower to look up than a hash map.
  private static final int ARRAY_MAP_LIMIT = 16;

  public static IPersistentMap toMap(HttpHeaders headers) {
    int size = headers.size();
    Object[] kvs = new Object[Math.max(2, size * 2)];
    Map<String, Integer> index = size > SCAN_LIMIT ? new HashMap<>(size * 2) : null;
    int n = 0;
    Iterator<Map.Entry<CharSequence, CharSequence>> fields = headers.iteratorCharSequence();
    while (fields.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = fields.next();
      String name = HeaderNames.lowerCase(e.getKey());
      String value = e.getValue().toString();
      int at = index != null ? index.getOrDefault(name, -1) : find(kvs, n, name);
      if (at < 0) {
        if (n == kvs.length) kvs = java.util.Arrays.copyOf(kvs, n * 2);
        if (index != null) index.put(name, n);
        kvs[n++] = name;
        kvs[n++] = value;
      } else {
        kvs[at + 1] = kvs[at + 1] + ("cookie".equals(name) ? "; " : ", ") + value;
      }
    }
    if (n / 2 <= ARRAY_MAP_LIMIT) {
      return new PersistentArrayMap(n == kvs.length ? kvs : java.util.Arrays.copyOf(kvs, n));
    }
    return PersistentHashMap.create(java.util.Arrays.copyOf(kvs, n));
  }

  private static int find(Object[] kvs, int n, String name) {
    for (int i = 0; i < n; i += 2) {
      if (name.equals(kvs[i])) return i;
    }
    return -1;
  }
}
