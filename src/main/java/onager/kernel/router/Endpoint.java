package onager.kernel.router;

import clojure.lang.IFn;
import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import onager.kernel.config.HandlerMode;

/**
 * What one route does for one method: its handler (middleware applied), where it
 * runs, and how it passes the matched path on: as {@code :path-params}, and for a
 * mounted handler as {@code :context} and {@code :path-info} too.
 */
final class Endpoint {
  static final Keyword PATH_PARAMS = Keyword.intern("path-params");
  static final Keyword CONTEXT = Keyword.intern("context");
  static final Keyword PATH_INFO = Keyword.intern("path-info");
  static final Keyword URI = Keyword.intern("uri");

  static final int ROUTE = 0;
  /** A mounted handler, at its prefix exactly. */
  static final int MOUNT_EXACT = 1;
  /** A mounted handler, below its prefix: the last capture is the rest of the path. */
  static final int MOUNT_REST = 2;

  final IFn handler;
  final HandlerMode mode;
  final PathTemplate template;
  /** The path as the route table gives it (a mount's prefix), for errors. */
  final String path;
  final String method;
  final int kind;
  final boolean stripPrefix;
  /** The parameters that go into :path-params (a mount's rest does not). */
  private final Keyword[] params;

  Endpoint(IFn handler, HandlerMode mode, PathTemplate template, String path, String method, int kind,
      boolean stripPrefix) {
    this.handler = handler;
    this.mode = mode;
    this.template = template;
    this.path = path;
    this.method = method;
    this.kind = kind;
    this.stripPrefix = stripPrefix;
    Keyword[] all = template.params;
    this.params = kind == MOUNT_REST ? java.util.Arrays.copyOf(all, all.length - 1) : all;
  }

  /** The request the handler gets: {@code path} matched, its parameters at {@code bounds}. */
  IPersistentMap prepare(IPersistentMap request, String path, int[] bounds) {
    IPersistentMap req = request.assoc(PATH_PARAMS, pathParams(request, path, bounds));
    if (kind == ROUTE) return req;
    // As compojure's context does: :context grows by the prefix, :path-info is what is left.
    int restStart = kind == MOUNT_REST ? bounds[2 * params.length] : path.length() + 1;
    String prefix = path.substring(0, restStart - 1);
    String pathInfo = kind == MOUNT_REST ? path.substring(restStart - 1) : "/";
    Object outer = request.valAt(CONTEXT);
    String context = outer instanceof String s ? s + prefix : prefix;
    req = req.assoc(CONTEXT, context).assoc(PATH_INFO, pathInfo);
    return stripPrefix ? req.assoc(URI, pathInfo) : req;
  }

  private Object pathParams(IPersistentMap request, String path, int[] bounds) {
    Object outer = request.valAt(PATH_PARAMS);
    int n = params.length;
    if (n == 0) return outer instanceof IPersistentMap ? outer : PersistentArrayMap.EMPTY;
    if (outer instanceof IPersistentMap m && m.count() > 0) {
      // Mounted under another router: its parameters and ours.
      for (int i = 0; i < n; i++) {
        m = m.assoc(params[i], PathDecoding.decode(path, bounds[2 * i], bounds[2 * i + 1]));
      }
      return m;
    }
    Object[] kv = new Object[2 * n];
    for (int i = 0; i < n; i++) {
      kv[2 * i] = params[i];
      kv[2 * i + 1] = PathDecoding.decode(path, bounds[2 * i], bounds[2 * i + 1]);
    }
    // Parameter names are unique in a template, so the array is a valid map as it is.
    return n <= 8 ? new PersistentArrayMap(kv) : PersistentArrayMap.createAsIfByAssoc(kv);
  }

  /** How errors name this endpoint: {@code "/users/:id" (GET)}. */
  String describe() {
    return PathTemplate.quote(path) + " (" + method + ")";
  }
}
