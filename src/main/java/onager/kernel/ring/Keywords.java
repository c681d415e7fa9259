package onager.kernel.ring;

import clojure.lang.Keyword;

/**
 * Keywords for names read from requests (JSON keys, parameter names), through a
 * small cache in front of {@link Keyword#intern(String)}, which parses the name
 * and looks it up in a global table on every call.
 *
 * <p>The cache is a fixed array indexed by the name's hash, so a request full of
 * invented names can replace entries but never grow it. Threads may race on a
 * slot; each sees a complete keyword or a miss.
 */
public final class Keywords {
  private Keywords() {}

  private static final int SIZE = 4096;
  private static final Entry[] CACHE = new Entry[SIZE];

  /**
   * A cached keyword and the string it was made from: parsers hand the same
   * string instance for a name they have seen (Jackson canonicalises names), so
   * identity usually decides without comparing text.
   */
  private record Entry(String name, Keyword keyword) {}

  /** The keyword {@code (keyword name)} makes. */
  public static Keyword of(String name) {
    int h = name.hashCode();
    int slot = (h ^ (h >>> 16)) & (SIZE - 1);
    Entry e = CACHE[slot];
    if (e != null && (e.name == name || e.name.equals(name))) return e.keyword;
    Keyword k = Keyword.intern(name);
    CACHE[slot] = new Entry(name, k);
    return k;
  }
}
