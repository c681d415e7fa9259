package onager.kernel.proxy;

import java.util.List;

/**
 * The syntax of the Forwarded header (RFC 7239 §4): a list of elements, one
 * per proxy, each of {@code name=value} pairs separated by semicolons, a value
 * a token or a quoted string. Only the parameters the request map takes are
 * kept: for, proto and host; by and extensions are skipped.
 */
final class ForwardedElements {
  private ForwardedElements() {}

  /** Where an element keeps each parameter's value (null when it has none). */
  static final int FOR = 0;
  static final int PROTO = 1;
  static final int HOST = 2;

  /**
   * Adds the elements of one Forwarded header line to {@code out}; false when
   * the line is malformed (then the whole header is disregarded: a list whose
   * hops cannot all be told apart cannot be walked safely).
   */
  static boolean parse(String line, List<String[]> out) {
    int n = line.length();
    int pos = 0;
    while (true) {
      pos = skipSpace(line, pos);
      if (pos == n) return true;
      // An empty list element, which RFC 9110 §5.6.1.2 says to ignore.
      if (line.charAt(pos) == ',') {
        pos++;
        continue;
      }
      String[] element = new String[3];
      while (true) {
        pos = skipSpace(line, pos);
        if (pos < n && line.charAt(pos) != ';' && line.charAt(pos) != ',') {
          int nameEnd = tokenEnd(line, pos);
          if (nameEnd == pos || nameEnd == n || line.charAt(nameEnd) != '=') return false;
          String name = line.substring(pos, nameEnd);
          pos = nameEnd + 1;
          String value;
          if (pos < n && line.charAt(pos) == '"') {
            StringBuilder text = new StringBuilder();
            pos = quoted(line, pos, text);
            if (pos < 0) return false;
            value = text.toString();
          } else {
            int valueEnd = tokenEnd(line, pos);
            if (valueEnd == pos) return false;
            value = line.substring(pos, valueEnd);
            pos = valueEnd;
          }
          int index = index(name);
          if (index >= 0) {
            // "Each parameter MUST NOT occur more than once per forwarded-element" (RFC 7239 §4).
            if (element[index] != null) return false;
            element[index] = value;
          }
          pos = skipSpace(line, pos);
        }
        if (pos == n || line.charAt(pos) == ',') break;
        if (line.charAt(pos) != ';') return false;
        pos++;
      }
      out.add(element);
      if (pos == n) return true;
      pos++;
    }
  }

  private static int index(String name) {
    if (name.equalsIgnoreCase("for")) return FOR;
    if (name.equalsIgnoreCase("proto")) return PROTO;
    if (name.equalsIgnoreCase("host")) return HOST;
    return -1;
  }

  private static int skipSpace(String s, int pos) {
    while (pos < s.length() && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) pos++;
    return pos;
  }

  // The end of the token at pos (RFC 9110 §5.6.2); pos itself when there is none.
  private static int tokenEnd(String s, int pos) {
    while (pos < s.length() && tchar(s.charAt(pos))) pos++;
    return pos;
  }

  private static boolean tchar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
  }

  // The quoted string at pos (RFC 9110 §5.6.4), unquoted into text; the position after it, or -1.
  private static int quoted(String s, int pos, StringBuilder text) {
    int n = s.length();
    pos++;
    while (pos < n) {
      char c = s.charAt(pos);
      if (c == '"') return pos + 1;
      if (c == '\\') {
        if (pos + 1 == n || !quotable(s.charAt(pos + 1))) return -1;
        text.append(s.charAt(pos + 1));
        pos += 2;
      } else if (quotable(c)) {
        text.append(c);
        pos++;
      } else {
        return -1;
      }
    }
    return -1;
  }

  // HTAB, SP, VCHAR and obs-text: what a quoted string may hold.
  private static boolean quotable(char c) {
    return c == '\t' || (c >= 0x20 && c != 0x7f && c <= 0xff);
  }
}
