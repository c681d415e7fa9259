package onager.kernel.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** URLs taken apart, and redirect locations resolved against them (RFC 3986 §5.2). */
final class TargetTest {
  @Test
  void absoluteUrls() {
    Target t = Target.parse("HTTPS://user:pw@Example.com:8443/a/b?q=1#frag");
    assertTrue(t.ssl);
    assertEquals("Example.com", t.host);
    assertEquals(8443, t.port);
    assertEquals("/a/b?q=1", t.pathAndQuery);
    assertEquals("user:pw", t.userInfo);
    assertEquals("https://Example.com:8443/a/b?q=1", t.url());

    Target plain = Target.parse("http://example.com?x=1");
    assertEquals(80, plain.port);
    assertEquals("/?x=1", plain.pathAndQuery);
    assertEquals("http://example.com/?x=1", plain.url());

    Target v6 = Target.parse("http://[::1]:8080/");
    assertEquals("::1", v6.host);
    assertEquals("http://[::1]:8080/", v6.url());
  }

  @Test
  void aUrlAlreadyInItsOwnFormIsNotMadeAgain() {
    // A response map's :url is this form: each response would otherwise build it anew.
    for (String url : new String[] {"http://127.0.0.1:8080/plaintext", "https://Example.com/a?b=c",
        "http://[::1]:8080/x", "https://example.com:8443/"}) {
      Target t = Target.parse(url);
      assertSame(url, t.url());
      assertEquals(t.origin() + t.pathAndQuery, t.url());
    }
    String[][] remade = {{"HTTP://example.com/x", "http://example.com/x"},
        {"http://example.com:80/x", "http://example.com/x"}, {"https://example.com:443/", "https://example.com/"},
        {"http://example.com:0080/x", "http://example.com/x"}, {"http://example.com:/x", "http://example.com/x"},
        {"http://example.com:08080/x", "http://example.com:8080/x"}, {"http://u:p@example.com/x", "http://example.com/x"},
        {"http://example.com/x#f", "http://example.com/x"}, {"http://example.com", "http://example.com/"},
        {"http://example.com?q", "http://example.com/?q"}};
    for (String[] pair : remade) {
      assertEquals(pair[1], Target.parse(pair[0]).url(), pair[0]);
    }
    assertEquals("http://example.com/x?a=1", Target.parse("http://example.com/x").withQuery("a=1").url());
  }

  @Test
  void theAddressToConnectToIsMadeWithTheTarget() {
    Target t = Target.parse("http://127.0.0.1:8080/a");
    assertEquals("127.0.0.1", t.server.host());
    assertEquals(8080, t.server.port());
    Target v6 = Target.parse("https://[::1]/");
    assertEquals("::1", v6.server.host());
    assertEquals(443, v6.server.port());
    // A query added per request keeps its target's address rather than making another.
    assertSame(t.server, t.withQuery("b=1").server);
  }

  @Test
  void refusedUrls() {
    for (String bad : new String[] {"example.com/a", "ftp://example.com/", "http:///a", "http://a:0/",
        "http://a:65536/", "http://a:x/", "http://a b/", "http://a/\r\nX: y", "http://[::1/"}) {
      assertThrows(IllegalArgumentException.class, () -> Target.parse(bad), bad);
    }
  }

  @Test
  void redirectLocations() {
    Target from = Target.parse("https://example.com/dir/page?x=1");
    assertEquals("https://example.com/other", from.resolve("/other").url());
    assertEquals("https://example.com/dir/sibling", from.resolve("sibling").url());
    assertEquals("https://example.com/dir/page?y=2", from.resolve("?y=2").url());
    assertEquals("https://cdn.example.com/x", from.resolve("//cdn.example.com/x").url());
    assertEquals("http://elsewhere.test/", from.resolve("http://elsewhere.test/").url());
    assertEquals("https://example.com/dir/page?x=1", from.resolve("#top").url());
    assertEquals("https://example.com/dir/a?b=http://x", from.resolve("a?b=http://x").url());
  }

  @Test
  void origins() {
    Target a = Target.parse("https://Example.com/x");
    assertTrue(a.sameOrigin(Target.parse("https://example.com:443/y")));
    assertFalse(a.sameOrigin(Target.parse("http://example.com/x")));
    assertFalse(a.sameOrigin(Target.parse("https://example.com:8443/x")));
    assertTrue(Redirects.NORMAL.allows(a, Target.parse("https://other.test/")));
    assertFalse(Redirects.NORMAL.allows(a, Target.parse("http://example.com/")));
    assertFalse(Redirects.SAME_ORIGIN.allows(a, Target.parse("https://other.test/")));
    assertTrue(Redirects.ALL.allows(a, Target.parse("http://other.test/")));
  }
}
