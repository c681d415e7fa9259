package onager.kernel.vertx;

/**
 * The Netty system properties whose default Onager changes. They are set before
 * Onager first starts Vert.x, unless the JVM was started with them; Netty reads
 * each once, so where something else used Netty first, its values stay.
 */
public final class NettyDefaults {
  private NettyDefaults() {}

  // With JFR in the JVM, Netty's buffer allocator emits events of its own, and the first
  // of them makes the JVM build JFR's metadata for every event type it knows, recording or
  // not: a hundred classes and a large share of a small heap, enough to tip a 16 MiB server
  // from young collections into back-to-back full ones. A recording still gets the JDK's
  // events; -Dio.netty.jfr.enabled=true brings Netty's back.
  private static final String JFR_EVENTS = "io.netty.jfr.enabled";

  /** Sets Onager's default for each of these properties the JVM was not started with. */
  public static void apply() {
    if (System.getProperty(JFR_EVENTS) == null) System.setProperty(JFR_EVENTS, "false");
  }
}
