package onager.kernel.http;

import java.util.Locale;

/** Reads the parts of a Content-Type value the server needs. */
public final class ContentType {
  private ContentType() {}

  /** The value of the {@code charset} parameter, unquoted, or null when there is none. */
  public static String charsetParam(CharSequence contentType) {
    if (contentType == null) return null;
    String ct = contentType.toString();
    int at = ct.toLowerCase(Locale.ROOT).indexOf("charset=");
    if (at < 0) return null;
    int start = at + "charset=".length();
    int end = ct.indexOf(';', start);
    String name = (end < 0 ? ct.substring(start) : ct.substring(start, end)).trim();
    if (name.length() >= 2 && name.charAt(0) == '"' && name.charAt(name.length() - 1) == '"') {
      name = name.substring(1, name.length() - 1);
    }
    return name.isEmpty() ? null : name;
  }
}
