package onager.kernel.client;

import clojure.lang.Keyword;
import io.vertx.core.Vertx;
import io.vertx.core.net.ProxyOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import onager.kernel.config.TlsConfig;
import onager.kernel.json.JsonReader;
import onager.kernel.json.JsonWriter;

/**
 * The validated client options, as the kernel reads them. The options table in
 * {@code onager.client.options} is the one source of validation and defaults;
 * this class reads its result by the options' own keywords, as
 * {@link onager.kernel.config.ServerConfig} does the server's.
 */
public final class ClientConfig {
  /** A Vert.x instance to share; {@code null} makes the client own one. */
  public final Vertx vertx;
  public final int eventLoops;
  /** Connections per origin: HTTP/1.1, and HTTP/2 (each carrying many requests). */
  public final int maxConnections;
  public final int maxHttp2Connections;
  /** Requests that may wait for a connection, per origin; beyond it a request fails at once. */
  public final int maxWaiting;
  public final long keepAliveTimeoutMs;
  /** The defaults of the request keys of the same names. */
  public final RequestDefaults defaults;
  public final boolean decompress;
  /** Offer HTTP/2 by ALPN over TLS; speak it in clear text by prior knowledge (h2c). */
  public final boolean http2;
  public final boolean h2c;
  public final int maxHeaderSize;
  /** Trust every server certificate and name: only by {@code :insecure? true}. */
  public final boolean insecure;
  /** The client certificate and the servers' trust, as the server's TLS options name them; null for neither. */
  public final TlsConfig.Identity identity;
  public final TlsConfig.Trust trust;
  /** Every request's proxy unless it names its own, and the hosts reached without it; null and empty for none. */
  public final ProxyOptions proxy;
  public final List<String> nonProxyHosts;
  /** The User-Agent sent when a request names none; null sends none. */
  public final String userAgent;
  /** For {@code :json-params} and {@code :as :json}: the Clojure layer's, so that its extension points apply. */
  public final JsonWriter jsonWriter;
  public final JsonReader jsonKeywordReader;
  public final JsonReader jsonStringReader;

  private ClientConfig(Map<?, ?> options) {
    vertx = (Vertx) options.get(key("vertx"));
    eventLoops = integer(options, "event-loops");
    maxConnections = integer(options, "max-connections");
    maxHttp2Connections = integer(options, "max-http2-connections");
    maxWaiting = integer(options, "max-waiting");
    keepAliveTimeoutMs = number(options, "keep-alive-timeout-ms");
    defaults = RequestDefaults.from(options);
    decompress = flag(options, "decompress?");
    http2 = flag(options, "http2?");
    h2c = flag(options, "h2c?");
    maxHeaderSize = integer(options, "max-header-size");
    insecure = flag(options, "insecure?");
    identity = options.get(key("ssl-cert")) != null || options.get(key("keystore")) != null
        ? TlsConfig.Identity.from(options) : null;
    trust = TlsConfig.Trust.from(options);
    userAgent = options.get(key("user-agent")) instanceof String s ? s : null;
    Object p = options.get(key("proxy"));
    proxy = p == null ? null : ClientProxies.of(p);
    if (p != null && proxy == null) throw new IllegalArgumentException("ClientConfig: :proxy is not a proxy map");
    List<String> hosts = new ArrayList<>();
    if (options.get(key("non-proxy-hosts")) instanceof Iterable<?> given) {
      for (Object h : given) hosts.add((String) h);
    }
    nonProxyHosts = List.copyOf(hosts);
    jsonWriter = (JsonWriter) given(options, "json-writer");
    jsonKeywordReader = (JsonReader) given(options, "json-keyword-reader");
    jsonStringReader = (JsonReader) given(options, "json-string-reader");
  }

  /**
   * The configuration the validated options map {@code options} gives, keyed by
   * the options' keywords, with {@code :json-writer}, {@code :json-keyword-reader}
   * and {@code :json-string-reader} added.
   */
  public static ClientConfig from(Map<?, ?> options) {
    return new ClientConfig(options);
  }

  static Keyword key(String name) {
    return Keyword.intern(name);
  }

  static Object given(Map<?, ?> options, String name) {
    Object value = options.get(key(name));
    if (value == null) throw new IllegalArgumentException("ClientConfig: :" + name + " was not given");
    return value;
  }

  static long number(Map<?, ?> options, String name) {
    return ((Number) given(options, name)).longValue();
  }

  static int integer(Map<?, ?> options, String name) {
    return Math.toIntExact(number(options, name));
  }

  static boolean flag(Map<?, ?> options, String name) {
    return (Boolean) given(options, name);
  }
}
