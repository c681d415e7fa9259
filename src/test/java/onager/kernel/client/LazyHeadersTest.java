package onager.kernel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import clojure.lang.IPersistentMap;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentVector;
import io.vertx.core.MultiMap;
import org.junit.jupiter.api.Test;

/** A response's :headers: made from the fields at the first read, once, and a map like any other. */
final class LazyHeadersTest {
  private static MultiMap fields() {
    return MultiMap.caseInsensitiveMultiMap().add("Content-Type", "text/plain").add("Set-Cookie", "a=1")
        .add("Set-Cookie", "b=2");
  }

  @Test
  void madeAtTheFirstReadAndOnlyThen() {
    MultiMap fields = fields();
    LazyHeaders headers = new LazyHeaders(fields);
    // Nothing is read when the response map is made: a field added before the first read is in the map.
    fields.add("X-Late", "1");
    assertEquals("1", headers.valAt("x-late"));
    fields.add("X-Later", "2");
    assertNull(headers.valAt("x-later"), "made once: later changes are not seen");
    assertEquals(3, headers.count());
  }

  @Test
  void aMapLikeAnyOther() {
    IPersistentMap plain = PersistentArrayMap.createAsIfByAssoc(new Object[] {
        "content-type", "text/plain", "set-cookie", PersistentVector.create("a=1", "b=2")});
    LazyHeaders headers = new LazyHeaders(fields());
    assertTrue(headers.equiv(plain));
    assertTrue(plain.equiv(headers));
    assertEquals(plain, headers);
    assertEquals(plain.hashCode(), headers.hashCode());
    assertEquals(clojure.lang.Util.hasheq(plain), clojure.lang.Util.hasheq(headers));
    assertEquals(2, headers.count());
    assertTrue(headers.containsKey("set-cookie"));
    assertFalse(headers.containsKey("Set-Cookie"));
    assertEquals("dflt", headers.valAt("x", "dflt"));
    assertEquals("text/plain", headers.entryAt("content-type").val());
    assertEquals(3, headers.assoc("x", "y").count());
    assertEquals(1, headers.without("set-cookie").count());
    assertEquals(0, headers.empty().count());
    assertEquals(2, clojure.lang.RT.count(headers.seq()));
    assertEquals(PersistentArrayMap.EMPTY.assoc("k", 1), headers.withMeta(PersistentArrayMap.EMPTY.assoc("k", 1))
        .meta());
    assertNull(headers.meta());
  }
}
