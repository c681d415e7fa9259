package onager.kernel.client;

import clojure.lang.APersistentMap;
import clojure.lang.IFn;
import clojure.lang.IKVReduce;
import clojure.lang.IMapEntry;
import clojure.lang.IObj;
import clojure.lang.IPersistentCollection;
import clojure.lang.IPersistentMap;
import clojure.lang.ISeq;
import io.vertx.core.MultiMap;
import java.util.Iterator;

/**
 * A response's {@code :headers}: a persistent map made from the response's
 * fields the first time it is read, since most callers read only the status
 * and the body. The fields do not change once the response's head is in, so
 * any thread may make it; two that race make equal maps, and either is kept.
 */
final class LazyHeaders extends APersistentMap implements IObj, IKVReduce {
  private final MultiMap fields;
  // Final-field maps only: one published by a race is seen whole.
  private IPersistentMap made;

  LazyHeaders(MultiMap fields) {
    this.fields = fields;
  }

  private IPersistentMap map() {
    IPersistentMap m = made;
    if (m == null) {
      m = ClientResponses.headers(fields);
      made = m;
    }
    return m;
  }

  @Override
  public Object valAt(Object key) {
    return map().valAt(key);
  }

  @Override
  public Object valAt(Object key, Object notFound) {
    return map().valAt(key, notFound);
  }

  @Override
  public boolean containsKey(Object key) {
    return map().containsKey(key);
  }

  @Override
  public IMapEntry entryAt(Object key) {
    return map().entryAt(key);
  }

  @Override
  public int count() {
    return map().count();
  }

  @Override
  public ISeq seq() {
    return map().seq();
  }

  @Override
  @SuppressWarnings("rawtypes")
  public Iterator iterator() {
    return map().iterator();
  }

  @Override
  public IPersistentMap assoc(Object key, Object val) {
    return map().assoc(key, val);
  }

  @Override
  public IPersistentMap assocEx(Object key, Object val) {
    return map().assocEx(key, val);
  }

  @Override
  public IPersistentMap without(Object key) {
    return map().without(key);
  }

  @Override
  public IPersistentCollection empty() {
    return map().empty();
  }

  @Override
  public Object kvreduce(IFn f, Object init) {
    return ((IKVReduce) map()).kvreduce(f, init);
  }

  @Override
  public IPersistentMap meta() {
    return null;
  }

  @Override
  public IObj withMeta(IPersistentMap meta) {
    return ((IObj) map()).withMeta(meta);
  }
}
