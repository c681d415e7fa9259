package onager.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `make classpath` prints the runtime class path alone, with absolute paths, so that a JVM
 * started in any other directory with it and README's flags runs Onager, and says nothing
 * on stderr on the JDK make picks.
 */
class ClasspathIT {
  @TempDir
  Path elsewhere;

  @Test
  void theClassPathWorksFromAnotherDirectory() throws Exception {
    // As on a fresh checkout: the class path is made first (Maven runs; its output must not reach stdout).
    Files.deleteIfExists(Command.ROOT.resolve("target/classpath.txt"));
    Command.Result r = make().run(Duration.ofMinutes(5));
    assertEquals(0, r.exit(), r.describe());
    assertEquals(1, r.out().lines().count(), "stdout is the class path alone:\n" + r.describe());
    List<String> cp = Libraries.entries(r.out());
    assertEquals(List.of(Command.ROOT.resolve("src/main/clojure").toString(), Command.ROOT.resolve("target/classes").toString()),
        cp.subList(0, 2));
    for (String entry : cp) {
      assertTrue(Path.of(entry).isAbsolute() && Files.exists(Path.of(entry)), entry);
    }
    assertEquals(r.out(), make().run(Duration.ofMinutes(5)).out(), "the second time, from the file make keeps");

    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Command.Result run = Command.of(java, "--enable-native-access=ALL-UNNAMED", "-cp", r.out().strip(), "clojure.main", "-e", """
            (require '[onager.server :as server])
            (with-open [s (server/start (fn [_] {:status 200 :body "hello"}) {:port 0})]
              (println (slurp (str "http://127.0.0.1:" (server/port s) "/"))))
            (shutdown-agents)
            """)
        .in(elsewhere).run(Duration.ofMinutes(2));
    assertEquals(0, run.exit(), run.describe());
    assertEquals("hello", run.out().strip(), run.describe());
    assertFalse(run.err().contains("WARNING"), "README's flags leave the JVM quiet:\n" + run.describe());
  }

  /** `make -s -C <repo> classpath` from another directory, as a user types it (not as a sub-make of make test). */
  private Command make() {
    return Command.of("make", "-s", "-C", Command.ROOT.toString(), "classpath").in(elsewhere)
        .env("MAKEFLAGS", null).env("MFLAGS", null).env("MAKELEVEL", null);
  }
}
