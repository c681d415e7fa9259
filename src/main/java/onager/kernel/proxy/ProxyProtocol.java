package onager.kernel.proxy;

import clojure.lang.ExceptionInfo;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import io.netty.channel.Channel;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The option {@code :proxy-protocol?}: a proxy in front (HAProxy, a cloud load
 * balancer) opens each connection with a PROXY protocol header, v1 or v2, that
 * says whom it proxies for ({@link ProxyHeader} reads it, with Netty's decoder
 * from io.netty:netty-codec-haproxy). The address the header carries is then
 * the connection's peer, kept here on the channel, whose own remote address
 * stays the proxy's.
 */
public final class ProxyProtocol {
  private ProxyProtocol() {}

  private static final String DECODER = "io.netty.handler.codec.haproxy.HAProxyMessageDecoder";
  private static final AttributeKey<SocketAddress> SOURCE = AttributeKey.valueOf("onager.proxy-protocol.source");

  private static final Keyword ERROR = Keyword.intern("onager", "error");
  private static final Keyword MISSING_DEPENDENCY = Keyword.intern("missing-dependency");
  private static final Keyword KEY = Keyword.intern("key");
  private static final Keyword ARTIFACT = Keyword.intern("artifact");

  /**
   * Throws, naming the artifact to add, when Netty's PROXY protocol decoder is
   * not on the class path: at start, not at the first connection.
   */
  public static void requireDecoder() {
    try {
      Class.forName(DECODER, false, ProxyProtocol.class.getClassLoader());
    } catch (ClassNotFoundException | LinkageError e) {
      throw new ExceptionInfo(":proxy-protocol? true needs io.netty/netty-codec-haproxy (Maven Central, the "
          + "version of the other io.netty artifacts) on the class path: add it to the application's dependencies.",
          new PersistentArrayMap(new Object[] {ERROR, MISSING_DEPENDENCY, KEY, Keyword.intern("proxy-protocol?"),
              ARTIFACT, "io.netty/netty-codec-haproxy"}),
          e);
    }
  }

  /**
   * Makes {@code channel}, whose pipeline Onager has set up, read a PROXY header
   * first, within {@code timeoutMs} (0: no limit).
   */
  public static void expectHeader(Channel channel, long timeoutMs) {
    ProxyHeader.install(channel, timeoutMs);
  }

  /** Keeps {@code source}, the address a PROXY header gave, as {@code channel}'s peer. */
  static void remember(Channel channel, InetSocketAddress source) {
    channel.attr(SOURCE).set(source);
  }

  /** The peer of a connection that began with a PROXY header: the address it gave, else the socket's. */
  public static SocketAddress peer(Channel channel) {
    SocketAddress told = channel.attr(SOURCE).get();
    return told != null ? told : channel.remoteAddress();
  }
}
