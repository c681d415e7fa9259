package onager.kernel.client;

import clojure.lang.Keyword;
import io.vertx.core.net.ProxyOptions;
import io.vertx.core.net.ProxyType;
import java.util.Map;

/**
 * A {@code :proxy} map as Vert.x's proxy options: {@code {:host :port :type
 * :username :password}}, the type {@code :http} (the default: CONNECT for
 * https, the absolute URL for http, RFC 9110 §9.3.6), {@code :socks5} or
 * {@code :socks4}.
 */
public final class ClientProxies {
  private ClientProxies() {}

  private static final Keyword HOST = Keyword.intern("host");
  private static final Keyword PORT = Keyword.intern("port");
  private static final Keyword TYPE = Keyword.intern("type");
  private static final Keyword USERNAME = Keyword.intern("username");
  private static final Keyword PASSWORD = Keyword.intern("password");

  /** What a {@code :proxy} value must be, in words. */
  public static final String ALLOWED = "a map of :host, :port, and optionally :type (:http, :socks5 or :socks4), "
      + ":username and :password";

  /** True when {@code value} is a valid {@code :proxy} map: for the options table. */
  public static boolean valid(Object value) {
    return of(value) != null;
  }

  /** The proxy {@code value} names; null when it is not a valid {@code :proxy} map. */
  static ProxyOptions of(Object value) {
    if (!(value instanceof Map<?, ?> m)) return null;
    if (!(m.get(HOST) instanceof String host) || host.isEmpty()) return null;
    if (!(m.get(PORT) instanceof Number port) || port.longValue() < 1 || port.longValue() > 65535) return null;
    Object type = m.get(TYPE);
    ProxyType t;
    if (type == null) {
      t = ProxyType.HTTP;
    } else if (type instanceof Keyword k) {
      t = switch (k.getName()) {
        case "http" -> ProxyType.HTTP;
        case "socks5" -> ProxyType.SOCKS5;
        case "socks4" -> ProxyType.SOCKS4;
        default -> null;
      };
      if (t == null) return null;
    } else {
      return null;
    }
    Object user = m.get(USERNAME);
    Object password = m.get(PASSWORD);
    if ((user != null && !(user instanceof String)) || (password != null && !(password instanceof String))) {
      return null;
    }
    ProxyOptions options = new ProxyOptions().setHost(host).setPort(port.intValue()).setType(t);
    if (user != null) options.setUsername((String) user);
    if (password != null) options.setPassword((String) password);
    return options;
  }
}
