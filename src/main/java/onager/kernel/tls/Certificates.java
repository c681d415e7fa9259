package onager.kernel.tls;

import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.util.DomainWildcardMappingBuilder;
import io.netty.util.Mapping;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;
import onager.kernel.config.TlsConfig;
import onager.kernel.log.Logs;

/**
 * The TLS listener's certificates: the server name a client asks for (SNI,
 * RFC 6066 §3) to the context whose certificate it gets, the default one for
 * every other name. {@link #reload} reads the files again and swaps the whole
 * mapping at once: connections accepted after it get the new certificates, the
 * open ones keep theirs.
 */
public final class Certificates implements Mapping<String, SslContext> {
  private final TlsConfig config;
  private final ApplicationProtocolConfig alpn;
  private volatile Mapping<String, SslContext> current;

  private Certificates(TlsConfig config, List<String> protocols) {
    this.config = config;
    this.alpn = new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
        // The two behaviours both providers support: a client offering none of ours gets no
        // protocol, and the fallback (HTTP/1.1) is used (RFC 7301 §3.2 lets the server go on).
        ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
        ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, protocols);
  }

  /**
   * Reads every certificate and the trust {@code config} names, offering
   * {@code protocols} by ALPN (most preferred first). Throws an ex-info naming
   * the option and the file when one cannot be used.
   */
  public static Certificates load(TlsConfig config, List<String> protocols) {
    Certificates c = new Certificates(config, protocols);
    c.current = c.build();
    return c;
  }

  /**
   * Reads the files again; new connections get what they hold now. When one
   * cannot be used, throws as {@link #load} does and keeps the certificates in use.
   */
  public void reload() {
    current = build();
    Logs.SERVER.info("TLS certificates reloaded");
  }

  @Override
  public SslContext map(String serverName) {
    return current.map(serverName);
  }

  /** True when the certificate depends on the server name the client asks for (:sni). */
  public boolean byName() {
    return !config.sni.isEmpty();
  }

  /** The files the certificates and the trust come from. */
  public List<String> files() {
    return config.files();
  }

  private Mapping<String, SslContext> build() {
    if (config.openssl && !OpenSsl.isAvailable()) {
      throw TlsFailure.of("", "ssl-provider", null, ":openssl needs netty-tcnative-boringssl-static for this "
          + "platform on the class path (io.netty/netty-tcnative-boringssl-static with its classifier, e.g. "
          + "linux-x86_64): " + TlsFailure.reason(OpenSsl.unavailabilityCause()), OpenSsl.unavailabilityCause());
    }
    if (config.clientAuth != TlsConfig.ClientAuth.NONE && config.trust == null
        && config.identity.context == null) {
      throw TlsFailure.of("", "client-auth", null, ":" + config.clientAuth.name().toLowerCase()
          + " needs the client certificates' issuers: :ssl-ca (a PEM file) or :truststore", null);
    }
    TrustManagerFactory trust = config.trust == null ? null : KeyMaterial.trust(config.trust);
    SslContext fallback = context(config.identity, "", trust);
    if (config.sni.isEmpty()) return name -> fallback;
    DomainWildcardMappingBuilder<SslContext> names = new DomainWildcardMappingBuilder<>(fallback);
    for (Map.Entry<String, TlsConfig.Identity> e : config.sni.entrySet()) {
      names.add(e.getKey(), context(e.getValue(), ":sni \"" + e.getKey() + "\" ", trust));
    }
    return names.build();
  }

  private SslContext context(TlsConfig.Identity identity, String where, TrustManagerFactory trust) {
    ClientAuth auth = switch (config.clientAuth) {
      case NONE -> ClientAuth.NONE;
      case REQUEST -> ClientAuth.OPTIONAL;
      case REQUIRE -> ClientAuth.REQUIRE;
    };
    if (identity.context != null) {
      if (config.openssl) {
        throw TlsFailure.of(where, "ssl-context", null, "a ready SSLContext runs on the JDK's TLS only: "
            + "give :ssl-provider :jdk, or the certificate as files", null);
      }
      return new JdkSslContext(identity.context, false, config.ciphers, IdentityCipherSuiteFilter.INSTANCE, alpn,
          auth, config.protocols.toArray(new String[0]), false);
    }
    KeyMaterial.Identity loaded = KeyMaterial.load(identity, where);
    SslContextBuilder builder = SslContextBuilder.forServer(loaded.key(), loaded.chain())
        .sslProvider(config.openssl ? SslProvider.OPENSSL : SslProvider.JDK)
        .protocols(config.protocols)
        .clientAuth(auth)
        .applicationProtocolConfig(alpn);
    if (config.ciphers != null) builder.ciphers(config.ciphers);
    if (trust != null) builder.trustManager(trust);
    try {
      return builder.build();
    } catch (SSLException | RuntimeException e) {
      String option = identity.keystore != null ? "keystore" : "ssl-cert";
      String file = identity.keystore instanceof String s ? s : identity.cert;
      throw TlsFailure.of(where, option, file, "cannot be used with :ssl-protocols " + config.protocols
          + (config.ciphers == null ? "" : " and :ssl-ciphers " + config.ciphers) + ": " + TlsFailure.reason(e), e);
    }
  }
}
