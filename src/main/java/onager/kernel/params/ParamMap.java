package onager.kernel.params;

import clojure.lang.IPersistentMap;
import clojure.lang.IPersistentVector;
import clojure.lang.ITransientMap;
import clojure.lang.LazilyPersistentVector;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import java.util.Arrays;

/**
 * The map of one parse, as ring-codec's assoc-conj builds it: a name given more
 * than once maps to a vector of its values in order. Up to eight names it is
 * built in one array, as assoc would build an array map, and a repeated name's
 * values gather in an array made a vector once at the end (rather than one
 * vector per value, as conj would make); past eight names it is a hash map.
 *
 * <p>A repeated name's array grows by one value at a time up to eight, so that
 * it is the vector's own, exactly sized, with no copy at the end: each
 * allocation costs about as much as the rest of a repeat's work.
 */
final class ParamMap {
  /** Maps with up to this many entries are array maps, as assoc would make them. */
  private static final int ARRAY_MAP_MAX = 8;

  /** Up to this many values a repeated name's array grows by one; past them it doubles. */
  private static final int EXACT_REPEATS = 8;

  private final Object[] kv;
  private int n; // slots used in kv
  // A bit per pair of kv whose value is an Object[] of a repeated name's values: build() turns just
  // those into vectors, rather than testing every value's type.
  private int repeated;
  private long seen; // a bit per name in kv, by its hash: a name whose bit is clear is new
  private ITransientMap big; // once there are more names than an array map holds

  /**
   * @param pairs at most how many pairs are to come: the array is then the
   *     map's own when each has a name of its own, and needs no copy
   */
  ParamMap(int pairs) {
    kv = new Object[2 * Math.min(ARRAY_MAP_MAX, pairs)];
  }

  /**
   * Puts a pair whose name is new, while the array has room: the common case,
   * with no call in it, so that the JIT always inlines it into the parser's
   * loop: with putAgain inlined into it, it would be too large to inline there.
   *
   * @return false when the name may have come before or the array is full:
   *     the caller then calls {@link #putAgain}
   */
  boolean putNew(String name, String value) {
    long bit = bit(name);
    if ((seen & bit) != 0 || n == kv.length) return false;
    seen |= bit;
    kv[n] = name;
    kv[n + 1] = value;
    n += 2;
    return true;
  }

  /** A name that may have come before, or one more than the array holds. */
  void putAgain(String name, String value) {
    if (big != null) {
      putBig(name, value);
      return;
    }
    long bit = bit(name);
    int at = (seen & bit) == 0 ? -1 : indexOf(name);
    seen |= bit;
    if (at >= 0) {
      kv[at + 1] = append(kv[at + 1], value);
      repeated |= 1 << (at >>> 1);
    } else if (n < kv.length) {
      kv[n] = name;
      kv[n + 1] = value;
      n += 2;
    } else {
      toBig(name, value);
    }
  }

  private static long bit(String name) {
    int h = name.hashCode();
    return 1L << (h ^ (h >>> 16));
  }

  /** The ninth name: the names so far and this one into a hash map. */
  private void toBig(String name, String value) {
    big = PersistentHashMap.EMPTY.asTransient();
    for (int j = 0; j < n; j += 2) big = big.assoc(kv[j], vectorOf(kv[j + 1]));
    big = big.assoc(name, value);
  }

  private void putBig(String name, String value) {
    big = big.assoc(name, conj(big.valAt(name), value));
  }

  IPersistentMap build() {
    // The array is full (n never grows once there is a hash map) and every name in it is new.
    if (n == kv.length && big == null && repeated == 0) return new PersistentArrayMap(kv);
    return buildOther();
  }

  private IPersistentMap buildOther() {
    if (big != null) return big.persistent();
    if (n == 0) return PersistentArrayMap.EMPTY;
    for (int r = repeated; r != 0; r &= r - 1) {
      int j = 2 * Integer.numberOfTrailingZeros(r) + 1;
      kv[j] = vectorOf((Object[]) kv[j]);
    }
    return new PersistentArrayMap(n == kv.length ? kv : Arrays.copyOf(kv, n));
  }

  private int indexOf(String name) {
    // A name from the cache is the same String each time it comes: found by
    // identity, without reading any of the strings, from the last name back (a
    // name's values mostly come one after another: tags=a&tags=b). Only other
    // names (escaped, long, or pushed out of the cache) need a second look, by
    // hash (cached in every string here), then text.
    for (int i = n - 2; i >= 0; i -= 2) {
      if (kv[i] == name) return i;
    }
    int h = name.hashCode();
    for (int i = 0; i < n; i += 2) {
      String other = (String) kv[i];
      if (other.hashCode() == h && other.equals(name)) return i;
    }
    return -1;
  }

  /** A repeated name's values so far: an array, null past the last value once it has doubled. */
  private static Object[] append(Object current, String value) {
    if (current instanceof String first) return new Object[] {first, value};
    Object[] values = (Object[]) current;
    int count = count(values);
    if (count == values.length) values = Arrays.copyOf(values, count < EXACT_REPEATS ? count + 1 : 2 * count);
    values[count] = value;
    return values;
  }

  private static int count(Object[] values) {
    int count = values.length;
    while (values[count - 1] == null) count--;
    return count;
  }

  private static Object vectorOf(Object value) {
    return value instanceof Object[] values ? vectorOf(values) : value;
  }

  private static IPersistentVector vectorOf(Object[] values) {
    int count = count(values);
    return LazilyPersistentVector.createOwning(count == values.length ? values : Arrays.copyOf(values, count));
  }

  /** ring-codec's assoc-conj, for the hash map: a second value makes a vector, later ones join it. */
  private static Object conj(Object current, String value) {
    if (current == null) return value;
    if (current instanceof IPersistentVector v) return v.cons(value);
    return LazilyPersistentVector.createOwning(current, value);
  }
}
