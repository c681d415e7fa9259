package onager.kernel.exchange;

import clojure.lang.IPersistentMap;
import clojure.lang.Keyword;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.io.InputStream;
import java.security.cert.X509Certificate;
import onager.kernel.ring.RequestSource;
import onager.kernel.ring.RingKeys;

/**
 * A {@link RequestSource} of plain HTTP, told one value at a time: the Ring key
 * each method is named for. Each is called when the request map first reads
 * its key, from any thread.
 */
interface RequestFields extends RequestSource {
  int serverPort();

  String serverName();

  String remoteAddr();

  String uri();

  String queryString();

  boolean secure();

  /** :scheme, a keyword: the socket's, or what a trusted proxy says. */
  Keyword scheme();

  X509Certificate sslClientCert();

  Keyword requestMethod();

  String protocol();

  IPersistentMap headers();

  InputStream body();

  /** True when the request map has {@code :onager/request-id}: the server makes or takes ids. */
  boolean hasRequestId();

  String requestId();

  /** The first value of request header {@code name} (lower case), or null. */
  String header(CharSequence name);

  // A TLS request has :ssl-client-cert, nil when the client sent none, as ring-servlet's has.
  @Override
  default int presentKeys() {
    int keys = secure() ? RingKeys.TLS : RingKeys.PLAIN_HTTP;
    return hasRequestId() ? keys | 1 << RingKeys.REQUEST_ID : keys;
  }

  @Override
  default Object field(int index) {
    return switch (index) {
      case RingKeys.SERVER_PORT -> serverPort();
      case RingKeys.SERVER_NAME -> serverName();
      case RingKeys.REMOTE_ADDR -> remoteAddr();
      case RingKeys.URI -> uri();
      case RingKeys.QUERY_STRING -> queryString();
      case RingKeys.SCHEME -> scheme();
      case RingKeys.REQUEST_METHOD -> requestMethod();
      case RingKeys.PROTOCOL -> protocol();
      case RingKeys.HEADERS -> headers();
      case RingKeys.BODY -> body();
      case RingKeys.CONTENT_TYPE -> header(HttpHeaderNames.CONTENT_TYPE);
      case RingKeys.CONTENT_LENGTH -> RequestValues.contentLength(header(HttpHeaderNames.CONTENT_LENGTH));
      case RingKeys.CHARACTER_ENCODING -> RequestValues.characterEncoding(header(HttpHeaderNames.CONTENT_TYPE));
      case RingKeys.SSL_CLIENT_CERT -> sslClientCert();
      case RingKeys.REQUEST_ID -> requestId();
      default -> null;
    };
  }
}
