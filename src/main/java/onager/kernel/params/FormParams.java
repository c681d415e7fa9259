package onager.kernel.params;

import clojure.lang.IPersistentMap;
import clojure.lang.PersistentArrayMap;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * Parses a query string or urlencoded form body into a map, with ring-codec's
 * semantics: pairs split on '&' (empty ones skipped) and at their first '=', a
 * pair whose name or value does not decode left out, a name given more than
 * once mapped to a vector of its values (see {@link ParamMap}), and no map at
 * all (an empty one) for text without any '='.
 *
 * <p>The text is scanned as a copy of its Latin-1 bytes, one table lookup per
 * byte: String.charAt checks the string's coder on every call, which costs more
 * than the copy. The copy is ours, so escapes are decoded in it, in place, and
 * the scan itself writes each '+' it passes as the space it stands for: a name
 * or value whose only escapes are '+' (words of a search) then needs no
 * decoding, only copying. The copy shows a character beyond Latin-1 as '?': a
 * name or value with one is taken from the string itself.
 *
 * <p>Each pair is scanned in one loop, its name and value alike: a loop each
 * would be left at places no branch predictor can guess.
 */
public final class FormParams {
  private FormParams() {}

  private static final byte AMPERSAND = 1;
  private static final byte EQUALS = 2;
  private static final byte ESCAPE = 3;
  private static final byte QUESTION = 4;
  private static final byte PLUS = 5;
  private static final byte[] CLASSES = new byte[256];

  static {
    CLASSES['&'] = AMPERSAND;
    CLASSES['='] = EQUALS;
    CLASSES['%'] = ESCAPE;
    CLASSES['+'] = PLUS;
    CLASSES['?'] = QUESTION;
  }

  /**
   * @param charset for escapes; may be null when {@code encoded} has no '%'
   */
  public static IPersistentMap parse(String encoded, Charset charset) {
    if (encoded == null) return PersistentArrayMap.EMPTY;
    byte[] text = encoded.getBytes(StandardCharsets.ISO_8859_1);
    // A surrogate pair becomes one '?', so a length that differs means characters beyond Latin-1.
    if (text.length != encoded.length()) text = standIn(encoded);
    return parse(encoded, text, charset);
  }

  /**
   * @param text {@code s}'s characters as bytes at the same indexes, where a '?'
   *     may stand for a character beyond Latin-1: a name or value with one is
   *     taken from {@code s} itself ("wide")
   */
  private static IPersistentMap parse(String s, byte[] text, Charset charset) {
    int len = text.length;
    ParamMap map = null; // made at the first pair, when it is known whether that is the only one
    boolean anyEquals = false;
    int start = 0;
    while (start < len) {
      // One pass up to the next '&': the name runs to the first '=', the value
      // from there. From the value's first '%' on, the decoder reads every
      // byte anyway (a '+' there included): the '&' is found with indexOf.
      int equals = -1;
      int nameEscape = -1;
      int valueEscape = -1;
      boolean nameWide = false;
      boolean valueWide = false;
      int i = start;
      for (; i < len; i++) {
        int kind = CLASSES[text[i] & 0xff];
        if (kind == 0) continue;
        if (kind == AMPERSAND) break;
        if (kind == PLUS) {
          text[i] = ' ';
          continue;
        }
        if (equals < 0) {
          if (kind == EQUALS) equals = i;
          else if (kind == ESCAPE) nameEscape = nameEscape < 0 ? i : nameEscape;
          else if (s.charAt(i) != '?') nameWide = true;
        } else if (kind == ESCAPE) {
          valueEscape = i;
          i = s.indexOf('&', i);
          if (i < 0) i = len;
          break;
        } else if (kind == QUESTION && s.charAt(i) != '?') {
          valueWide = true;
        }
      }
      boolean hasValue = equals >= 0;
      int nameEnd = hasValue ? equals : i;
      int valueStart = equals + 1;
      if (hasValue) anyEquals = true;
      int end = i;
      if (end > start) {
        String name;
        if (nameEscape >= 0) name = FormDecoding.decode(s, text, start, nameEscape, nameEnd, charset, nameWide);
        else if (nameWide) name = s.substring(start, nameEnd).replace('+', ' ');
        else name = Names.of(text, start, nameEnd);
        String value;
        if (!hasValue) value = "";
        else if (valueEscape >= 0) value = FormDecoding.decode(s, text, valueStart, valueEscape, end, charset, valueWide);
        else {
          value = valueWide
              ? s.substring(valueStart, end).replace('+', ' ')
              : ShortValues.of(text, valueStart, end - valueStart);
          if (value == null) value = FormDecoding.latin1(text, valueStart, end - valueStart);
        }
        if (name != null && value != null) {
          // The only pair (a query string of one parameter is common) needs no ParamMap.
          if (map == null && start == 0 && end >= len) {
            return hasValue ? new PersistentArrayMap(new Object[] {name, value}) : PersistentArrayMap.EMPTY;
          }
          // Pairs are at least two characters apart: "a&b".
          if (map == null) map = new ParamMap(end >= len ? 1 : (len - start + 1) / 2);
          if (!map.putNew(name, value)) map.putAgain(name, value);
        }
      }
      start = end + 1;
    }
    return anyEquals && map != null ? map.build() : PersistentArrayMap.EMPTY;
  }

  /** Bytes at the indexes of {@code s}'s characters, '?' for those beyond Latin-1: enough to find pairs by. */
  private static byte[] standIn(String s) {
    byte[] text = new byte[s.length()];
    for (int i = 0; i < text.length; i++) {
      char c = s.charAt(i);
      text[i] = c <= 0xff ? (byte) c : (byte) '?';
    }
    return text;
  }
}
