package onager.kernel.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import javax.crypto.BadPaddingException;
import javax.net.ssl.TrustManagerFactory;
import onager.kernel.config.TlsConfig;

/**
 * Reads a certificate with its key, or the trust for client certificates, from
 * the files the options name, and checks them before the server uses them: the
 * certificate is valid today and the key is its key. Every problem is a
 * {@link TlsFailure} naming the option and the file.
 */
final class KeyMaterial {
  /** A private key and its certificate chain, the leaf first. */
  record Identity(PrivateKey key, X509Certificate[] chain) {}

  private KeyMaterial() {}

  /** The key and chain {@code identity} names; {@code where} places its options (see {@link TlsFailure#of}). */
  static Identity load(TlsConfig.Identity identity, String where) {
    Identity loaded = identity.keystore != null ? fromKeystore(identity, where) : fromPem(identity, where);
    String option = identity.keystore != null ? "keystore" : "ssl-cert";
    String file = identity.keystore instanceof String s ? s : identity.cert;
    X509Certificate leaf = loaded.chain()[0];
    try {
      leaf.checkValidity();
    } catch (CertificateExpiredException e) {
      throw TlsFailure.of(where, option, file, "the certificate expired on " + leaf.getNotAfter().toInstant(), e);
    } catch (CertificateNotYetValidException e) {
      throw TlsFailure.of(where, option, file, "the certificate is not valid before "
          + leaf.getNotBefore().toInstant(), e);
    }
    if (!matches(loaded.key(), leaf)) {
      String keyOption = identity.keystore != null ? "keystore" : "ssl-key";
      String keyFile = identity.keystore != null ? file : identity.key;
      throw TlsFailure.of(where, keyOption, keyFile, "the private key does not match the certificate "
          + leaf.getSubjectX500Principal().getName() + (identity.keystore != null ? "" : " of :ssl-cert " + file),
          null);
    }
    return loaded;
  }

  private static Identity fromPem(TlsConfig.Identity identity, String where) {
    List<X509Certificate> chain;
    try {
      chain = Pem.certificates(readable(where, "ssl-cert", identity.cert));
    } catch (IOException | GeneralSecurityException e) {
      throw TlsFailure.of(where, "ssl-cert", identity.cert, "not a PEM certificate: " + TlsFailure.reason(e), e);
    }
    if (chain.isEmpty()) {
      throw TlsFailure.of(where, "ssl-cert", identity.cert, "no PEM certificate in it (BEGIN CERTIFICATE)", null);
    }
    try {
      PrivateKey key = Pem.privateKey(readable(where, "ssl-key", identity.key), identity.keyPassword);
      return new Identity(key, chain.toArray(new X509Certificate[0]));
    } catch (UnrecoverableKeyException e) {
      throw TlsFailure.of(where, "ssl-key", identity.key, "wrong :key-password for the encrypted key", e);
    } catch (IOException | GeneralSecurityException e) {
      String why = TlsFailure.reason(e);
      throw TlsFailure.of(where, "ssl-key", identity.key,
          e instanceof java.security.spec.InvalidKeySpecException ? why : "cannot read the key: " + why, e);
    }
  }

  private static Identity fromKeystore(TlsConfig.Identity identity, String where) {
    String file = identity.keystore instanceof String s ? s : null;
    char[] password = identity.keyPassword == null ? null : identity.keyPassword.toCharArray();
    KeyStore store = identity.keystore instanceof KeyStore k ? k
        : store(where, "keystore", "key-password", file, identity.keystoreType, password);
    try {
      for (String alias : Collections.list(store.aliases())) {
        if (!store.isKeyEntry(alias)) continue;
        PrivateKey key = (PrivateKey) store.getKey(alias, password);
        Certificate[] chain = store.getCertificateChain(alias);
        X509Certificate[] x509 = new X509Certificate[chain.length];
        for (int i = 0; i < chain.length; i++) x509[i] = (X509Certificate) chain[i];
        return new Identity(key, x509);
      }
    } catch (UnrecoverableKeyException e) {
      throw TlsFailure.of(where, "keystore", file, "wrong :key-password for its private key", e);
    } catch (GeneralSecurityException | ClassCastException e) {
      throw TlsFailure.of(where, "keystore", file, "cannot read its key: " + TlsFailure.reason(e), e);
    }
    throw TlsFailure.of(where, "keystore", file, "no private key entry in it", null);
  }

