package onager.kernel.tls;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

/**
 * Makes X.509 v3 certificates (RFC 5280) with EC P-256 keys, for development
 * and tests: a self-signed server certificate for localhost, or a CA and the
 * certificates it signs (client certificates for mutual TLS). Not for
 * production: no revocation, no policy, no name constraints.
 */
public final class CertificateMaker {
  private CertificateMaker() {}

  /** A certificate and its private key. */
  public record Issued(X509Certificate certificate, PrivateKey key) {}

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String SIGNATURE = "SHA256withECDSA";
  private static final String ECDSA_WITH_SHA256 = "1.2.840.10045.4.3.2";
  private static final String COMMON_NAME = "2.5.4.3";
  private static final String SUBJECT_ALT_NAME = "2.5.29.17";
  private static final String BASIC_CONSTRAINTS = "2.5.29.19";
  private static final String KEY_USAGE = "2.5.29.15";
  private static final String EXT_KEY_USAGE = "2.5.29.37";
  private static final String SERVER_AUTH = "1.3.6.1.5.5.7.3.1";
  private static final String CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

  /**
   * A certificate for {@code commonName}, valid from {@code notBefore} for
   * {@code validity}, naming {@code names} (host names and IP addresses) as its
   * subject alternative names. Signed by {@code issuer} (a CA made here), or by
   * its own key when {@code issuer} is null. A CA ({@code ca} true) may sign
   * others and names no hosts.
   */
  public static Issued make(String commonName, List<String> names, boolean ca, Issued issuer, Instant notBefore,
                            Duration validity) {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
      generator.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
      KeyPair keys = generator.generateKeyPair();
      byte[] algorithm = Der.sequence(Der.oid(ECDSA_WITH_SHA256));
      byte[] subject = name(commonName);
      byte[] issuerName = issuer == null ? subject : issuer.certificate().getSubjectX500Principal().getEncoded();
      PrivateKey signer = issuer == null ? keys.getPrivate() : issuer.key();
      byte[] tbs = Der.sequence(
          Der.tagged(0, true, Der.integer(BigInteger.TWO)),
          Der.integer(new BigInteger(127, RANDOM).add(BigInteger.ONE)),
          algorithm,
          issuerName,
          Der.sequence(Der.time(Date.from(notBefore)), Der.time(Date.from(notBefore.plus(validity)))),
          subject,
          keys.getPublic().getEncoded(),
          Der.tagged(3, true, Der.sequence(extensions(names, ca))));
      Signature s = Signature.getInstance(SIGNATURE);
      s.initSign(signer);
      s.update(tbs);
      byte[] der = Der.sequence(tbs, algorithm, Der.bits(s.sign()));
      X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
          .generateCertificate(new ByteArrayInputStream(der));
      return new Issued(cert, keys.getPrivate());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot make a certificate: " + e.getMessage(), e);
    }
  }

  private static byte[] name(String commonName) {
    return Der.sequence(Der.set(Der.sequence(Der.oid(COMMON_NAME), Der.utf8(commonName))));
  }

  private static byte[][] extensions(List<String> names, boolean ca) {
    List<byte[]> out = new ArrayList<>();
    out.add(extension(BASIC_CONSTRAINTS, true, ca ? Der.sequence(Der.bool(true)) : Der.sequence()));
    // digitalSignature, or keyCertSign and cRLSign for a CA (RFC 5280 §4.2.1.3).
    byte usage = ca ? (byte) 0x06 : (byte) 0x80;
    out.add(extension(KEY_USAGE, true, Der.tlv(0x03, new byte[] {(byte) (ca ? 1 : 7), usage})));
    if (!ca) {
      out.add(extension(EXT_KEY_USAGE, false, Der.sequence(Der.oid(SERVER_AUTH), Der.oid(CLIENT_AUTH))));
    }
    if (!names.isEmpty()) {
      byte[][] general = new byte[names.size()][];
      for (int i = 0; i < general.length; i++) general[i] = generalName(names.get(i));
      out.add(extension(SUBJECT_ALT_NAME, false, Der.sequence(general)));
    }
    return out.toArray(new byte[0][]);
  }

  // dNSName [2] IA5String, or iPAddress [7] OCTET STRING for a literal address (RFC 5280 §4.2.1.6).
  private static byte[] generalName(String name) {
    if (name.chars().allMatch(c -> Character.digit(c, 16) >= 0 || c == '.' || c == ':')
        && (name.contains(":") || name.chars().filter(c -> c == '.').count() == 3)) {
      try {
        return Der.tagged(7, false, InetAddress.getByName(name).getAddress());
      } catch (UnknownHostException notAnAddress) {
        // Fall through: a host name made of hex digits and dots.
      }
    }
    return Der.tagged(2, false, name.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
  }

  private static byte[] extension(String oid, boolean critical, byte[] value) {
    return critical
        ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octets(value))
        : Der.sequence(Der.oid(oid), Der.octets(value));
  }
}
