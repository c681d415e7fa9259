package onager.kernel.json;

import clojure.lang.IFn;
import clojure.lang.IPersistentMap;
import clojure.lang.IPersistentSet;
import clojure.lang.IPersistentVector;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import java.io.IOException;
import java.util.Map;
import onager.kernel.http.Accept;

/**
 * The work of onager.middleware/wrap-json-response: a response whose body is a
 * map, a vector or a set gets that body as JSON bytes and a JSON Content-Type
 * (unless it has a Content-Type), or, when the request's Accept header refuses
 * JSON, becomes 406 Not Acceptable. Other responses pass as they are: a seq body
 * stays a Ring streaming body.
 */
public final class JsonResponse {
  private JsonResponse() {}

  private static final Keyword STATUS = Keyword.intern("status");
  private static final Keyword HEADERS = Keyword.intern("headers");
  private static final Keyword BODY = Keyword.intern("body");

  private static final IPersistentMap NOT_ACCEPTABLE = new PersistentArrayMap(new Object[] {
      STATUS, 406L,
      HEADERS, new PersistentArrayMap(new Object[] {"Content-Type", "text/plain; charset=utf-8"}),
      BODY, "Not Acceptable: this resource is available as application/json only."});

  /** True when the request's Accept header takes application/json (or it has none). */
  public static boolean acceptsJson(Object request) {
    Object headers = request instanceof IPersistentMap r ? r.valAt(HEADERS) : null;
    Object accept = headers instanceof Map<?, ?> m ? m.get("accept") : null;
    return Accept.quality(accept instanceof String s ? s : null, "application", "json") > 0;
  }

  /**
   * {@code response} with its data body as JSON.
   *
   * @param request the request, for its Accept header, or null not to negotiate
   * @param notAcceptable makes the response to a request that refuses JSON from
   *     the request (its data body is written as JSON all the same), or null for
   *     a plain-text 406
   */
  public static Object encode(Object request, Object response, JsonWriter writer, String contentType,
      IFn notAcceptable) throws IOException {
    if (!(response instanceof IPersistentMap r)) return response;
    Object body = r.valAt(BODY);
    if (!(body instanceof IPersistentMap || body instanceof IPersistentVector || body instanceof IPersistentSet)) {
      return response;
    }
    if (request != null && !acceptsJson(request)) {
      return notAcceptable == null
          ? NOT_ACCEPTABLE
          : encode(null, notAcceptable.invoke(request), writer, contentType, null);
    }
    Object headers = r.valAt(HEADERS);
    IPersistentMap out = r.assoc(BODY, writer.writeBytes(body));
    if (!hasContentType(headers)) {
      IPersistentMap h = headers instanceof IPersistentMap m ? m : PersistentArrayMap.EMPTY;
      out = out.assoc(HEADERS, h.assoc("Content-Type", contentType));
    }
    return out;
  }

  private static boolean hasContentType(Object headers) {
    if (!(headers instanceof Map<?, ?> m)) return false;
    for (Object k : m.keySet()) {
      if (k instanceof String s && s.equalsIgnoreCase("content-type")) return true;
    }
    return false;
  }
}