  /** The trust {@code config} names: a CA PEM file's certificates, or a truststore. */
  static TrustManagerFactory trust(TlsConfig.Trust config) {
    try {
      KeyStore store;
      if (config.ca != null) {
        List<X509Certificate> cas;
        try {
          cas = Pem.certificates(readable("", "ssl-ca", config.ca));
        } catch (IOException | GeneralSecurityException e) {
          throw TlsFailure.of("", "ssl-ca", config.ca, "not a PEM certificate: " + TlsFailure.reason(e), e);
        }
        if (cas.isEmpty()) throw TlsFailure.of("", "ssl-ca", config.ca, "no PEM certificate in it", null);
        store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        for (int i = 0; i < cas.size(); i++) store.setCertificateEntry("ca-" + i, cas.get(i));
      } else if (config.truststore instanceof KeyStore k) {
        store = k;
      } else if (config.truststore instanceof String file) {
        char[] password = config.trustPassword == null ? null : config.trustPassword.toCharArray();
        store = store("", "truststore", "trust-password", file, null, password);
      } else {
        throw new IllegalArgumentException("a Trust names a truststore or a CA file");
      }
      TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      factory.init(store);
      return factory;
    } catch (GeneralSecurityException | IOException e) {
      String option = config.ca != null ? "ssl-ca" : "truststore";
      String file = config.ca != null ? config.ca : config.truststore instanceof String s ? s : null;
      throw TlsFailure.of("", option, file, "cannot be used: " + TlsFailure.reason(e), e);
    }
  }

  // A keystore file, its type given or found by the JDK (PKCS #12 or JKS).
  private static KeyStore store(String where, String option, String passwordOption, String file, String type,
                                char[] password) {
    Path path = readable(where, option, file);
    try {
      if (type == null) return KeyStore.getInstance(path.toFile(), password);
      KeyStore store = KeyStore.getInstance(type);
      try (InputStream in = Files.newInputStream(path)) {
        store.load(in, password);
      }
      return store;
    } catch (IOException e) {
      if (e.getCause() instanceof UnrecoverableKeyException || e.getCause() instanceof BadPaddingException
          || String.valueOf(e.getMessage()).contains("password")) {
        throw TlsFailure.of(where, option, file, (password == null ? "no :" : "wrong :") + passwordOption, e);
      }
      throw TlsFailure.of(where, option, file, "not a keystore: " + TlsFailure.reason(e), e);
    } catch (GeneralSecurityException e) {
      throw TlsFailure.of(where, option, file, "not a keystore: " + TlsFailure.reason(e), e);
    }
  }

  private static Path readable(String where, String option, String file) {
    Path path = Path.of(file);
    try {
      if (!Files.isRegularFile(path)) throw new NoSuchFileException(file);
      if (!Files.isReadable(path)) throw new AccessDeniedException(file);
      return path;
    } catch (NoSuchFileException e) {
      throw TlsFailure.of(where, option, file, "no such file", e);
    } catch (AccessDeniedException e) {
      throw TlsFailure.of(where, option, file, "cannot read it (permission denied)", e);
    }
  }

  // The key signs and the certificate's public key verifies: the one test that works for every algorithm.
  private static boolean matches(PrivateKey key, X509Certificate leaf) {
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "DSA" -> "SHA256withDSA";
      case "Ed25519", "Ed448", "EdDSA" -> "EdDSA";
      default -> null;
    };
    if (algorithm == null) return true;
    if (!key.getAlgorithm().equals(leaf.getPublicKey().getAlgorithm())
        && !(algorithm.equals("EdDSA") && leaf.getPublicKey().getAlgorithm().startsWith("Ed"))) {
      return false;
    }
    try {
      byte[] probe = "onager".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      Signature s = Signature.getInstance(algorithm);
      s.initSign(key);
      s.update(probe);
      byte[] signature = s.sign();
      Signature v = Signature.getInstance(algorithm);
      v.initVerify(leaf.getPublicKey());
      v.update(probe);
      return v.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
