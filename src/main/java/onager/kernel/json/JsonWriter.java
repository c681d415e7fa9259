package onager.kernel.json;

import clojure.lang.AFn;
import clojure.lang.BigInt;
import clojure.lang.ExceptionInfo;
import clojure.lang.IFn;
import clojure.lang.IKVReduce;
import clojure.lang.IMapEntry;
import clojure.lang.IPersistentMap;
import clojure.lang.ISeq;
import clojure.lang.IPersistentVector;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import clojure.lang.Ratio;
import clojure.lang.Symbol;
import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.io.SegmentedStringWriter;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;
import java.time.temporal.TemporalAmount;
import java.util.Date;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Writes Clojure data as JSON by walking it straight into a Jackson generator:
 * maps (keyword, string, symbol or number keys), vectors, lists, sets, seqs and
 * arrays; strings, keywords and symbols (as strings, keywords with their
 * namespace), numbers of every Clojure type (ratios as doubles), booleans, nil,
 * UUIDs, java.util.Date and java.time values (as ISO-8601 strings). Any other
 * type goes to the fallback, which says what to write instead or that it cannot
 * be written.
 *
 * <p>A writer is immutable and thread-safe: make one per set of options and keep it.
 */
public final class JsonWriter {
  /** What the fallback returns for a type it does not know. */
  public static final Object UNWRITABLE = new Object();

  private static final Keyword ERROR = Keyword.intern("onager", "error");

  private final boolean pretty;
  private final boolean escapeNonAscii;
  private final IFn keyFn;
  private final IFn fallback;

  /**
   * @param keyFn applied to every map key before it is written, or null
   * @param fallback {@code (fn [x])} for values of other types: what to write
   *     instead, or {@link #UNWRITABLE}; may be null
   */
  public JsonWriter(boolean pretty, boolean escapeNonAscii, IFn keyFn, IFn fallback) {
    this.pretty = pretty;
    this.escapeNonAscii = escapeNonAscii;
    this.keyFn = keyFn;
    this.fallback = fallback;
  }

  // Buffers come from the factory's pool and go back to it, as ObjectMapper does it.

  public String writeString(Object value) throws IOException {
    BufferRecycler recycler = Json.FACTORY._getBufferRecycler();
    try (SegmentedStringWriter out = new SegmentedStringWriter(recycler)) {
      write(Json.FACTORY.createGenerator(out), value);
      return out.getAndClear();
    } finally {
      recycler.releaseToPool();
    }
  }

  public byte[] writeBytes(Object value) throws IOException {
    BufferRecycler recycler = Json.FACTORY._getBufferRecycler();
    try (ByteArrayBuilder out = new ByteArrayBuilder(recycler)) {
      write(Json.FACTORY.createGenerator(out, JsonEncoding.UTF8), value);
      byte[] bytes = out.toByteArray();
      out.release();
      return bytes;
    } finally {
      recycler.releaseToPool();
    }
  }

  /** Writes to {@code out} and flushes it; does not close it. */
  public void writeTo(OutputStream out, Object value) throws IOException {
    JsonGenerator g = Json.FACTORY.createGenerator(out);
    g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    write(g, value);
  }

  /** Writes to {@code out} and flushes it; does not close it. */
  public void writeTo(Writer out, Object value) throws IOException {
    JsonGenerator g = Json.FACTORY.createGenerator(out);
    g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    write(g, value);
  }

  private void write(JsonGenerator g, Object value) throws IOException {
    if (pretty) g.setPrettyPrinter(Json.PRETTY.createInstance());
    if (escapeNonAscii) g.enable(JsonWriteFeature.ESCAPE_NON_ASCII.mappedFeature());
    try (g) {
      new Walk(g).value(value);
    } catch (UncheckedIOException e) {
      throw e.getCause();
    }
  }

  // ---- keys ----

  /** Keyword keys, quoted and encoded once: a direct-mapped cache, so it never grows. */
  private static final int KEY_CACHE_SIZE = 1024;
  private static final KeyName[] KEY_CACHE = new KeyName[KEY_CACHE_SIZE];

  private record KeyName(Keyword keyword, SerializedString name) {}

  static SerializedString keyName(Keyword k) {
    int slot = k.hasheq() & (KEY_CACHE_SIZE - 1);
    KeyName cached = KEY_CACHE[slot];
    if (cached != null && cached.keyword == k) return cached.name;
    SerializedString name = new SerializedString(k.sym.toString());
    KEY_CACHE[slot] = new KeyName(k, name);
    return name;
  }

  private static final DateTimeFormatter ZONED = DateTimeFormatter.ISO_OFFSET_DATE_TIME;

  /** One write: the generator, and the callback a map's kv-reduce calls. */
  private final class Walk extends AFn {
    private final JsonGenerator g;

    Walk(JsonGenerator g) {
      this.g = g;
    }

