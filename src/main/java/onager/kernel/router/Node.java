package onager.kernel.router;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A node of the routing trie: the routes whose paths share the segments that lead
 * here. Its static children sit in an open-addressed table keyed by segment text,
 * looked up by hashing the segment where it lies in the path, so that matching
 * cuts no substring.
 */
final class Node {
  /** The route whose path ends at this node. */
  Route leaf;
  /** The child for a {@code :param} segment. */
  Node param;
  /** The route whose {@code *param} takes the rest of the path from here. */
  Route catchAll;

  private Map<String, Node> building = new LinkedHashMap<>();
  private String[] keys;
  private Node[] children;
  private int mask;

  Node staticChild(String segment) {
    return building.computeIfAbsent(segment, s -> new Node());
  }

  Node paramChild() {
    if (param == null) param = new Node();
    return param;
  }

  /** Builds the lookup tables of this node and those below it; no child can be added after. */
  void freeze() {
    int n = building.size();
    if (n > 0) {
      int size = Integer.highestOneBit(Math.max(2, n) * 2 - 1) * 2; // a load factor of at most one half
      keys = new String[size];
      children = new Node[size];
      mask = size - 1;
      for (Map.Entry<String, Node> e : building.entrySet()) {
        int i = e.getKey().hashCode() & mask;
        while (keys[i] != null) i = (i + 1) & mask;
        keys[i] = e.getKey();
        children[i] = e.getValue();
        e.getValue().freeze();
      }
    }
    if (param != null) param.freeze();
    building = null;
  }

  /** The static child for {@code path[start, end)}, or null. */
  Node child(String path, int start, int end) {
    String[] ks = keys;
    if (ks == null) return null;
    int h = 0;
    for (int i = start; i < end; i++) h = 31 * h + path.charAt(i);
    int length = end - start;
    for (int i = h & mask; ; i = (i + 1) & mask) {
      String k = ks[i];
      if (k == null) return null;
      if (k.length() == length && path.regionMatches(start, k, 0, length)) return children[i];
    }
  }

  /**
   * The route for {@code path} from {@code pos} (the start of a segment) down from
   * this node, most specific first: at each segment static text, then a parameter,
   * then a catch-all. Records where the parameters lie in {@code bounds}, from
   * slot {@code depth} on (start and end of each), when bounds is not null.
   */
  Route match(String path, int pos, int[] bounds, int depth) {
    int len = path.length();
    int end = path.indexOf('/', pos);
    boolean last = end < 0;
    if (last) end = len;
    Node s = child(path, pos, end);
    if (s != null) {
      Route r = last ? s.leaf : s.match(path, end + 1, bounds, depth);
      if (r != null) return r;
    }
    Node p = param;
    if (p != null && end > pos) {
      Route r = last ? p.leaf : p.match(path, end + 1, bounds, depth + 1);
      if (r != null) {
        if (bounds != null) {
          bounds[2 * depth] = pos;
          bounds[2 * depth + 1] = end;
        }
        return r;
      }
    }
    Route c = catchAll;
    if (c != null && bounds != null) {
      bounds[2 * depth] = pos;
      bounds[2 * depth + 1] = len;
    }
    return c;
  }
}
