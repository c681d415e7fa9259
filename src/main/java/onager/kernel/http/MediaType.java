package onager.kernel.http;

import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/** Reads media types (Content-Type values) the way the middleware needs: case-insensitively. */
public final class MediaType {
  private MediaType() {}

  /** The type and subtype of {@code value}, before any parameter, trimmed. */
  private static int essenceEnd(String value) {
    int semi = value.indexOf(';');
    int end = semi < 0 ? value.length() : semi;
    while (end > 0 && value.charAt(end - 1) <= ' ') end--;
    return end;
  }

  private static int essenceStart(String value) {
    int start = 0;
    while (start < value.length() && value.charAt(start) <= ' ') start++;
    return start;
  }

  /** True when {@code value}'s type/subtype is {@code essence} (lower case), ignoring case and parameters. */
  public static boolean is(String value, String essence) {
    if (value == null) return false;
    int start = essenceStart(value);
    int end = essenceEnd(value);
    return end - start == essence.length() && value.regionMatches(true, start, essence, 0, essence.length());
  }

  /** True for application/json and any application/*+json type. */
  public static boolean isJson(String value) {
    if (value == null) return false;
    int start = essenceStart(value);
    int end = essenceEnd(value);
    String app = "application/";
    if (end - start < app.length() + 4 || !value.regionMatches(true, start, app, 0, app.length())) return false;
    int sub = start + app.length();
    return (end - sub == 4 && value.regionMatches(true, sub, "json", 0, 4))
        || value.regionMatches(true, end - 5, "+json", 0, 5);
  }

  /** The charset parameter's value, unquoted, or null. */
  public static String charsetName(String value) {
    if (value == null) return null;
    int i = value.indexOf(';');
    while (i >= 0) {
      int start = i + 1;
      int next = nextSemicolon(value, start);
      int end = next < 0 ? value.length() : next;
      int eq = value.indexOf('=', start);
      if (eq > 0 && eq < end) {
        String name = value.substring(start, eq).trim();
        if (name.equalsIgnoreCase("charset")) {
          String v = value.substring(eq + 1, end).trim();
          if (v.length() >= 2 && v.charAt(0) == '"' && v.charAt(v.length() - 1) == '"') {
            v = v.substring(1, v.length() - 1).replace("\\\"", "\"");
          }
          return v.isEmpty() ? null : v;
        }
      }
      i = next;
    }
    return null;
  }

  private static int nextSemicolon(String value, int from) {
    boolean quoted = false;
    for (int i = from; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '"') quoted = !quoted;
      else if (c == '\\' && quoted) i++;
      else if (c == ';' && !quoted) return i;
    }
    return -1;
  }

  /**
   * The charset {@code name} names, or {@code fallback} when it is null or names
   * no charset this JVM has.
   */
  public static Charset charset(String name, Charset fallback) {
    if (name == null) return fallback;
    if (name.equalsIgnoreCase("utf-8")) return StandardCharsets.UTF_8;
    try {
      return Charset.forName(name);
    } catch (IllegalArgumentException e) {
      return fallback;
    }
  }
}
