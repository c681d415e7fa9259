package onager.kernel.params;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Parameter names that need no decoding, shared across requests, as the same
 * names come again and again: a name of up to 16 Latin-1 characters is looked
 * up by its bytes packed into two longs, so a hit costs a few compares and no
 * String. The cache is direct-mapped, so a request full of invented names can
 * replace entries but never grow it. An entry is one immutable object: racing
 * threads see a whole entry or a miss.
 */
final class Names {
  private Names() {}

  private static final int SLOT_BITS = 10;
  private static final int LONGEST = 16;
  private static final Entry[] CACHE = new Entry[1 << SLOT_BITS];

  private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** The length is kept beside the name, so a hit reads nothing but the entry. */
  private record Entry(long low, long high, int length, String name) {}

  /** The name of the Latin-1 bytes of {@code text} from {@code start} to {@code end}. */
  static String of(byte[] text, int start, int end) {
    int length = end - start;
    if (length > LONGEST) return FormDecoding.latin1(text, start, length);
    long low = bytes(text, start, Math.min(length, 8));
    long high = length > 8 ? bytes(text, start + 8, length - 8) : 0;
    // Packed bytes leave zeros unseen ("a" and "a\0"); the length tells them apart.
    int slot = (int) (((low ^ (high << 7) ^ length) * 0x9E3779B97F4A7C15L) >>> (64 - SLOT_BITS));
    Entry e = CACHE[slot];
    if (e != null && e.low == low && e.high == high && e.length == length) return e.name;
    String name = FormDecoding.latin1(text, start, length);
    name.hashCode(); // computed once, kept in the string, for every map that looks it up
    CACHE[slot] = new Entry(low, high, length, name);
    return name;
  }

  /** The {@code count} (up to eight) bytes of {@code text} from {@code from}, packed little-endian. */
  private static long bytes(byte[] text, int from, int count) {
    if (from + 8 <= text.length) {
      // A whole word, the bytes past the name masked off.
      long word = (long) LONGS.get(text, from);
      return count == 8 ? word : word & ((1L << (count << 3)) - 1);
    }
    long packed = 0;
    for (int i = from + count - 1; i >= from; i--) packed = (packed << 8) | (text[i] & 0xff);
    return packed;
  }
}
