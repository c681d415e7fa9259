package onager.kernel.router;

import clojure.lang.Keyword;

/**
 * The request methods a route can name, each with a fixed index into a route's
 * table of endpoints; {@link #ANY} is the slot of the endpoint for every method a
 * route does not name.
 */
final class Methods {
  private Methods() {}

  static final int GET = 0;
  static final int HEAD = 1;
  static final int POST = 2;
  static final int PUT = 3;
  static final int PATCH = 4;
  static final int DELETE = 5;
  static final int OPTIONS = 6;
  static final int TRACE = 7;
  static final int CONNECT = 8;
  static final int ANY = 9;
  static final int COUNT = 10;

  /** Upper-case names, in the order an Allow header lists them. */
  static final String[] NAMES = {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"};

  private static final Keyword K_GET = Keyword.intern("get");
  private static final Keyword K_HEAD = Keyword.intern("head");
  private static final Keyword K_POST = Keyword.intern("post");
  private static final Keyword K_PUT = Keyword.intern("put");
  private static final Keyword K_PATCH = Keyword.intern("patch");
  private static final Keyword K_DELETE = Keyword.intern("delete");
  private static final Keyword K_OPTIONS = Keyword.intern("options");
  private static final Keyword K_TRACE = Keyword.intern("trace");
  private static final Keyword K_CONNECT = Keyword.intern("connect");

  /** The index of a Ring :request-method; {@link #ANY} for a method no route can name. */
  static int of(Object method) {
    // Keywords are interned: identity decides, the common methods first.
    if (method == K_GET) return GET;
    if (method == K_POST) return POST;
    if (method == K_PUT) return PUT;
    if (method == K_DELETE) return DELETE;
    if (method == K_HEAD) return HEAD;
    if (method == K_PATCH) return PATCH;
    if (method == K_OPTIONS) return OPTIONS;
    if (method == K_TRACE) return TRACE;
    if (method == K_CONNECT) return CONNECT;
    return ANY;
  }

  /** The index of an upper-case method name, as the server sees it. */
  static int ofName(String method) {
    return switch (method) {
      case "GET" -> GET;
      case "POST" -> POST;
      case "PUT" -> PUT;
      case "DELETE" -> DELETE;
      case "HEAD" -> HEAD;
      case "PATCH" -> PATCH;
      case "OPTIONS" -> OPTIONS;
      case "TRACE" -> TRACE;
      case "CONNECT" -> CONNECT;
      default -> ANY;
    };
  }

  /** The index of a route-data key (:get, :any...), or -1 when it names no method. */
  static int ofKey(Keyword key) {
    String name = key.getNamespace() == null ? key.getName() : "";
    return switch (name) {
      case "get" -> GET;
      case "head" -> HEAD;
      case "post" -> POST;
      case "put" -> PUT;
      case "patch" -> PATCH;
      case "delete" -> DELETE;
      case "options" -> OPTIONS;
      case "trace" -> TRACE;
      case "connect" -> CONNECT;
      case "any" -> ANY;
      default -> -1;
    };
  }
}
