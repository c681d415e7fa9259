package onager.kernel.tls;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Date;

/**
 * The few DER encodings (ITU-T X.690) an X.509 certificate needs. Each method
 * returns one whole TLV: tag, length, contents.
 */
final class Der {
  private Der() {}

  static byte[] tlv(int tag, byte[]... parts) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    for (byte[] p : parts) body.writeBytes(p);
    int n = body.size();
    ByteArrayOutputStream out = new ByteArrayOutputStream(n + 6);
    out.write(tag);
    if (n < 0x80) {
      out.write(n);
    } else {
      byte[] len = BigInteger.valueOf(n).toByteArray();
      int skip = len[0] == 0 ? 1 : 0;
      out.write(0x80 | (len.length - skip));
      out.write(len, skip, len.length - skip);
    }
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
  }

  static byte[] sequence(byte[]... parts) {
    return tlv(0x30, parts);
  }

  static byte[] set(byte[]... parts) {
    return tlv(0x31, parts);
  }

  static byte[] integer(BigInteger value) {
    return tlv(0x02, value.toByteArray());
  }

  static byte[] bool(boolean value) {
    return tlv(0x01, new byte[] {(byte) (value ? 0xff : 0)});
  }

  static byte[] octets(byte[] value) {
    return tlv(0x04, value);
  }

  /** A BIT STRING of whole bytes. */
  static byte[] bits(byte[] value) {
    byte[] body = new byte[value.length + 1];
    System.arraycopy(value, 0, body, 1, value.length);
    return tlv(0x03, body);
  }

  static byte[] utf8(String value) {
    return tlv(0x0c, value.getBytes(StandardCharsets.UTF_8));
  }

  /** A context-specific tag {@code [n]}: constructed (EXPLICIT) or primitive (IMPLICIT of a primitive). */
  static byte[] tagged(int n, boolean constructed, byte[] contents) {
    return tlv((constructed ? 0xa0 : 0x80) | n, contents);
  }

  static byte[] oid(String dotted) {
    String[] arcs = dotted.split("\\.");
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(Integer.parseInt(arcs[0]) * 40 + Integer.parseInt(arcs[1]));
    for (int i = 2; i < arcs.length; i++) {
      long v = Long.parseLong(arcs[i]);
      int groups = Math.max(1, (64 - Long.numberOfLeadingZeros(v) + 6) / 7);
      for (int g = groups - 1; g >= 0; g--) out.write((int) ((v >>> (7 * g)) & 0x7f) | (g > 0 ? 0x80 : 0));
    }
    return tlv(0x06, out.toByteArray());
  }

  private static final DateTimeFormatter UTC_TIME = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'");
  private static final DateTimeFormatter GENERALIZED_TIME = DateTimeFormatter.ofPattern("yyyyMMddHHmmss'Z'");

  /** RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050. */
  static byte[] time(Date date) {
    ZonedDateTime t = date.toInstant().atZone(ZoneOffset.UTC);
    return t.getYear() < 2050
        ? tlv(0x17, UTC_TIME.format(t).getBytes(StandardCharsets.US_ASCII))
        : tlv(0x18, GENERALIZED_TIME.format(t).getBytes(StandardCharsets.US_ASCII));
  }
}
