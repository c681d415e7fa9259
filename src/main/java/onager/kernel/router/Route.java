package onager.kernel.router;

import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import onager.kernel.response.ResponseMaps;

/**
 * Where the trie ends for a path: the endpoints of every route of one shape, by
 * method, and the answers for a method none of them takes (405) and for OPTIONS.
 */
final class Route {
  private static final Keyword STATUS = Keyword.intern("status");
  private static final Keyword HEADERS = Keyword.intern("headers");
  private static final Keyword BODY = Keyword.intern("body");

  final Endpoint[] byMethod = new Endpoint[Methods.COUNT];
  /** The answer to a method no endpoint takes, and to OPTIONS when no endpoint takes it. */
  IPersistentMap notAllowed;
  IPersistentMap options;
  private String allow;

  /** The endpoint for a method index: HEAD falls back to GET, any method to :any. */
  Endpoint endpoint(int method) {
    Endpoint e = byMethod[method];
    if (e != null) return e;
    if (method == Methods.HEAD && byMethod[Methods.GET] != null) return byMethod[Methods.GET];
    return byMethod[Methods.ANY];
  }

  /** Builds the canned answers once every endpoint is in. */
  void seal() {
    StringBuilder allow = new StringBuilder();
    for (int m = 0; m < Methods.NAMES.length; m++) {
      boolean takes = byMethod[m] != null
          || (m == Methods.HEAD && byMethod[Methods.GET] != null)
          || m == Methods.OPTIONS;
      if (takes) {
        if (allow.length() > 0) allow.append(", ");
        allow.append(Methods.NAMES[m]);
      }
    }
    String value = allow.toString();
    this.allow = value;
    notAllowed = response(405, new PersistentArrayMap(new Object[] {
        "Allow", value, "Content-Type", "text/plain; charset=utf-8"}), "Method Not Allowed");
    options = response(204, new PersistentArrayMap(new Object[] {"Allow", value}), null);
  }

  /**
   * {@code response}, the answer of the user's 405 handler, with this route's
   * Allow header unless it has one: RFC 9110 §15.5.6 requires it on a 405.
   */
  Object withAllow(Object response) {
    if (!(response instanceof IPersistentMap r)) return response;
    Object headers = r.valAt(HEADERS);
    if (headers == null) headers = PersistentArrayMap.EMPTY;
    if (!(headers instanceof IPersistentMap h) || ResponseMaps.headerValue(h, "Allow") != null) return response;
    return r.assoc(HEADERS, h.assoc("Allow", allow));
  }

  static IPersistentMap response(int status, IPersistentMap headers, String body) {
    return new PersistentArrayMap(new Object[] {STATUS, (long) status, HEADERS, headers, BODY, body});
  }
}
