package onager.kernel.router;

import clojure.lang.IFn;
import clojure.lang.Keyword;
import clojure.lang.PersistentVector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import onager.kernel.config.HandlerMode;

/**
 * Compiles a route table into a {@link Router}, once, at start-up. Each call adds
 * one route for one method; a route that could never be reached fails here, with
 * an ex-info that names both routes.
 */
public final class RouterBuilder {
  private static final String ANY = "any method";
  private static final String MOUNTED = "mounted";

  private final boolean rejectOverlaps;
  private final Map<String, Route> byShape = new LinkedHashMap<>();
  private final Map<String, PathTemplate> templates = new HashMap<>();
  private final List<Endpoint> endpoints = new ArrayList<>();

  /** {@code rejectOverlaps}: also fail when two routes of different shapes can match one path. */
  public RouterBuilder(boolean rejectOverlaps) {
    this.rejectOverlaps = rejectOverlaps;
  }

  /**
   * Adds the route {@code path} for {@code method} (a keyword: :get, :post... or
   * :any for every method the path's other routes do not take).
   *
   * @param mode where the handler runs, or null for the server's choice
   */
  public RouterBuilder route(String path, Keyword method, IFn handler, HandlerMode mode) {
    int m = Methods.ofKey(method);
    if (m < 0) {
      throw RouteError.of("invalid-route", "Invalid method " + method + " for route " + PathTemplate.quote(path)
          + ": expected one of :get, :head, :post, :put, :patch, :delete, :options, :trace, :connect, :any.",
          Keyword.intern("path"), path, Keyword.intern("value"), method);
    }
    PathTemplate t = template(path);
    String name = m == Methods.ANY ? ANY : Methods.NAMES[m];
    add(t, m, new Endpoint(handler, mode, t, path, name, Endpoint.ROUTE, false));
    return this;
  }

  /**
   * Mounts the Ring handler {@code handler} at {@code prefix}: it takes every
   * request for the prefix or a path below it, whatever the method, with
   * {@code :context} and {@code :path-info} set as compojure's {@code context}
   * sets them ({@code stripPrefix}: and {@code :uri} set to the path below the prefix).
   */
  public RouterBuilder mount(String prefix, IFn handler, HandlerMode mode, boolean stripPrefix) {
    PathTemplate exact = template(prefix);
    if (exact.endsWithCatchAll()) {
      throw RouteError.of("invalid-route", "Invalid mount " + PathTemplate.quote(prefix)
          + ": a mounted handler takes the rest of the path itself; leave the catch-all out.",
          Keyword.intern("path"), prefix);
    }
    // "/app" takes "/app" and what is below "/app/"; "/app/" only what is below "/app/".
    if (!prefix.endsWith("/")) {
      add(exact, Methods.ANY, new Endpoint(handler, mode, exact, prefix, MOUNTED, Endpoint.MOUNT_EXACT, stripPrefix));
    }
    String restPath = (prefix.endsWith("/") ? prefix : prefix + "/") + "*path-info";
    add(template(restPath), Methods.ANY,
        new Endpoint(handler, mode, template(restPath), prefix, MOUNTED, Endpoint.MOUNT_REST, stripPrefix));
    return this;
  }

  private PathTemplate template(String path) {
    return templates.computeIfAbsent(path, PathTemplate::parse);
  }

  private void add(PathTemplate t, int method, Endpoint e) {
    String shape = t.shape();
    Route route = byShape.computeIfAbsent(shape, k -> new Route());
    Endpoint old = route.byMethod[method];
    boolean mountClash = isMount(e) ? hasAny(route) : isMount(route.byMethod[Methods.ANY]);
    if (old != null || mountClash) {
      Endpoint other = old != null ? old : firstOf(route);
      throw RouteError.of("route-conflict", "Routes " + other.describe() + " and " + e.describe()
          + " conflict: they match the same paths" + (isMount(e) || isMount(other) ? "" : " with the same method")
          + ", so one could never be reached.",
          Keyword.intern("routes"), PersistentVector.create(other.path, e.path));
    }
    route.byMethod[method] = e;
    endpoints.add(e);
  }

  private static boolean isMount(Endpoint e) {
    return e != null && e.kind != Endpoint.ROUTE;
  }

  private static boolean hasAny(Route r) {
    return firstOf(r) != null;
  }

  private static Endpoint firstOf(Route r) {
    for (Endpoint e : r.byMethod) if (e != null) return e;
    return null;
  }

  /**
   * The router, for routes added so far. {@code notFound}: the Ring handler for
   * paths no route takes, or null; {@code notAllowed}: for methods the route of
   * a path does not take, or null.
   */
  public Router build(IFn notFound, IFn notAllowed) {
    if (rejectOverlaps) checkOverlaps();
    Node root = new Node();
    Map<String, Route> statics = new HashMap<>();
    int captures = 0;
    boolean modes = false;
    for (Route route : byShape.values()) {
      route.seal();
      Endpoint any = firstOf(route);
      PathTemplate t = any.template;
      insert(root, t, route);
      captures = Math.max(captures, t.params.length);
      if (t.params.length == 0) statics.put(t.text, route);
      for (Endpoint e : route.byMethod) modes |= e != null && e.mode != null;
    }
    root.freeze();
    return new Router(root, statics, captures, notFound, notAllowed, modes);
  }

  private static void insert(Node root, PathTemplate t, Route route) {
    Node n = root;
    int last = t.size() - 1;
    for (int i = 0; i <= last; i++) {
      switch (t.kinds[i]) {
        case PathTemplate.CATCH_ALL -> {
          n.catchAll = route;
          return;
        }
        case PathTemplate.PARAM -> n = n.paramChild();
        default -> n = n.staticChild(t.segments[i]);
      }
    }
    n.leaf = route;
  }

  private void checkOverlaps() {
    for (int i = 0; i < endpoints.size(); i++) {
      for (int j = i + 1; j < endpoints.size(); j++) {
        Endpoint a = endpoints.get(i);
        Endpoint b = endpoints.get(j);
        // :any and mounts take every method, so they share one with any route.
        boolean shareMethod = a.method.equals(b.method) || a.kind != Endpoint.ROUTE || b.kind != Endpoint.ROUTE
            || a.method.equals(ANY) || b.method.equals(ANY);
        boolean sameMount = a.kind != Endpoint.ROUTE && a.handler == b.handler && a.path.equals(b.path);
        if (shareMethod && !sameMount && a.template != b.template && a.template.overlaps(b.template)) {
          throw RouteError.of("route-conflict", "Routes " + a.describe() + " and " + b.describe()
              + " overlap: some path matches both (:reject-overlaps? is on).",
              Keyword.intern("routes"), PersistentVector.create(a.path, b.path));
        }
      }
    }
  }
}
