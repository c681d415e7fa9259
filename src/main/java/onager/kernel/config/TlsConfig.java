package onager.kernel.config;

import clojure.lang.Keyword;
import java.io.File;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;

/**
 * The TLS listener's options, as validated by the options table: where its
 * certificates come from and how it talks TLS. The table checks each value; the
 * kernel ({@code onager.kernel.tls}) reads the files and fails start naming the
 * option and the file when one is wrong.
 */
public final class TlsConfig {
  /** How the server asks for a client certificate (RFC 8446 §4.3.2). */
  public enum ClientAuth { NONE, REQUEST, REQUIRE }

  /**
   * One certificate with its key: PEM files, a keystore, or a ready
   * {@link SSLContext}; exactly one of the three is set.
   */
  public static final class Identity {
    /** PEM files (paths), and the key's password or null. */
    public final String cert;
    public final String key;
    public final String keyPassword;
    /** A keystore: a path or a {@link KeyStore}; its type or null to infer it. */
    public final Object keystore;
    public final String keystoreType;
    public final SSLContext context;

    private Identity(Map<?, ?> options) {
      cert = path(options.get(key("ssl-cert")));
      key = path(options.get(key("ssl-key")));
      keyPassword = (String) options.get(key("key-password"));
      Object store = options.get(key("keystore"));
      keystore = store instanceof KeyStore ? store : path(store);
      keystoreType = (String) options.get(key("keystore-type"));
      context = (SSLContext) options.get(key("ssl-context"));
    }

    /** The identity the options map {@code options} names by the server's option keys. */
    public static Identity from(Map<?, ?> options) {
      return new Identity(options);
    }

    /** The files this identity is read from, to watch for changes. */
    public List<String> files() {
      List<String> files = new ArrayList<>(2);
      if (cert != null) files.add(cert);
      if (key != null) files.add(key);
      if (keystore instanceof String s) files.add(s);
      return files;
    }
  }

  /**
   * Whose certificates to trust: a truststore (path or {@link KeyStore}) or a CA
   * PEM file, with the truststore's password.
   */
  public static final class Trust {
    public final Object truststore;
    public final String trustPassword;
    public final String ca;

    private Trust(Object truststore, String trustPassword, String ca) {
      this.truststore = truststore;
      this.trustPassword = trustPassword;
      this.ca = ca;
    }

    /** The trust the options map names by :truststore, :trust-password and :ssl-ca; null when neither is given. */
    public static Trust from(Map<?, ?> options) {
      Object store = options.get(key("truststore"));
      String ca = path(options.get(key("ssl-ca")));
      if (store == null && ca == null) return null;
      return new Trust(store instanceof KeyStore ? store : path(store), (String) options.get(key("trust-password")), ca);
    }
  }

  /** The TLS port; 0 binds a free one. */
  public final int port;
  /** The certificate for clients that name no server, or one {@link #sni} does not know. */
  public final Identity identity;
  /** Server name (or {@code *.domain} wildcard) to its certificate, in the order given. */
  public final Map<String, Identity> sni;
  public final ClientAuth clientAuth;
  /** The client certificates' trust; null when none is given. */
  public final Trust trust;
  public final List<String> protocols;
  /** Null for the provider's defaults. */
  public final List<String> ciphers;
  public final boolean openssl;
  public final boolean reloadOnChange;

  private TlsConfig(Map<?, ?> options) {
    port = ((Number) options.get(key("ssl-port"))).intValue();
    identity = new Identity(options);
    Map<String, Identity> names = new LinkedHashMap<>();
    if (options.get(key("sni")) instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) names.put((String) e.getKey(), new Identity((Map<?, ?>) e.getValue()));
    }
    sni = Collections.unmodifiableMap(names);
    clientAuth = ClientAuth.valueOf(((Keyword) options.get(key("client-auth"))).getName().toUpperCase());
    trust = Trust.from(options);
    protocols = strings(options.get(key("ssl-protocols")));
    ciphers = strings(options.get(key("ssl-ciphers")));
    openssl = options.get(key("ssl-provider")) == key("openssl");
    reloadOnChange = Boolean.TRUE.equals(options.get(key("ssl-reload-on-change?")));
  }

  /** The TLS options in the validated server options, or null when {@code :ssl-port} is not given. */
  public static TlsConfig from(Map<?, ?> options) {
    return options.get(key("ssl-port")) == null ? null : new TlsConfig(options);
  }

  /** Every file the certificates and the trust are read from. */
  public List<String> files() {
    List<String> files = new ArrayList<>(identity.files());
    for (Identity i : sni.values()) files.addAll(i.files());
    if (trust != null && trust.truststore instanceof String s) files.add(s);
    if (trust != null && trust.ca != null) files.add(trust.ca);
    return files;
  }

  private static Keyword key(String name) {
    return Keyword.intern(name);
  }

  private static String path(Object value) {
    return value instanceof File f ? f.getPath() : (String) value;
  }

  private static List<String> strings(Object value) {
    if (value == null) return null;
    List<String> out = new ArrayList<>();
    for (Object o : (Iterable<?>) value) out.add((String) o);
    return List.copyOf(out);
  }
}
