package onager.kernel.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.netty.util.AsciiString;
import org.junit.jupiter.api.Test;

/** Common names come back as one shared lower-case string, whatever their case; others lower-cased. */
final class HeaderNamesTest {
  @Test
  void aCommonNameIsSharedInAnyCase() {
    String name = HeaderNames.lowerCase("content-type");
    assertEquals("content-type", name);
    assertSame(name, HeaderNames.lowerCase("Content-Type"));
    assertSame(name, HeaderNames.lowerCase("CONTENT-TYPE"));
    // As Netty's decoders hold names.
    assertSame(name, HeaderNames.lowerCase(new AsciiString("Content-Type")));
    assertSame(HeaderNames.lowerCase("set-cookie"), HeaderNames.lowerCase(new StringBuilder("Set-Cookie")));
  }

  @Test
  void anyOtherNameIsLowerCased() {
    assertEquals("x-custom-thing", HeaderNames.lowerCase("X-Custom-Thing"));
    assertEquals("x-custom-thing", HeaderNames.lowerCase(new AsciiString("x-CUSTOM-thing")));
    // Near a common name: same length and ends, another middle.
    assertEquals("content-tzpe", HeaderNames.lowerCase("Content-Tzpe"));
    assertEquals("", HeaderNames.lowerCase(""));
    // Only ASCII letters change (RFC 9110 §5.1: names are tokens).
    assertEquals("x-1_2.3", HeaderNames.lowerCase("X-1_2.3"));
  }
}
