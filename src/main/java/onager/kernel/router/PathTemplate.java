package onager.kernel.router;

import clojure.lang.Keyword;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A route's path as written ({@code "/users/:id/files/*path"}), split into
 * segments: static text, a {@code :param} that matches one non-empty segment, or
 * a final {@code *param} that matches the rest of the path, slashes included
 * (possibly nothing).
 */
final class PathTemplate {
  static final int STATIC = 0;
  static final int PARAM = 1;
  static final int CATCH_ALL = 2;

  final String text;
  /** The static text, or the parameter's name. */
  final String[] segments;
  final int[] kinds;
  /** The parameters' names as keywords, in path order. */
  final Keyword[] params;

  private PathTemplate(String text, String[] segments, int[] kinds, Keyword[] params) {
    this.text = text;
    this.segments = segments;
    this.kinds = kinds;
    this.params = params;
  }

  static PathTemplate parse(String text) {
    if (text.isEmpty() || text.charAt(0) != '/') {
      throw invalid(text, "a route path must start with \"/\"");
    }
    String[] parts = text.substring(1).split("/", -1);
    int[] kinds = new int[parts.length];
    List<Keyword> params = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      char first = part.isEmpty() ? 0 : part.charAt(0);
      if (first != ':' && first != '*') continue;
      String name = part.substring(1);
      if (name.isEmpty()) {
        throw invalid(text, "the parameter \"" + part + "\" has no name");
      }
      for (int k = 0; k < name.length(); k++) {
        char c = name.charAt(k);
        boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
        if (!ok) {
          throw invalid(text, "the parameter \"" + part + "\" has '" + c + "' in its name: a parameter is a whole"
              + " segment, named with letters, digits, '-' and '_'");
        }
      }
      if (!seen.add(name)) {
        throw invalid(text, "the parameter \"" + name + "\" appears twice");
      }
      if (first == '*' && i != parts.length - 1) {
        throw invalid(text, "the catch-all \"" + part + "\" must be the last segment");
      }
      kinds[i] = first == ':' ? PARAM : CATCH_ALL;
      parts[i] = name;
      params.add(Keyword.intern(name));
    }
    return new PathTemplate(text, parts, kinds, params.toArray(new Keyword[0]));
  }

  private static RuntimeException invalid(String text, String why) {
    return RouteError.of("invalid-route", "Invalid route path " + quote(text) + ": " + why + ".",
        Keyword.intern("path"), text);
  }

  static String quote(String s) {
    return "\"" + s + "\"";
  }

  int size() {
    return segments.length;
  }

  boolean endsWithCatchAll() {
    return kinds[kinds.length - 1] == CATCH_ALL;
  }

  /**
   * The path with parameter names left out: two templates of one shape match the
   * same paths. A static segment never starts with ':' or '*', so none reads as a parameter.
   */
  String shape() {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < segments.length; i++) {
      b.append('/');
      switch (kinds[i]) {
        case PARAM -> b.append(':');
        case CATCH_ALL -> b.append('*');
        default -> b.append(segments[i]);
      }
    }
    return b.toString();
  }

  /** True when some path matches both templates. */
  boolean overlaps(PathTemplate other) {
    return overlaps(other, 0, 0);
  }

  private boolean overlaps(PathTemplate b, int i, int j) {
    PathTemplate a = this;
    boolean aDone = i == a.size();
    boolean bDone = j == b.size();
    // A catch-all takes whatever is left, if at least its own (possibly empty) segment is.
    if (!aDone && a.kinds[i] == CATCH_ALL) return !bDone;
    if (!bDone && b.kinds[j] == CATCH_ALL) return !aDone;
    if (aDone || bDone) return aDone && bDone;
    int ka = a.kinds[i];
    int kb = b.kinds[j];
    boolean segmentsMeet;
    if (ka == STATIC && kb == STATIC) {
      segmentsMeet = a.segments[i].equals(b.segments[j]);
    } else if (ka == STATIC) {
      segmentsMeet = !a.segments[i].isEmpty();
    } else if (kb == STATIC) {
      segmentsMeet = !b.segments[j].isEmpty();
    } else {
      segmentsMeet = true;
    }
    return segmentsMeet && overlaps(b, i + 1, j + 1);
  }
}
