package onager.kernel.tls;

import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.KeyCertOptions;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.TrustOptions;
import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import onager.kernel.config.TlsConfig;

/**
 * The client's side of TLS: whose server certificates it trusts and which
 * certificate it shows (mutual TLS), read and checked by the same code as the
 * server's, so a wrong file fails {@code client} with the same ex-info naming
 * the option and the file.
 */
public final class ClientTls {
  private ClientTls() {}

  /**
   * Sets {@code options}' trust and identity. Without {@code trust} the JDK's
   * system trust applies. The host name is always verified against the
   * certificate (RFC 9110 §4.3.4) unless {@code insecure}, which also trusts every
   * certificate.
   */
  public static void configure(HttpClientOptions options, TlsConfig.Identity identity, TlsConfig.Trust trust,
                               boolean insecure) {
    options.setVerifyHost(!insecure);
    configureBase(options, identity, trust, insecure);
  }

  /** The same for the raw connections that WebSockets open. */
  public static void configure(NetClientOptions options, TlsConfig.Identity identity, TlsConfig.Trust trust,
                               boolean insecure) {
    options.setHostnameVerificationAlgorithm(insecure ? "" : "HTTPS");
    configureBase(options, identity, trust, insecure);
  }

  private static void configureBase(ClientOptionsBase options, TlsConfig.Identity identity, TlsConfig.Trust trust,
                                    boolean insecure) {
    if (insecure) {
      options.setTrustAll(true);
    } else if (trust != null) {
      options.setTrustOptions(TrustOptions.wrap(KeyMaterial.trust(trust)));
    }
    if (identity != null) options.setKeyCertOptions(KeyCertOptions.wrap(keyManagers(identity)));
  }

  private static KeyManagerFactory keyManagers(TlsConfig.Identity identity) {
    KeyMaterial.Identity loaded = KeyMaterial.load(identity, "");
    try {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] none = new char[0];
      store.setKeyEntry("client", loaded.key(), none, loaded.chain());
      KeyManagerFactory factory = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      factory.init(store, none);
      return factory;
    } catch (GeneralSecurityException | IOException e) {
      String option = identity.keystore != null ? "keystore" : "ssl-cert";
      String file = identity.keystore instanceof String s ? s : identity.cert;
      throw TlsFailure.of("", option, file, "cannot be used: " + TlsFailure.reason(e), e);
    }
  }
}
