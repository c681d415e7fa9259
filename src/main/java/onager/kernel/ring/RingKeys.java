package onager.kernel.ring;

import clojure.lang.Keyword;

/**
 * The request-map keys the kernel computes, each with a fixed index so that a
 * request map can record which of them it holds in one int.
 */
public final class RingKeys {
  private RingKeys() {}

  public static final int SERVER_PORT = 0;
  public static final int SERVER_NAME = 1;
  public static final int REMOTE_ADDR = 2;
  public static final int URI = 3;
  public static final int QUERY_STRING = 4;
  public static final int SCHEME = 5;
  public static final int REQUEST_METHOD = 6;
  public static final int PROTOCOL = 7;
  public static final int HEADERS = 8;
  public static final int BODY = 9;
  public static final int CONTENT_TYPE = 10;
  public static final int CONTENT_LENGTH = 11;
  public static final int CHARACTER_ENCODING = 12;
  public static final int SSL_CLIENT_CERT = 13;
  /** {@code :onager/request-id}: only a server that makes or takes request ids has it. */
  public static final int REQUEST_ID = 14;
  public static final int COUNT = 15;

  /** Every key but {@code :ssl-client-cert}, which only TLS has. */
  public static final int PLAIN_HTTP = (1 << SSL_CLIENT_CERT) - 1;

  /** Every key but {@code :onager/request-id}: a request over TLS. */
  public static final int TLS = PLAIN_HTTP | 1 << SSL_CLIENT_CERT;

  static final Keyword[] KEYWORDS = {
    Keyword.intern("server-port"),
    Keyword.intern("server-name"),
    Keyword.intern("remote-addr"),
    Keyword.intern("uri"),
    Keyword.intern("query-string"),
    Keyword.intern("scheme"),
    Keyword.intern("request-method"),
    Keyword.intern("protocol"),
    Keyword.intern("headers"),
    Keyword.intern("body"),
    Keyword.intern("content-type"),
    Keyword.intern("content-length"),
    Keyword.intern("character-encoding"),
    Keyword.intern("ssl-client-cert"),
    Keyword.intern("onager", "request-id"),
  };

  private static final Keyword K_URI = KEYWORDS[URI];
  private static final Keyword K_REQUEST_METHOD = KEYWORDS[REQUEST_METHOD];
  private static final Keyword K_HEADERS = KEYWORDS[HEADERS];
  private static final Keyword K_BODY = KEYWORDS[BODY];
  private static final Keyword K_QUERY_STRING = KEYWORDS[QUERY_STRING];

  /**
   * The index of {@code key}, or -1 when the kernel does not compute it. Keywords
   * are interned, so identity decides; the keys handlers read most come first.
   */
  public static int indexOf(Object key) {
    if (!(key instanceof Keyword)) return -1;
    if (key == K_URI) return URI;
    if (key == K_REQUEST_METHOD) return REQUEST_METHOD;
    if (key == K_HEADERS) return HEADERS;
    if (key == K_BODY) return BODY;
    if (key == K_QUERY_STRING) return QUERY_STRING;
    for (int i = 0; i < COUNT; i++) {
      if (KEYWORDS[i] == key) return i;
    }
    return -1;
  }

  public static Keyword keyword(int index) {
    return KEYWORDS[index];
  }
}
