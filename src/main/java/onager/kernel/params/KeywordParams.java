package onager.kernel.params;

import clojure.lang.IMapEntry;
import clojure.lang.IPersistentMap;
import clojure.lang.IPersistentVector;
import clojure.lang.ISeq;
import clojure.lang.ITransientCollection;
import clojure.lang.ITransientMap;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import clojure.lang.PersistentVector;
import onager.kernel.ring.Keywords;

/**
 * ring-core's wrap-keyword-params: string keys that read as plain keywords
 * become keywords, in nested maps and vectors too; any other key stays as it is.
 */
final class KeywordParams {
  private KeywordParams() {}

  static Object keyify(Object target) {
    if (target instanceof IPersistentMap m) {
      int count = m.count();
      if (count == 0) return PersistentArrayMap.EMPTY;
      if (count <= 8) {
        Object[] kv = new Object[2 * count];
        int i = 0;
        for (ISeq s = m.seq(); s != null; s = s.next()) {
          IMapEntry e = (IMapEntry) s.first();
          kv[i++] = key(e.key());
          kv[i++] = keyify(e.val());
        }
        // Two keys can become one (:a and "a"), as into {} would make them.
        return PersistentArrayMap.createAsIfByAssoc(kv);
      }
      ITransientMap out = PersistentHashMap.EMPTY.asTransient();
      for (ISeq s = m.seq(); s != null; s = s.next()) {
        IMapEntry e = (IMapEntry) s.first();
        out = out.assoc(key(e.key()), keyify(e.val()));
      }
      return out.persistent();
    }
    if (target instanceof IPersistentVector v) {
      ITransientCollection out = PersistentVector.EMPTY.asTransient();
      for (int i = 0; i < v.count(); i++) out = out.conj(keyify(v.nth(i)));
      return out.persistent();
    }
    return target;
  }

  private static Object key(Object k) {
    return k instanceof String s && plainKeyword(s) ? Keywords.of(s) : k;
  }

  /** ring-core 1.8's {@code [\p{L}*+!_?-][\p{L}\d*+!_?-]*}. */
  static boolean plainKeyword(String s) {
    if (s.isEmpty()) return false;
    for (int i = 0; i < s.length(); ) {
      int c = s.codePointAt(i);
      boolean ok = Character.isLetter(c) || c == '*' || c == '+' || c == '!' || c == '_' || c == '?' || c == '-'
          || (i > 0 && c >= '0' && c <= '9');
      if (!ok) return false;
      i += Character.charCount(c);
    }
    return true;
  }
}
