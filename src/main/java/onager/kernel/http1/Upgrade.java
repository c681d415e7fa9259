package onager.kernel.http1;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpRequest;

/**
 * Takes a connection over from HTTP/1.1 when a request asks it to switch
 * protocols (RFC 9110 §7.8), which the server may or may not allow: the HTTP/1.1
 * pipeline knows no other protocol, the server gives it this.
 */
public interface Upgrade {
  /**
   * Switches {@code ctx}'s connection to the protocol {@code request} asks for,
   * answering the request there, and returns true; or returns false, leaving the
   * request to HTTP/1.1. Called for a request without a body that is the only
   * one the connection owes an answer to, on the event loop.
   */
  boolean upgrade(ChannelHandlerContext ctx, HttpRequest request);
}
