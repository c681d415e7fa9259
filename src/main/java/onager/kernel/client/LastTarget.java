package onager.kernel.client;

/**
 * The URL a client parsed last, with its target: callers that send request
 * after request to one URL find it parsed, for a comparison of strings. Any
 * thread; a miss parses and replaces it.
 */
final class LastTarget {
  private record Parsed(String url, Target target) {}

  private volatile Parsed last;

  /** The target {@code url} names, as {@link Target#parse} gives it. */
  Target parse(String url) {
    Parsed p = last;
    if (p != null && (p.url == url || p.url.equals(url))) return p.target;
    Target t = Target.parse(url);
    last = new Parsed(url, t);
    return t;
  }
}
