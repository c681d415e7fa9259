package onager.kernel.json;

import clojure.lang.BigInt;
import clojure.lang.ExceptionInfo;
import clojure.lang.IFn;
import clojure.lang.ITransientMap;
import clojure.lang.Keyword;
import clojure.lang.LazilyPersistentVector;
import clojure.lang.PersistentArrayMap;
import clojure.lang.PersistentHashMap;
import clojure.lang.PersistentVector;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.JsonTokenId;
import com.fasterxml.jackson.core.exc.StreamReadException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.util.Arrays;
import onager.kernel.ring.Keywords;

/**
 * Reads JSON into Clojure data straight from a Jackson parser: objects into
 * persistent maps (array maps, in the document's order, up to 16 keys: the
 * records JSON carries are built at a fraction of a hash map's cost and looked
 * up as fast; hash maps above), arrays into vectors, integers into longs (BigInt beyond), decimals into doubles (or
 * BigDecimals), keys into strings, keywords or whatever a key function makes.
 *
 * <p>A reader is immutable and thread-safe: make one per set of options and keep it.
 */
public final class JsonReader {
  private static final Keyword ERROR = Keyword.intern("onager", "error");

  /** Objects with up to this many keys become array maps (Clojure's own literals stop at 8). */
  private static final int ARRAY_MAP_MAX = 16;

  private final boolean keywords;
  private final IFn keyFn;
  private final boolean bigDecimals;

  /**
   * @param keywords keys become keywords (ignored when {@code keyFn} is given)
   * @param keyFn applied to every key string, or null
   * @param bigDecimals decimals become BigDecimals, exactly as written
   */
  public JsonReader(boolean keywords, IFn keyFn, boolean bigDecimals) {
    this.keywords = keywords;
    this.keyFn = keyFn;
    this.bigDecimals = bigDecimals;
  }

  public Object read(String json) throws IOException {
    return read(Json.FACTORY.createParser(json), NO_VALUE);
  }

  public Object read(byte[] json) throws IOException {
    return read(Json.FACTORY.createParser(json), NO_VALUE);
  }

  /** Reads one value from {@code in}; does not close it. */
  public Object read(InputStream in) throws IOException {
    return read(in, NO_VALUE);
  }

  /** Reads one value from {@code in}, or returns {@code empty} when it holds only white space; does not close it. */
  public Object read(InputStream in, Object empty) throws IOException {
    return read(leavingOpen(Json.FACTORY.createParser(in)), empty);
  }

  /** Reads one value from {@code in}; does not close it. */
  public Object read(Reader in) throws IOException {
    return read(in, NO_VALUE);
  }

  /** Reads one value from {@code in}, or returns {@code empty} when it holds only white space; does not close it. */
  public Object read(Reader in, Object empty) throws IOException {
    return read(leavingOpen(Json.FACTORY.createParser(in)), empty);
  }

  private static JsonParser leavingOpen(JsonParser p) {
    return p.disable(JsonParser.Feature.AUTO_CLOSE_SOURCE);
  }

  private static final Object NO_VALUE = new Object();

  private Object read(JsonParser parser, Object empty) throws IOException {
    try (JsonParser p = parser) {
      JsonToken first = p.nextToken();
      if (first == null) {
        if (empty != NO_VALUE) return empty;
        throw invalid("the input holds no JSON value", p.currentLocation());
      }
      Object value = new Walk(p).value(first);
      if (p.nextToken() != null) throw invalid("more follows the JSON value", p.currentTokenLocation());
      return value;
    } catch (StreamReadException e) {
      throw invalid(e.getOriginalMessage(), e.getLocation());
    }
  }

  private static ExceptionInfo invalid(String why, JsonLocation at) {
    StringBuilder m = new StringBuilder("Invalid JSON");
    if (at != null && at.getLineNr() > 0) {
      m.append(" at line ").append(at.getLineNr()).append(", column ").append(at.getColumnNr());
    }
    m.append(": ").append(why);
    return new ExceptionInfo(m.toString(), new PersistentArrayMap(new Object[] {
        ERROR, Keyword.intern("invalid-json"),
        Keyword.intern("line"), at == null ? null : (long) at.getLineNr(),
        Keyword.intern("column"), at == null ? null : (long) at.getColumnNr()}));
  }

  /** One read: the parser, and a stack the open objects and arrays collect their items on. */
  private final class Walk {
    private final JsonParser p;
    private Object[] stack = new Object[32];
    private int top;

    Walk(JsonParser p) {
      this.p = p;
    }

    private void push(Object x) {
      if (top == stack.length) stack = Arrays.copyOf(stack, top * 2);
      stack[top++] = x;
    }

    Object value(JsonToken t) throws IOException {
      switch (t.id()) {
        case JsonTokenId.ID_START_OBJECT:
          return object();
        case JsonTokenId.ID_START_ARRAY:
          return array();
        case JsonTokenId.ID_STRING:
          return p.getText();
        case JsonTokenId.ID_NUMBER_INT:
          return switch (p.getNumberType()) {
            case INT, LONG -> p.getLongValue();
            default -> BigInt.fromBigInteger(p.getBigIntegerValue());
          };
        case JsonTokenId.ID_NUMBER_FLOAT:
          return bigDecimals ? p.getDecimalValue() : (Object) p.getDoubleValue();
        case JsonTokenId.ID_TRUE:
          return Boolean.TRUE;
        case JsonTokenId.ID_FALSE:
          return Boolean.FALSE;
        case JsonTokenId.ID_NULL:
          return null;
        default:
          throw invalid("unexpected " + t, p.currentTokenLocation());
      }
    }

    private Object key(String name) {
      if (keyFn != null) return keyFn.invoke(name);
      return keywords ? Keywords.of(name) : name;
    }

    private Object object() throws IOException {
      int base = top;
      String name;
      while ((name = p.nextFieldName()) != null) {
        Object k = key(name);
        Object v = value(p.nextToken());
        push(k);
        push(v);
      }
      int n = top - base;
      Object map;
      if (n == 0) {
        map = PersistentArrayMap.EMPTY;
      } else if (n <= 2 * ARRAY_MAP_MAX) {
        // A repeated key keeps its last value, as assoc would.
        map = PersistentArrayMap.createAsIfByAssoc(Arrays.copyOfRange(stack, base, top));
      } else {
        ITransientMap m = PersistentHashMap.EMPTY.asTransient();
        for (int i = base; i < top; i += 2) m = m.assoc(stack[i], stack[i + 1]);
        map = m.persistent();
      }
      release(base);
      return map;
    }

    private Object array() throws IOException {
      int base = top;
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) push(value(t));
      int n = top - base;
      Object vector = n == 0 ? PersistentVector.EMPTY
          : LazilyPersistentVector.createOwning(Arrays.copyOfRange(stack, base, top));
      release(base);
      return vector;
    }

    // The slots above stay filled until reused: what they hold is in the result anyway.
    private void release(int base) {
      top = base;
    }
  }
}
