package onager.kernel.params;

import clojure.lang.IEditableCollection;
import clojure.lang.IObj;
import clojure.lang.IPersistentMap;
import clojure.lang.ITransientMap;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import clojure.lang.ISeq;
import clojure.lang.IMapEntry;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import onager.kernel.http.MediaType;

/**
 * The work of onager.middleware/wrap-params, as ring-core 1.8's params-request
 * does it: {@code :form-params} from an urlencoded body and {@code :query-params}
 * from the query string (each only when the request has none yet), both merged
 * into {@code :params}, the query string's last so that they win.
 */
public final class Params {
  private Params() {}

  private static final Keyword QUERY_STRING = Keyword.intern("query-string");
  private static final Keyword HEADERS = Keyword.intern("headers");
  private static final Keyword BODY = Keyword.intern("body");
  private static final Keyword QUERY_PARAMS = Keyword.intern("query-params");
  private static final Keyword FORM_PARAMS = Keyword.intern("form-params");
  private static final Keyword PARAMS = Keyword.intern("params");

  /**
   * The request with its parameters.
   *
   * @param encoding the charset to decode with, or null for the request's
   *     Content-Type charset, or UTF-8 (also when that names no known charset)
   * @param keywords make keys of {@code :params} keywords, as wrap-keyword-params does
   */
  public static IPersistentMap assoc(IPersistentMap request, Charset encoding, boolean keywords) throws IOException {
    String contentType = header(request, "content-type");
    Charset charset = encoding != null ? encoding : MediaType.charset(MediaType.charsetName(contentType), StandardCharsets.UTF_8);
    // As params-request: each map only when the request has none yet, the query string's merged last.
    boolean doForm = request.valAt(FORM_PARAMS) == null;
    boolean doQuery = request.valAt(QUERY_PARAMS) == null;
    if (!doForm && !doQuery) return keywords ? keyify(request) : request;
    Object params = request.valAt(PARAMS);
    IPersistentMap form = null;
    IPersistentMap query = null;
    if (doForm) {
      form = PersistentArrayMap.EMPTY;
      Object body = request.valAt(BODY);
      if (body != null && urlencoded(contentType)) form = FormParams.parse(text(body, charset), charset);
      params = merge(params, form);
    }
    if (doQuery) {
      Object qs = request.valAt(QUERY_STRING);
      query = qs instanceof String s ? FormParams.parse(s, charset) : PersistentArrayMap.EMPTY;
      params = merge(params, query);
    }
    if (keywords) params = KeywordParams.keyify(params);
    // A plain map takes the keys in one copy as a transient, rather than one per assoc
    // (but a transient would drop metadata).
    if (request instanceof IEditableCollection editable && !(request instanceof IObj o && o.meta() != null)) {
      ITransientMap t = (ITransientMap) editable.asTransient();
      if (form != null) t = t.assoc(FORM_PARAMS, form);
      if (query != null) t = t.assoc(QUERY_PARAMS, query);
      return t.assoc(PARAMS, params).persistent();
    }
    IPersistentMap req = request;
    if (form != null) req = req.assoc(FORM_PARAMS, form);
    if (query != null) req = req.assoc(QUERY_PARAMS, query);
    return req.assoc(PARAMS, params);
  }

  private static IPersistentMap keyify(IPersistentMap request) {
    return request.assoc(PARAMS, KeywordParams.keyify(request.valAt(PARAMS)));
  }

  /** ring's urlencoded-form?, but ignoring case as media types are compared. */
  private static boolean urlencoded(String contentType) {
    return contentType != null
        && contentType.regionMatches(true, 0, "application/x-www-form-urlencoded", 0, 33);
  }

  private static String header(IPersistentMap request, String name) {
    Object headers = request.valAt(HEADERS);
    Object v = headers instanceof Map<?, ?> m ? m.get(name) : null;
    return v instanceof String s ? s : null;
  }

  private static String text(Object body, Charset charset) throws IOException {
    if (body instanceof InputStream in) return new String(in.readAllBytes(), charset);
    if (body instanceof String s) return s;
    if (body instanceof byte[] b) return new String(b, charset);
    throw new IllegalArgumentException("a request :body must be an InputStream, not " + body.getClass().getName());
  }

  /** clojure.core/merge of two maps, the second's entries winning. */
  private static IPersistentMap merge(Object into, IPersistentMap from) {
    if (!(into instanceof IPersistentMap base) || base.count() == 0) return from;
    if (from.count() == 0) return base;
    IPersistentMap out = base;
    for (ISeq s = from.seq(); s != null; s = s.next()) {
      IMapEntry e = (IMapEntry) s.first();
      out = out.assoc(e.key(), e.val());
    }
    return out;
  }
}
