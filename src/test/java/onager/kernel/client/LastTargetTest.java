package onager.kernel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** A URL sent again is not parsed again; another URL, or a bad one, is. */
final class LastTargetTest {
  @Test
  void theSameUrlFindsItsTarget() {
    LastTarget targets = new LastTarget();
    Target first = targets.parse("http://127.0.0.1:8080/plaintext");
    assertSame(first, targets.parse("http://127.0.0.1:8080/plaintext"));
    // Equal text in another string: found too.
    assertSame(first, targets.parse(new StringBuilder("http://127.0.0.1:8080/").append("plaintext").toString()));
  }

  @Test
  void anotherUrlIsParsed() {
    LastTarget targets = new LastTarget();
    Target a = targets.parse("http://127.0.0.1:8080/a");
    Target b = targets.parse("https://example.com/b?x=1");
    assertNotSame(a, b);
    assertEquals("example.com", b.host);
    assertEquals(443, b.port);
    assertEquals("/b?x=1", b.pathAndQuery);
    assertEquals("/a", targets.parse("http://127.0.0.1:8080/a").pathAndQuery);
  }

  @Test
  void aBadUrlFailsEveryTime() {
    LastTarget targets = new LastTarget();
    targets.parse("http://127.0.0.1:8080/a");
    assertThrows(IllegalArgumentException.class, () -> targets.parse("ftp://127.0.0.1/a"));
    assertThrows(IllegalArgumentException.class, () -> targets.parse("ftp://127.0.0.1/a"));
    assertEquals("/a", targets.parse("http://127.0.0.1:8080/a").pathAndQuery);
  }
}