    // The kv-reduce callback: IFn's invoke cannot throw IOException, so it travels unchecked.
    @Override
    public Object invoke(Object acc, Object k, Object v) {
      try {
        field(k);
        value(v);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return acc;
    }

    void field(Object key) throws IOException {
      Object k = keyFn == null ? key : keyFn.invoke(key);
      if (k instanceof Keyword kw) {
        g.writeFieldName(keyName(kw));
      } else if (k instanceof String s) {
        g.writeFieldName(s);
      } else if (k instanceof Symbol || k instanceof Number || k instanceof UUID || k instanceof Character
          || k instanceof Boolean) {
        g.writeFieldName(k.toString());
      } else {
        throw unwritableKey(k);
      }
    }

    void value(Object x) throws IOException {
      if (x == null) {
        g.writeNull();
      } else if (x instanceof String s) {
        g.writeString(s);
      } else if (x instanceof Keyword k) {
        g.writeString(k.sym.toString());
      } else if (x instanceof Long n) {
        g.writeNumber(n.longValue());
      } else if (x instanceof Map<?, ?> m) {
        map(m);
      } else if (x instanceof IPersistentVector v) {
        g.writeStartArray(v, v.count());
        for (int i = 0, n = v.count(); i < n; i++) value(v.nth(i));
        g.writeEndArray();
      } else if (x instanceof Boolean b) {
        g.writeBoolean(b);
      } else if (x instanceof Double d) {
        g.writeNumber(d.doubleValue());
      } else if (x instanceof Iterable<?> items) {
        g.writeStartArray();
        for (Object item : items) value(item);
        g.writeEndArray();
      } else if (x instanceof Number n) {
        number(n);
      } else {
        other(x);
      }
    }

    private void map(Map<?, ?> m) throws IOException {
      g.writeStartObject(m);
      if (m instanceof IKVReduce kv) {
        kv.kvreduce(this, null);
      } else if (m instanceof IPersistentMap pm) {
        // Records: their seq keeps the fields' order, their entrySet does not.
        for (ISeq s = pm.seq(); s != null; s = s.next()) {
          IMapEntry e = (IMapEntry) s.first();
          field(e.key());
          value(e.val());
        }
      } else {
        for (Map.Entry<?, ?> e : m.entrySet()) {
          field(e.getKey());
          value(e.getValue());
        }
      }
      g.writeEndObject();
    }

    private void number(Number n) throws IOException {
      if (n instanceof Integer || n instanceof Short || n instanceof Byte
          || n instanceof AtomicInteger || n instanceof AtomicLong) {
        g.writeNumber(n.longValue());
      } else if (n instanceof BigDecimal d) {
        g.writeNumber(d);
      } else if (n instanceof BigInt b) {
        g.writeNumber(b.toBigInteger());
      } else if (n instanceof BigInteger b) {
        g.writeNumber(b);
      } else if (n instanceof Float f) {
        g.writeNumber(f.floatValue());
      } else if (n instanceof Ratio r) {
        g.writeNumber(r.doubleValue());
      } else {
        other(n);
      }
    }

    private void other(Object x) throws IOException {
      if (x instanceof Symbol || x instanceof UUID || x instanceof Character) {
        g.writeString(x.toString());
      } else if (x instanceof ZonedDateTime z) {
        g.writeString(ZONED.format(z));
      } else if (x instanceof TemporalAccessor || x instanceof TemporalAmount) {
        g.writeString(x.toString());
      } else if (x instanceof Date d) {
        // Through a plain Date: java.sql.Date refuses toInstant.
        g.writeString(new Date(d.getTime()).toInstant().toString());
      } else if (x instanceof byte[] b) {
        g.writeBinary(b);
      } else if (x instanceof Object[] a) {
        g.writeStartArray(a, a.length);
        for (Object item : a) value(item);
        g.writeEndArray();
      } else if (x instanceof int[] a) {
        g.writeArray(a, 0, a.length);
      } else if (x instanceof long[] a) {
        g.writeArray(a, 0, a.length);
      } else if (x instanceof double[] a) {
        g.writeArray(a, 0, a.length);
      } else {
        Object instead = fallback == null ? UNWRITABLE : fallback.invoke(x);
        if (instead == UNWRITABLE || instead == x || (instead != null && instead.getClass() == x.getClass())) {
          throw unwritable(x, "value");
        }
        value(instead);
      }
    }
  }

  private static ExceptionInfo unwritable(Object x, String what) {
    String type = x.getClass().getName();
    return failure("Cannot write a " + what + " of type " + type + " as JSON (" + shown(x) + "). "
        + "Give it as one of the types onager.json writes, or extend the protocol onager.json/JsonWritable to "
        + type + ".", x);
  }

  private static ExceptionInfo unwritableKey(Object k) {
    return failure("Cannot write the map key " + shown(k) + (k == null ? "" : " (a " + k.getClass().getName() + ")")
        + " as JSON: a key must be a string, keyword, symbol, number, UUID, character or boolean; "
        + "a :key-fn can make one.", k);
  }

  private static String shown(Object x) {
    String s = x == null ? "nil" : String.valueOf(x);
    return s.length() > 80 ? s.substring(0, 77) + "..." : s;
  }

  private static ExceptionInfo failure(String message, Object x) {
    return new ExceptionInfo(message, new PersistentArrayMap(new Object[] {ERROR, Keyword.intern("json-unwritable"),
        Keyword.intern("class"), x == null ? null : x.getClass(), Keyword.intern("value"), x}));
  }
}
