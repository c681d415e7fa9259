package onager.kernel.ring;

import clojure.lang.APersistentMap;
import clojure.lang.ArraySeq;
import clojure.lang.IMapEntry;
import clojure.lang.IObj;
import clojure.lang.IPersistentCollection;
import clojure.lang.IPersistentMap;
import clojure.lang.ISeq;
import clojure.lang.MapEntry;
import clojure.lang.PersistentArrayMap;
import java.util.Arrays;
import java.util.Iterator;

/**
 * The Ring request map: a real persistent map whose standard keys are computed
 * from the HTTP request only when read.
 *
 * <p>A map is a {@link RequestSource} (shared by every map derived from the same
 * request), a bit set of the standard keys it still holds, and an ordinary map
 * of everything else. {@code assoc} of a new key touches only that small map;
 * {@code assoc} or {@code dissoc} of a standard key clears its bit (the new
 * value, if any, goes to the small map). No value is computed or copied by
 * either, so middleware that adds keys costs what adding to a small map costs.
 */
public final class RingRequest extends APersistentMap implements IObj {
  private final RequestSource source;
  private final int present;
  private final IPersistentMap extra;
  private final IPersistentMap meta;

  /** Tells the request's source that a router's route took it (see {@link RequestSource#routed}). */
  public void routed(String template, boolean mount) {
    source.routed(template, mount);
  }

  public RingRequest(RequestSource source) {
    this(source, source.presentKeys(), PersistentArrayMap.EMPTY, null);
  }

  private RingRequest(RequestSource source, int present, IPersistentMap extra, IPersistentMap meta) {
    this.source = source;
    this.present = present;
    this.extra = extra;
    this.meta = meta;
  }

  private boolean holds(int index) {
    return index >= 0 && (present & (1 << index)) != 0;
  }

  @Override
  public Object valAt(Object key) {
    return valAt(key, null);
  }

  @Override
  public Object valAt(Object key, Object notFound) {
    int index = RingKeys.indexOf(key);
    if (holds(index)) return source.field(index);
    return extra.valAt(key, notFound);
  }

  @Override
  public boolean containsKey(Object key) {
    return holds(RingKeys.indexOf(key)) || extra.containsKey(key);
  }

  @Override
  public IMapEntry entryAt(Object key) {
    int index = RingKeys.indexOf(key);
    if (holds(index)) return MapEntry.create(RingKeys.keyword(index), source.field(index));
    return extra.entryAt(key);
  }

  @Override
  public IPersistentMap assoc(Object key, Object val) {
    int index = RingKeys.indexOf(key);
    int bits = index >= 0 ? present & ~(1 << index) : present;
    return new RingRequest(source, bits, extra.assoc(key, val), meta);
  }

  @Override
  public IPersistentMap assocEx(Object key, Object val) {
    if (containsKey(key)) throw new RuntimeException("Key already present");
    return assoc(key, val);
  }

  @Override
  public IPersistentMap without(Object key) {
    int index = RingKeys.indexOf(key);
    if (holds(index)) return new RingRequest(source, present & ~(1 << index), extra, meta);
    if (!extra.containsKey(key)) return this;
    return new RingRequest(source, present, extra.without(key), meta);
  }

  @Override
  public int count() {
    return Integer.bitCount(present) + extra.count();
  }

  @Override
  public IPersistentCollection empty() {
    return (IPersistentCollection) PersistentArrayMap.EMPTY.withMeta(meta);
  }

  private Object[] entries() {
    Object[] out = new Object[count()];
    int n = 0;
    for (int i = 0; i < RingKeys.COUNT; i++) {
      if ((present & (1 << i)) != 0) {
        out[n++] = MapEntry.create(RingKeys.keyword(i), source.field(i));
      }
    }
    for (ISeq s = extra.seq(); s != null; s = s.next()) {
      out[n++] = s.first();
    }
    return out;
  }

  @Override
  public ISeq seq() {
    Object[] all = entries();
    return all.length == 0 ? null : ArraySeq.create(all);
  }

  @Override
  @SuppressWarnings({"rawtypes", "unchecked"})
  public Iterator iterator() {
    return Arrays.asList(entries()).iterator();
  }

  @Override
  public IPersistentMap meta() {
    return meta;
  }

  @Override
  public IObj withMeta(IPersistentMap m) {
    if (m == meta) return this;
    return new RingRequest(source, present, extra, m);
  }
}
