package onager.kernel.response;

import io.netty.util.AsciiString;
import io.netty.util.concurrent.FastThreadLocal;
import io.netty.util.concurrent.FastThreadLocalThread;

/**
 * Header names and values a handler sends again and again (the literal
 * {@code "Content-Type"} and {@code "text/plain; charset=utf-8"} in its code),
 * turned into {@link AsciiString} the second time the very same String object
 * comes by.
 *
 * <p>An AsciiString costs Vert.x less than a String: its hash is computed once,
 * and it is written to the wire with one bulk copy instead of a character at a
 * time. A String seen again was already checked (only checked Strings are
 * remembered), so it is not checked again. Values made per request never come
 * by twice and stay Strings; remembering them costs a table slot. Only Strings
 * of up to {@link #MAX_LENGTH} characters are remembered, so that the tables
 * hold little memory whatever handlers send.
 *
 * <p>Each event-loop thread has its own tables, so they need no locking; other
 * threads get none and every header goes through as a String.
 */
final class HeaderStrings {
  private static final int SIZE = 256; // a power of two
  private static final int MASK = SIZE - 1;
  static final int MAX_LENGTH = 64;

  private static final FastThreadLocal<HeaderStrings> TABLES = new FastThreadLocal<>() {
    @Override
    protected HeaderStrings initialValue() {
      return new HeaderStrings();
    }
  };

  private final String[] names = new String[SIZE];
  private final AsciiString[] asciiNames = new AsciiString[SIZE];
  private final int[] nameFlags = new int[SIZE];
  private final String[] values = new String[SIZE];
  private final AsciiString[] asciiValues = new AsciiString[SIZE];

  private HeaderStrings() {}

  /** This event-loop thread's tables, or null on any other thread. */
  static HeaderStrings forThisThread() {
    return Thread.currentThread() instanceof FastThreadLocalThread ? TABLES.get() : null;
  }

  private static int slot(String s) {
    int h = System.identityHashCode(s);
    return (h ^ (h >>> 16)) & MASK;
  }

  /** The AsciiString of a name seen and checked before, or null. */
  AsciiString name(String name) {
    int i = slot(name);
    if (names[i] != name) return null;
    AsciiString a = asciiNames[i];
    if (a == null) {
      a = new AsciiString(name);
      asciiNames[i] = a;
    }
    return a;
  }

  /** The {@link ResponseMaps} flag of a name {@link #name} returned non-null for. */
  int flag(String name) {
    return nameFlags[slot(name)];
  }

  /** Remembers a name that passed the checks, with its flag. */
  void checkedName(String name, int flag) {
    if (name.length() > MAX_LENGTH) return;
    int i = slot(name);
    names[i] = name;
    asciiNames[i] = null;
    nameFlags[i] = flag;
  }

  /** The AsciiString of a value seen and checked before, or null. */
  AsciiString value(String value) {
    int i = slot(value);
    if (values[i] != value) return null;
    AsciiString a = asciiValues[i];
    if (a == null) {
      a = new AsciiString(value);
      asciiValues[i] = a;
    }
    return a;
  }

  /** Remembers a value that passed the checks. */
  void checkedValue(String value) {
    if (value.length() > MAX_LENGTH) return;
    int i = slot(value);
    values[i] = value;
    asciiValues[i] = null;
  }
}
