package onager.kernel.params;

import clojure.lang.IPersistentMap;
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

  /**
   * The request with its parameters.
   *
   * @param encoding the charset to decode with, or null for the request's
   *     Content-Type charset, or UTF-8 (also when that names no known charset)
   * @param keywords make keys of {@code :params} keywords, as wrap-keyword-params does
   */
  public static IPersistentMap assoc(IPersistentMap request, Charset encoding, boolean keywords) throws IOException {
    // The keys read, from an array map's entries in one pass (keywords are interned: == finds
    // them), noting where the ones to be replaced sit; or from any other map by valAt.
    Object[] entries = RequestMaps.entries(request);
    Object queryString = null;
    Object body = null;
    Object formParams = null;
    Object queryParams = null;
    Object params = null;
    Object headers = null; // read with the rest from an array map, from any other map only when needed
    int formAt = -1;
    int queryAt = -1;
    int paramsAt = -1;
    if (entries != null) {
      for (int i = 0; i < entries.length; i += 2) {
        Object key = entries[i];
        if (key == RequestMaps.QUERY_STRING) {
          queryString = entries[i + 1];
        } else if (key == RequestMaps.BODY) {
          body = entries[i + 1];
        } else if (key == RequestMaps.HEADERS) {
          headers = entries[i + 1];
        } else if (key == RequestMaps.FORM_PARAMS) {
          formParams = entries[i + 1];
          formAt = i;
        } else if (key == RequestMaps.QUERY_PARAMS) {
          queryParams = entries[i + 1];
          queryAt = i;
        } else if (key == RequestMaps.PARAMS) {
          params = entries[i + 1];
          paramsAt = i;
        }
      }
    } else {
      queryString = request.valAt(RequestMaps.QUERY_STRING);
      body = request.valAt(RequestMaps.BODY);
      formParams = request.valAt(RequestMaps.FORM_PARAMS);
      queryParams = request.valAt(RequestMaps.QUERY_PARAMS);
      params = request.valAt(RequestMaps.PARAMS);
    }
    // As params-request: each map only when the request has none yet, the query string's merged last.
    boolean doForm = formParams == null;
    boolean doQuery = queryParams == null;
    if (!doForm && !doQuery) return keywords ? keyify(request) : request;
    IPersistentMap form = null;
    IPersistentMap query = null;
    Charset charset = encoding;
    if (doForm) {
      form = PersistentArrayMap.EMPTY;
      if (body != null) {
        String contentType = contentType(headers(request, entries, headers));
        if (urlencoded(contentType)) {
          if (charset == null) charset = charset(contentType);
          form = FormParams.parse(text(body, charset), charset);
        }
      }
      params = merge(params, form);
    }
    if (doQuery) {
      if (queryString instanceof String qs) {
        // Only escapes need the charset. An array map's headers are at hand; any other map's may be
        // built when first read, so its query string is searched for a '%' first.
        if (charset == null && (entries != null || qs.indexOf('%') >= 0)) {
          charset = charset(contentType(headers(request, entries, headers)));
        }
        query = FormParams.parse(qs, charset);
      } else {
        query = PersistentArrayMap.EMPTY;
      }
      params = merge(params, query);
    }
    if (keywords) params = KeywordParams.keyify(params);
    return entries != null
        ? RequestMaps.with(request, entries, formAt, queryAt, paramsAt, form, query, params)
        : RequestMaps.with(request, form, query, params);
  }

  private static IPersistentMap keyify(IPersistentMap request) {
    return request.assoc(RequestMaps.PARAMS, KeywordParams.keyify(request.valAt(RequestMaps.PARAMS)));
  }

  /** The Content-Type charset, or UTF-8 (also when it names no charset this JVM has). */
  private static Charset charset(String contentType) {
    return MediaType.charset(MediaType.charsetName(contentType), StandardCharsets.UTF_8);
  }

  /** ring's urlencoded-form?, but ignoring case as media types are compared. */
  private static boolean urlencoded(String contentType) {
    return contentType != null
        && contentType.regionMatches(true, 0, "application/x-www-form-urlencoded", 0, 33);
  }

  /** The request's headers: {@code read} from an array map's {@code entries}, else looked up. */
  private static Object headers(IPersistentMap request, Object[] entries, Object read) {
    return entries != null ? read : request.valAt(RequestMaps.HEADERS);
  }

  private static String contentType(Object headers) {
    Object v = headers instanceof Map<?, ?> m ? m.get("content-type") : null;
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
