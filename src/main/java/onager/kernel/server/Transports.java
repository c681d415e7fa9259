package onager.kernel.server;

import clojure.lang.ExceptionInfo;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import io.netty.util.Version;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.transport.Transport;
import onager.kernel.vertx.VertxInternals;

/**
 * The Netty transport a server runs on (the :transport option): a new Vert.x
 * instance on the one asked for, or a refusal that says why it cannot load.
 * Vert.x itself falls back to NIO without a word when the transport it is
 * given is unavailable; a server asked for epoll or io_uring must not.
 */
final class Transports {
  private Transports() {}

  private static final Keyword ERROR = Keyword.intern("onager", "error");
  private static final Keyword KEY = Keyword.intern("key");
  private static final Keyword VALUE = Keyword.intern("value");
  private static final Keyword CAUSE = Keyword.intern("cause");
  private static final Keyword TRANSPORT = Keyword.intern("transport");
  private static final Keyword VERTX = Keyword.intern("vertx");

  /**
   * A new Vert.x instance with {@code options} on the transport {@code wanted}
   * ("auto", "epoll", "io-uring" or "nio"). "auto" is Vert.x's choice of native
   * transport (epoll on Linux), or NIO when none loads.
   */
  static Vertx vertx(VertxOptions options, String wanted) {
    if (wanted.equals("auto")) return Vertx.vertx(options.setPreferNativeTransport(true));
    Transport transport = switch (wanted) {
      case "epoll" -> Transport.EPOLL;
      case "io-uring" -> Transport.IO_URING;
      case "nio" -> Transport.NIO;
      default -> throw new IllegalArgumentException("no transport " + wanted);
    };
    if (transport == null || !transport.available()) throw unavailable(wanted, transport);
    return Vertx.builder().with(options.setPreferNativeTransport(false)).withTransport(transport).build();
  }

  /**
   * Refuses an explicit {@code wanted} transport that is not the one the shared
   * instance {@code vertx} runs on: a Vert.x instance's transport is fixed when
   * it is built.
   */
  static void checkShared(Vertx vertx, String wanted) {
    String has = VertxInternals.transportName(vertx);
    if (wanted.equals("auto") || wanted.equals(has)) return;
    throw new ExceptionInfo("Option :transport :" + wanted + " conflicts with :vertx, which runs on " + has
        + ": a server on a shared Vert.x instance runs on that instance's transport. Drop :transport, or build "
        + "the instance on " + wanted + " (VertxBuilder.withTransport).",
        PersistentArrayMap.createAsIfByAssoc(new Object[] {ERROR, Keyword.intern("transport-conflict"), KEY,
            TRANSPORT, VALUE, Keyword.intern(wanted), VERTX, Keyword.intern(has)}));
  }

  /**
   * The refusal of :reuse-port? true on {@code transport}: Vert.x sets SO_REUSEPORT
   * on the native transports' sockets only, and would drop it on NIO's without a word.
   */
  static ExceptionInfo reusePortUnsupported(String transport) {
    return new ExceptionInfo("Option :reuse-port? true needs a native transport (epoll or io_uring), and the server "
        + "runs on " + transport + ": give :transport :epoll (Linux), or drop :reuse-port?.",
        PersistentArrayMap.createAsIfByAssoc(new Object[] {ERROR, Keyword.intern("invalid-option"), KEY,
            Keyword.intern("reuse-port?"), VALUE, Boolean.TRUE, TRANSPORT, Keyword.intern(transport)}));
  }

  private static ExceptionInfo unavailable(String wanted, Transport transport) {
    String nettyName = wanted.equals("io-uring") ? "io_uring" : wanted;
    String why = transport == null
        ? "Netty's " + nettyName + " transport is not on the class path"
        : ListenFailure.reason(transport.unavailabilityCause());
    String artifact = "io.netty/netty-transport-native-" + nettyName;
    return new ExceptionInfo("Option :transport :" + wanted + " cannot be used here: " + why + ". " + nettyName
        + " needs Linux" + (wanted.equals("io-uring") ? ", a kernel that allows io_uring," : "") + " and " + artifact
        + " " + nettyVersion() + " with the platform's classifier (e.g. linux-x86_64) on the class path; "
        + ":transport :auto runs on the best transport that loads.",
        PersistentArrayMap.createAsIfByAssoc(new Object[] {ERROR, Keyword.intern("transport-unavailable"), KEY,
            TRANSPORT, VALUE, Keyword.intern(wanted), CAUSE, why, Keyword.intern("artifact"), artifact}));
  }

  // The Netty release on the class path, which a native transport's jar must match.
  private static String nettyVersion() {
    Version common = Version.identify().get("netty-common");
    return common == null ? "" : common.artifactVersion();
  }
}
