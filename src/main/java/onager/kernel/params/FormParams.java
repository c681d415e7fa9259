package onager.kernel.params;

import clojure.lang.IPersistentMap;
import clojure.lang.IPersistentVector;
import clojure.lang.ITransientMap;
import clojure.lang.LazilyPersistentVector;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import java.nio.charset.Charset;
import java.util.Arrays;

/**
 * Parses a query string or urlencoded form body into a map, with ring-codec's
 * semantics: pairs split on '&' (empty ones skipped) and at their first '=', a
 * pair whose name or value does not decode left out, a name given more than
 * once mapped to a vector of its values in order, and no map at all (an empty
 * one) for text without any '='.
 *
 * <p>Pairs are found with String.indexOf (vectorised by the JIT); text that needs
 * no decoding is cut out as it is, and names that need none come from a small
 * cache, as they repeat from request to request.
 */
public final class FormParams {
  private FormParams() {}

  /** Maps with up to this many entries are array maps, as assoc would make them. */
  private static final int ARRAY_MAP_MAX = 8;

  public static IPersistentMap parse(String encoded, Charset charset) {
    if (encoded == null || encoded.indexOf('=') < 0) return PersistentArrayMap.EMPTY;
    Object[] kv = new Object[2 * ARRAY_MAP_MAX];
    int n = 0; // slots used in kv
    ITransientMap big = null; // once there are more names than an array map holds
    int len = encoded.length();
    int start = 0;
    while (start < len) {
      int end = encoded.indexOf('&', start);
      if (end < 0) end = len;
      if (end > start) {
        int eq = encoded.indexOf('=', start, end);
        int keyEnd = eq < 0 ? end : eq;
        String k = needsDecoding(encoded, start, keyEnd)
            ? FormDecoding.decode(encoded, start, keyEnd, charset)
            : Names.of(encoded, start, keyEnd);
        String v;
        if (eq < 0) v = "";
        else if (needsDecoding(encoded, eq + 1, end)) v = FormDecoding.decode(encoded, eq + 1, end, charset);
        else v = encoded.substring(eq + 1, end);
        if (k != null && v != null) {
          int at;
          if (big != null) {
            big = big.assoc(k, conj(big.valAt(k), v));
          } else if ((at = indexOf(kv, n, k)) >= 0) {
            kv[at + 1] = conj(kv[at + 1], v);
          } else if (n < kv.length) {
            kv[n] = k;
            kv[n + 1] = v;
            n += 2;
          } else {
            big = PersistentHashMap.EMPTY.asTransient();
            for (int i = 0; i < n; i += 2) big = big.assoc(kv[i], kv[i + 1]);
            big = big.assoc(k, v);
          }
        }
      }
      start = end + 1;
    }
    if (big != null) return big.persistent();
    if (n == 0) return PersistentArrayMap.EMPTY;
    return new PersistentArrayMap(n == kv.length ? kv : Arrays.copyOf(kv, n));
  }

  private static boolean needsDecoding(String s, int start, int end) {
    for (int i = start; i < end; i++) {
      char c = s.charAt(i);
      if (c == '%' || c == '+') return true;
    }
    return false;
  }

  private static int indexOf(Object[] kv, int n, String k) {
    // Names' hashes are cached in them (those from the cache have theirs already):
    // comparing them first spares a comparison of text for nearly every name.
    int h = k.hashCode();
    for (int i = 0; i < n; i += 2) {
      Object other = kv[i];
      if (other == k || (other.hashCode() == h && k.equals(other))) return i;
    }
    return -1;
  }

  /** ring-codec's assoc-conj: a second value makes a vector, later ones join it. */
  private static Object conj(Object current, String value) {
    if (current == null) return value;
    if (current instanceof IPersistentVector v) return v.cons(value);
    return LazilyPersistentVector.createOwning(current, value);
  }

  /**
   * Parameter names that need no decoding, shared: a direct-mapped cache keyed by
   * the name's text, so that a request full of invented names can replace
   * entries but never grow it. Racing threads see a whole string or a miss.
   */
  private static final class Names {
    private Names() {}

    private static final int SIZE = 1024;
    private static final int LONGEST = 32;
    private static final String[] CACHE = new String[SIZE];

    static String of(String s, int start, int end) {
      int length = end - start;
      if (length > LONGEST) return s.substring(start, end);
      int h = 0;
      for (int i = start; i < end; i++) h = 31 * h + s.charAt(i);
      int slot = (h ^ (h >>> 16)) & (SIZE - 1);
      String cached = CACHE[slot];
      if (cached != null && cached.hashCode() == h && cached.length() == length && sameText(s, start, cached)) {
        return cached;
      }
      String name = s.substring(start, end);
      name.hashCode(); // computed now, cached in the string, for the comparisons above and in indexOf
      CACHE[slot] = name;
      return name;
    }

    // A plain loop: names are short, and String.regionMatches' vectorised compare costs more to start.
    private static boolean sameText(String s, int start, String name) {
      for (int i = 0, n = name.length(); i < n; i++) {
        if (s.charAt(start + i) != name.charAt(i)) return false;
      }
      return true;
    }
  }
}
