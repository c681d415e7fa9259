package onager.kernel.params;

import clojure.lang.IEditableCollection;
import clojure.lang.IObj;
import clojure.lang.IPersistentMap;
import clojure.lang.ITransientMap;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;

/**
 * The request keys wrap-params reads and writes, and the two ways it treats a
 * request map. An array map (as Ring's tests, ring-mock and most middleware make
 * them) is read straight from its array of entries, and the new request is that
 * array copied once with room for the new keys: no lookup per key, no copy per
 * assoc, no transient (whose volatile fields cost more than the copying). Any
 * other map is read with valAt and grows by assoc.
 */
final class RequestMaps {
  private RequestMaps() {}

  static final Keyword QUERY_STRING = Keyword.intern("query-string");
  static final Keyword HEADERS = Keyword.intern("headers");
  static final Keyword BODY = Keyword.intern("body");
  static final Keyword QUERY_PARAMS = Keyword.intern("query-params");
  static final Keyword FORM_PARAMS = Keyword.intern("form-params");
  static final Keyword PARAMS = Keyword.intern("params");

  /** Array maps hold up to this many slots; assoc makes a hash map past them. */
  private static final int ARRAY_MAP_SLOTS = 16;

  /**
   * PersistentArrayMap's array of keys and values. Clojure keeps it
   * package-private, but its classes sit in the unnamed module, open to us; a
   * Clojure without it (none so far) leaves this null, and array maps take the
   * valAt way.
   */
  private static final VarHandle ARRAY_MAP_ENTRIES = arrayMapEntries();

  /** The keys and values of {@code request} when it is an array map (not to be changed), else null. */
  static Object[] entries(IPersistentMap request) {
    return ARRAY_MAP_ENTRIES != null && request.getClass() == PersistentArrayMap.class
        ? (Object[]) ARRAY_MAP_ENTRIES.get((PersistentArrayMap) request)
        : null;
  }

  /**
   * The array map {@code request} with its {@code entries} and the new maps; a
   * null form or query is left as it is.
   *
   * @param formAt the index of :form-params in {@code entries}, or -1 (likewise the others)
   */
  static IPersistentMap with(IPersistentMap request, Object[] entries, int formAt, int queryAt, int paramsAt,
                             IPersistentMap form, IPersistentMap query, Object params) {
    if (form != null && query != null && formAt < 0 && queryAt < 0 && paramsAt < 0) {
      Object[] kv = appended(entries, form, query, params);
      if (kv != null) return new PersistentArrayMap(((PersistentArrayMap) request).meta(), kv);
    }
    // Sized first: an array map's array is exactly its entries, so room left over would cost a second copy.
    int added = (form != null && formAt < 0 ? 2 : 0) + (query != null && queryAt < 0 ? 2 : 0) + (paramsAt < 0 ? 2 : 0);
    Object[] kv = Arrays.copyOf(entries, entries.length + added);
    int used = entries.length;
    if (form != null) used = put(kv, used, formAt, FORM_PARAMS, form);
    if (query != null) used = put(kv, used, queryAt, QUERY_PARAMS, query);
    used = put(kv, used, paramsAt, PARAMS, params);
    IPersistentMap meta = ((PersistentArrayMap) request).meta();
    if (used <= ARRAY_MAP_SLOTS) return new PersistentArrayMap(meta, kv);
    IPersistentMap map = PersistentHashMap.create(kv);
    return meta == null ? map : (IPersistentMap) ((IObj) map).withMeta(meta);
  }

  /**
   * The {@code entries} of a request of up to five keys with the three new
   * ones after them, or null for a larger request. Each size has an array
   * initializer of its own, as the JIT fills an array it has just allocated
   * without the collector's write barriers, which storing the new keys one by
   * one after a copy pays.
   */
  private static Object[] appended(Object[] e, IPersistentMap form, IPersistentMap query, Object params) {
    return switch (e.length) {
      case 0 -> new Object[] {FORM_PARAMS, form, QUERY_PARAMS, query, PARAMS, params};
      case 2 -> new Object[] {e[0], e[1], FORM_PARAMS, form, QUERY_PARAMS, query, PARAMS, params};
      case 4 -> new Object[] {e[0], e[1], e[2], e[3], FORM_PARAMS, form, QUERY_PARAMS, query, PARAMS, params};
      case 6 -> new Object[] {e[0], e[1], e[2], e[3], e[4], e[5], FORM_PARAMS, form, QUERY_PARAMS, query, PARAMS, params};
      case 8 -> new Object[] {e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7],
                              FORM_PARAMS, form, QUERY_PARAMS, query, PARAMS, params};
      case 10 -> new Object[] {e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7], e[8], e[9],
                               FORM_PARAMS, form, QUERY_PARAMS, query, PARAMS, params};
      default -> null;
    };
  }

  /** Any other map with the new maps; a null form or query is left as it is. */
  static IPersistentMap with(IPersistentMap request, IPersistentMap form, IPersistentMap query, Object params) {
    // A transient takes the keys in one copy, rather than one per assoc, but would drop metadata.
    if (request instanceof IEditableCollection editable && !(request instanceof IObj o && o.meta() != null)) {
      ITransientMap t = (ITransientMap) editable.asTransient();
      if (form != null) t = t.assoc(FORM_PARAMS, form);
      if (query != null) t = t.assoc(QUERY_PARAMS, query);
      return t.assoc(PARAMS, params).persistent();
    }
    IPersistentMap req = request;
    if (form != null) req = req.assoc(FORM_PARAMS, form);
    if (query != null) req = req.assoc(QUERY_PARAMS, query);
    return req.assoc(PARAMS, params);
  }

  /** Sets {@code key} in {@code kv}: at its slot {@code at}, or appended; the slots now used. */
  private static int put(Object[] kv, int used, int at, Keyword key, Object val) {
    if (at >= 0) {
      kv[at + 1] = val;
      return used;
    }
    kv[used] = key;
    kv[used + 1] = val;
    return used + 2;
  }

  private static VarHandle arrayMapEntries() {
    try {
      return MethodHandles.privateLookupIn(PersistentArrayMap.class, MethodHandles.lookup())
          .findVarHandle(PersistentArrayMap.class, "array", Object[].class);
    } catch (ReflectiveOperationException | IllegalArgumentException | SecurityException e) {
      return null;
    }
  }
}
