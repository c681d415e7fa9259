package onager.kernel.tls;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.UnrecoverableKeyException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.InvalidKeySpecException;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * PEM files (RFC 7468): certificates, and private keys as PKCS #8 (plain or
 * encrypted) or PKCS #1 RSA, which is what openssl, certbot and keytool write.
 */
public final class Pem {
  private Pem() {}

  private static final Pattern BLOCK =
      Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----([A-Za-z0-9+/=\\s]*?)-----END \\1-----");
  private static final String[] KEY_ALGORITHMS = {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA"};
  // PBES2 (RFC 8018 §6.2): the JDK names the real algorithm in the parameters' toString.
  private static final String PBES2 = "1.2.840.113549.1.5.13";
  // rsaEncryption, to wrap a PKCS #1 key as PKCS #8 (RFC 5208).
  private static final String RSA_ENCRYPTION = "1.2.840.113549.1.1.1";

  private record Block(String label, byte[] der) {}

  private static List<Block> blocks(String text) {
    List<Block> out = new ArrayList<>();
    Matcher m = BLOCK.matcher(text);
    while (m.find()) out.add(new Block(m.group(1), Base64.getMimeDecoder().decode(m.group(2))));
    return out;
  }

  /** The certificates of a PEM file, in order: the leaf first in a chain. */
  public static List<X509Certificate> certificates(Path file) throws IOException, GeneralSecurityException {
    CertificateFactory factory = CertificateFactory.getInstance("X.509");
    List<X509Certificate> out = new ArrayList<>();
    for (Block b : blocks(Files.readString(file, StandardCharsets.US_ASCII))) {
      if (b.label().equals("CERTIFICATE") || b.label().equals("TRUSTED CERTIFICATE")) {
        out.add((X509Certificate) factory.generateCertificate(new ByteArrayInputStream(b.der())));
      }
    }
    return out;
  }

  /**
   * The private key of a PEM file, decrypted with {@code password} when it is
   * an encrypted PKCS #8 key. Throws {@link InvalidKeySpecException} when there is
   * no key the JDK reads, {@link UnrecoverableKeyException} on a wrong password.
   */
  public static PrivateKey privateKey(Path file, String password) throws IOException, GeneralSecurityException {
    for (Block b : blocks(Files.readString(file, StandardCharsets.US_ASCII))) {
      switch (b.label()) {
        case "PRIVATE KEY" -> { return pkcs8(b.der()); }
        case "RSA PRIVATE KEY" -> { return pkcs8(Der.sequence(Der.integer(BigInteger.ZERO),
            Der.sequence(Der.oid(RSA_ENCRYPTION), new byte[] {0x05, 0x00}), Der.octets(b.der()))); }
        case "ENCRYPTED PRIVATE KEY" -> { return pkcs8(decrypt(b.der(), password)); }
        case "EC PRIVATE KEY" -> throw new InvalidKeySpecException(
            "an EC key in the SEC 1 format, which the JDK does not read: convert it to PKCS #8 with "
                + "openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
        default -> { }
      }
    }
    throw new InvalidKeySpecException("no PEM private key in it (BEGIN PRIVATE KEY, RSA PRIVATE KEY or "
        + "ENCRYPTED PRIVATE KEY)");
  }

  private static PrivateKey pkcs8(byte[] der) throws InvalidKeySpecException {
    for (String algorithm : KEY_ALGORITHMS) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
      } catch (GeneralSecurityException notThisOne) {
        // The next algorithm may read it.
      }
    }
    throw new InvalidKeySpecException("a private key of an algorithm the JDK does not read");
  }

  private static byte[] decrypt(byte[] der, String password) throws IOException, GeneralSecurityException {
    if (password == null) throw new InvalidKeySpecException("the key is encrypted and no :key-password was given");
    EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
    String algorithm = info.getAlgName().equals(PBES2) || info.getAlgName().equals("PBES2")
        ? info.getAlgParameters().toString() : info.getAlgName();
    var key = SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(password.toCharArray()));
    Cipher cipher = Cipher.getInstance(algorithm);
    cipher.init(Cipher.DECRYPT_MODE, key, info.getAlgParameters());
    try {
      return info.getKeySpec(cipher).getEncoded();
    } catch (InvalidKeySpecException e) {
      // What a wrong password makes: bytes that do not unpad, or are no key.
      throw new UnrecoverableKeyException("wrong password for the encrypted key");
    }
  }

  /** {@code der} as a PEM block labelled {@code label}. */
  public static String encode(String label, byte[] der) {
    return "-----BEGIN " + label + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + label + "-----\n";
  }

  /** Writes {@code certificate} and {@code key} (unencrypted PKCS #8) as PEM files, the key readable by its owner only. */
  public static void write(CertificateMaker.Issued issued, Path certFile, Path keyFile)
      throws IOException, GeneralSecurityException {
    Files.writeString(certFile, encode("CERTIFICATE", issued.certificate().getEncoded()), StandardCharsets.US_ASCII);
    Files.deleteIfExists(keyFile);
    Files.createFile(keyFile);
    try {
      Files.setPosixFilePermissions(keyFile, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
    } catch (UnsupportedOperationException notPosix) {
      // Not a POSIX file system: the file keeps its default permissions.
    }
    Files.writeString(keyFile, encode("PRIVATE KEY", issued.key().getEncoded()), StandardCharsets.US_ASCII);
  }
}
