package onager.kernel.router;

import clojure.lang.AFn;
import clojure.lang.IFn;
import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import java.util.Map;
import onager.kernel.config.HandlerMode;
import onager.kernel.config.HandlerModes;
import onager.kernel.ring.RingRequest;

/**
 * A compiled route table, as a Ring handler with both arities. It matches the
 * request's {@code :path-info} (set when it is mounted under a prefix) or else
 * its {@code :uri}: a path of static segments only is one hash lookup, any other
 * a walk down the trie. Then it calls the route's handler for the method, or
 * answers 404, 405 with Allow, or OPTIONS with Allow itself; the 404 and 405
 * can each be a handler of the user's. A mounted handler that answers nil (a
 * compojure app none of whose routes match) leaves the request to the 404.
 *
 * <p>It is also the server's {@link HandlerModes}: it tells the server where the
 * handler of a request's route should run, before the request runs.
 */
public final class Router extends AFn implements HandlerModes {
  private static final Keyword URI = Keyword.intern("uri");
  private static final Keyword REQUEST_METHOD = Keyword.intern("request-method");

  private static final IPersistentMap NOT_FOUND = Route.response(404,
      new PersistentArrayMap(new Object[] {"Content-Type", "text/plain; charset=utf-8"}), "Not Found");

  private final Node root;
  private final Map<String, Route> statics;
  private final int captures;
  private final IFn notFound;
  private final IFn notAllowed;
  private final boolean hasModes;

  Router(Node root, Map<String, Route> statics, int captures, IFn notFound, IFn notAllowed, boolean hasModes) {
    this.root = root;
    this.statics = statics;
    this.captures = captures;
    this.notFound = notFound;
    this.notAllowed = notAllowed;
    this.hasModes = hasModes;
  }

  /** The route for {@code path}, its parameters' bounds put in {@code bounds} (may be null), or null. */
  Route match(String path, int[] bounds) {
    Route r = statics.get(path);
    if (r != null) return r;
    if (path.isEmpty() || path.charAt(0) != '/') return null;
    return root.match(path, 1, bounds, 0);
  }

  private static String path(IPersistentMap request) {
    Object p = request.valAt(Endpoint.PATH_INFO);
    if (p == null) p = request.valAt(URI);
    return p instanceof String s ? s : null;
  }

  @Override
  public Object invoke(Object request) {
    IPersistentMap req = (IPersistentMap) request;
    String path = path(req);
    int[] bounds = captures == 0 ? null : new int[2 * captures];
    Route route = path == null ? null : match(path, bounds);
    if (route == null) return notFound(req);
    int method = Methods.of(req.valAt(REQUEST_METHOD));
    Endpoint e = route.endpoint(method);
    if (e == null) {
      if (method == Methods.OPTIONS) return route.options;
      return notAllowed == null ? route.notAllowed : route.withAllow(notAllowed.invoke(req));
    }
    if (req instanceof RingRequest r) r.routed(e.path, e.kind != Endpoint.ROUTE);
    Object response = e.handler.invoke(e.prepare(req, path, bounds));
    return response == null && e.kind != Endpoint.ROUTE ? notFound(req) : response;
  }

  private Object notFound(IPersistentMap req) {
    return notFound == null ? NOT_FOUND : notFound.invoke(req);
  }

  private Object notFound(IPersistentMap req, Object respond, Object raise) {
    if (notFound == null) return ((IFn) respond).invoke(NOT_FOUND);
    return notFound.invoke(req, respond, raise);
  }

  @Override
  public Object invoke(Object request, Object respond, Object raise) {
    IPersistentMap req = (IPersistentMap) request;
    String path = path(req);
    int[] bounds = captures == 0 ? null : new int[2 * captures];
    Route route = path == null ? null : match(path, bounds);
    if (route == null) return notFound(req, respond, raise);
    int method = Methods.of(req.valAt(REQUEST_METHOD));
    Endpoint e = route.endpoint(method);
    if (e == null) {
      if (method == Methods.OPTIONS) return ((IFn) respond).invoke(route.options);
      if (notAllowed == null) return ((IFn) respond).invoke(route.notAllowed);
      return notAllowed.invoke(req, new WithAllow(route, (IFn) respond), raise);
    }
    if (req instanceof RingRequest r) r.routed(e.path, e.kind != Endpoint.ROUTE);
    Object answer = e.kind == Endpoint.ROUTE ? respond : new OrNotFound(this, req, (IFn) respond, raise);
    return e.handler.invoke(e.prepare(req, path, bounds), answer, raise);
  }

  /** The respond of a mounted handler: nil goes on to the router's 404. */
  private static final class OrNotFound extends AFn {
    private final Router router;
    private final IPersistentMap request;
    private final IFn respond;
    private final Object raise;

    OrNotFound(Router router, IPersistentMap request, IFn respond, Object raise) {
      this.router = router;
      this.request = request;
      this.respond = respond;
      this.raise = raise;
    }

    @Override
    public Object invoke(Object response) {
      return response == null ? router.notFound(request, respond, raise) : respond.invoke(response);
    }
  }

  /** The respond of the user's 405 handler: the response gets the route's Allow header. */
  private static final class WithAllow extends AFn {
    private final Route route;
    private final IFn respond;

    WithAllow(Route route, IFn respond) {
      this.route = route;
      this.respond = respond;
    }

    @Override
    public Object invoke(Object response) {
      return respond.invoke(route.withAllow(response));
    }
  }

  @Override
  public HandlerMode modeFor(String method, String path) {
    if (!hasModes || path == null) return null;
    Route route = match(path, null);
    if (route == null) return null;
    Endpoint e = route.endpoint(Methods.ofName(method));
    return e == null ? null : e.mode;
  }

  /**
   * Which route takes {@code method} (a keyword) on {@code path}, for tools and
   * tests: a map of :path (the route as written), :method (the method its
   * endpoint was given for) and :path-params; nil when no route takes it.
   */
  public Object lookup(Object method, String path) {
    int[] bounds = captures == 0 ? null : new int[2 * captures];
    Route route = match(path, bounds);
    if (route == null) return null;
    Endpoint e = route.endpoint(Methods.of(method));
    if (e == null) return null;
    IPersistentMap req = e.prepare(PersistentArrayMap.EMPTY.assoc(URI, path), path, bounds);
    return new PersistentArrayMap(new Object[] {
        Keyword.intern("path"), e.path,
        Keyword.intern("method"), e.method,
        Keyword.intern("path-params"), req.valAt(Endpoint.PATH_PARAMS)});
  }
}
