package onager.kernel.proxy;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.HttpHeaders;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The headers a trusted proxy passes on are still the client's text, in part:
 * whatever they hold, reading them never throws (a throw would be the
 * request's 500), and what cannot be read leaves the socket's values.
 */
class ForwardedTest {
  private static final TrustedProxies TRUSTED = TrustedProxies.of(List.of("127.0.0.1", "10.0.0.0/8", "fd00::/8"));
  private static final InetSocketAddress PEER = new InetSocketAddress("127.0.0.1", 40000);
  // Values as a decoder that checks nothing would pass them on: the parser is what is tested.
  private static final DefaultHttpHeadersFactory UNCHECKED =
      DefaultHttpHeadersFactory.headersFactory().withValidation(false);
  private static final String ALPHABET = "for=proto;host,\"\\[]:._-0123456789abcdefx \t\u00e9\u007f";

  @Test
  void randomHeadersNeverThrow() {
    Random random = new Random(7239);
    for (int i = 0; i < 200_000; i++) {
      HttpHeaders headers = UNCHECKED.newHeaders();
      String name = switch (random.nextInt(5)) {
        case 0 -> "forwarded";
        case 1 -> "x-forwarded-for";
        case 2 -> "x-forwarded-proto";
        case 3 -> "x-forwarded-host";
        default -> "x-forwarded-port";
      };
      String value = text(random);
      headers.add(name, value);
      if (random.nextBoolean()) headers.add(name, text(random));
      assertDoesNotThrow(() -> Forwarded.of(TRUSTED, PEER, headers, random.nextBoolean()), name + ": " + value);
    }
  }

  @Test
  void anUntrustedPeerGetsNothing() {
    HttpHeaders headers = UNCHECKED.newHeaders().add("x-forwarded-for", "203.0.113.7");
    assertEquals(Forwarded.NONE, Forwarded.of(TRUSTED, new InetSocketAddress("192.0.2.1", 1), headers, false));
    assertEquals("203.0.113.7", Forwarded.of(TRUSTED, PEER, headers, false).address);
  }

  private static String text(Random random) {
    int length = random.nextInt(40);
    StringBuilder s = new StringBuilder(length);
    for (int j = 0; j < length; j++) s.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    return s.toString();
  }
}
