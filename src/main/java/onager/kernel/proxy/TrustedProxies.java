package onager.kernel.proxy;

import io.netty.util.NetUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Collection;

/**
 * The option {@code :trusted-proxies}: the IP addresses and CIDR ranges whose
 * connections may say, in Forwarded or X-Forwarded-* headers, whom they
 * forward for. Parsed once at start; {@link #trusts} is a few byte compares.
 */
public final class TrustedProxies {
  // Each range: its network's bytes (4 for IPv4, 16 for IPv6), host bits cleared, and its prefix length.
  private final byte[][] networks;
  private final int[] prefixes;

  private TrustedProxies(byte[][] networks, int[] prefixes) {
    this.networks = networks;
    this.prefixes = prefixes;
  }

  /**
   * The ranges {@code entries} names (strings such as "10.0.0.1", "10.0.0.0/8",
   * "::1", "fd00::/8"), or null when it names none: nothing is trusted.
   *
   * @throws IllegalArgumentException naming the first entry that is not one
   */
  public static TrustedProxies of(Collection<?> entries) {
    if (entries == null || entries.isEmpty()) return null;
    byte[][] networks = new byte[entries.size()][];
    int[] prefixes = new int[entries.size()];
    int i = 0;
    for (Object entry : entries) {
      String why = parse(entry, networks, prefixes, i);
      if (why != null) throw new IllegalArgumentException(why);
      i++;
    }
    return new TrustedProxies(networks, prefixes);
  }

  /**
   * What is wrong with {@code entries} as the option's value, naming the first
   * bad entry; null when it is a collection of addresses and ranges (or nil).
   */
  public static String problem(Object entries) {
    if (entries == null) return null;
    if (!(entries instanceof Collection<?> all) || entries instanceof java.util.Map) {
      return "it is not a collection";
    }
    byte[][] networks = new byte[1][];
    int[] prefixes = new int[1];
    for (Object entry : all) {
      String why = parse(entry, networks, prefixes, 0);
      if (why != null) return why;
    }
    return null;
  }

  // Parses entry into slot i; returns what is wrong with it, or null.
  private static String parse(Object entry, byte[][] networks, int[] prefixes, int i) {
    if (!(entry instanceof String text)) {
      return "the entry " + describe(entry) + " is not a string";
    }
    int slash = text.indexOf('/');
    String address = slash < 0 ? text : text.substring(0, slash);
    byte[] bytes = address.indexOf('%') >= 0 ? null : ip(address);
    if (bytes == null) {
      return "the entry \"" + text + "\" is not an IP address or a CIDR range (address/prefix length)";
    }
    int bits = bytes.length * 8;
    int prefix = bits;
    if (slash >= 0) {
      String length = text.substring(slash + 1);
      prefix = length.isEmpty() || length.length() > 3 || !length.chars().allMatch(c -> c >= '0' && c <= '9')
          ? -1 : Integer.parseInt(length);
      if (prefix < 0 || prefix > bits) {
        return "the entry \"" + text + "\" has a prefix length that is not from 0 to " + bits;
      }
    }
    // A range written with host bits set ("10.1.2.3/8") means its network, as ip route reads it.
    for (int b = prefix; b < bits; b++) bytes[b >> 3] &= (byte) ~(0x80 >>> (b & 7));
    networks[i] = bytes;
    prefixes[i] = prefix;
    return null;
  }

  private static String describe(Object entry) {
    return entry == null ? "nil" : entry + " (" + entry.getClass().getSimpleName() + ")";
  }

  /**
   * The bytes of the IP address {@code text} is, IPv4 as 4 bytes (an
   * IPv4-mapped IPv6 address too), IPv6 as 16; null when it is not an address.
   * Never a name lookup.
   */
  static byte[] ip(String text) {
    byte[] bytes = NetUtil.createByteArrayFromIpAddressString(text);
    if (bytes == null || bytes.length == 4) return bytes;
    return mappedIpv4(bytes);
  }

  // ::ffff:a.b.c.d is the IPv4 address a.b.c.d (RFC 4291 §2.5.5.2): a dual-stack socket reports it so.
  private static byte[] mappedIpv4(byte[] v6) {
    for (int i = 0; i < 10; i++) if (v6[i] != 0) return v6;
    if (v6[10] != (byte) 0xff || v6[11] != (byte) 0xff) return v6;
    return new byte[] {v6[12], v6[13], v6[14], v6[15]};
  }

  /** True when the connection's peer, {@code address}, is a trusted proxy. */
  public boolean trusts(SocketAddress address) {
    if (!(address instanceof InetSocketAddress inet)) return false;
    InetAddress ip = inet.getAddress();
    if (ip == null) return false;
    byte[] bytes = ip.getAddress();
    return trusts(bytes.length == 16 ? mappedIpv4(bytes) : bytes);
  }

  /** True when the address of {@code bytes} (as {@link #ip} gives them) is in a trusted range. */
  boolean trusts(byte[] bytes) {
    for (int r = 0; r < networks.length; r++) {
      if (within(bytes, networks[r], prefixes[r])) return true;
    }
    return false;
  }

  private static boolean within(byte[] address, byte[] network, int prefix) {
    if (address.length != network.length) return false;
    int whole = prefix >> 3;
    for (int i = 0; i < whole; i++) if (address[i] != network[i]) return false;
    int rest = prefix & 7;
    if (rest == 0) return true;
    int mask = (0xff00 >> rest) & 0xff;
    return (address[whole] & mask) == (network[whole] & mask);
  }
}
