package onager.kernel.launch;

import clojure.lang.ArraySeq;
import clojure.lang.RT;
import clojure.lang.Symbol;
import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Enumeration;
import java.util.jar.Manifest;

/**
 * The {@code Main-Class} of an app's jar whose entry point is a Clojure namespace's
 * {@code -main}: loads the namespace the manifest's {@value #ATTRIBUTE} attribute names
 * (the first manifest on the class path that has one: the uberjar's, or the app's jar
 * before its libraries) and calls its {@code -main} with the command-line arguments, as
 * a {@code :gen-class} main would.
 *
 * <p>What it leaves out is Clojure's full initialisation, which a {@code :gen-class}
 * main and {@code clojure.main} both run: besides loading clojure.core (which any use of
 * Clojure does), it loads {@code user.clj} and clojure.core.server, to start the socket
 * REPLs that {@code clojure.server.*} properties ask for, and with it clojure.main and
 * clojure.spec, hundreds of classes an app that serves HTTP never uses. It runs it when
 * such a property is set, so that a socket REPL still starts.
 */
public final class Launcher {
  /** The manifest attribute naming the namespace whose {@code -main} runs. */
  public static final String ATTRIBUTE = "Onager-Main";

  private Launcher() {}

  public static void main(String[] args) throws IOException {
    String ns = mainNamespace();
    if (socketServerRequested()) RT.init();
    RT.var("clojure.core", "require").invoke(Symbol.intern(ns));
    RT.var(ns, "-main").applyTo(ArraySeq.create((Object[]) args));
  }

  private static String mainNamespace() throws IOException {
    Enumeration<URL> manifests = ClassLoader.getSystemClassLoader().getResources("META-INF/MANIFEST.MF");
    while (manifests.hasMoreElements()) {
      try (InputStream in = manifests.nextElement().openStream()) {
        String ns = new Manifest(in).getMainAttributes().getValue(ATTRIBUTE);
        if (ns != null && !ns.isBlank()) return ns.strip();
      }
    }
    throw new IllegalStateException("no manifest on the class path has an " + ATTRIBUTE
        + " attribute naming the namespace whose -main to run (" + Launcher.class.getName() + " is the Main-Class)");
  }

  // The properties clojure.core.server/start-servers reads.
  private static boolean socketServerRequested() {
    for (String name : System.getProperties().stringPropertyNames()) {
      if (name.startsWith("clojure.server.")) return true;
    }
    return false;
  }
}
