package onager.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.abort;

import clojure.java.api.Clojure;
import clojure.lang.Keyword;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * The notes example (examples/notes) as its users run it: its class path made from its own
 * deps.edn by tools.deps (scripts/deps-classpath, Onager a :local/root dependency on this
 * checkout), its clojure.test suite run in a JVM of its own, one JUnit test per deftest so that
 * the summary counts them. Its sources get the API's house rules there too
 * (src/test/clojure/onager/example_suite.clj): no reflection, a docstring on every public var.
 */
class ExampleAppIT {
  private static final Path APP = Command.ROOT.resolve("examples/notes");
  private static final Keyword NAME = Keyword.intern("name");
  private static final Keyword FAILURE = Keyword.intern("failure");
  private static final Keyword SKIPPED = Keyword.intern("skipped");

  @TempDir
  Path tmp;

  @TestFactory
  @SuppressWarnings("unchecked")
  Stream<DynamicTest> notesExample() throws IOException {
    Command.Result cp = Command.of(Command.ROOT.resolve("scripts/deps-classpath").toString(), "-A:test", APP.toString())
        .run(Duration.ofMinutes(5));
    if (cp.exit() != 0) return failed("resolve the class path", cp);

    Path results = tmp.resolve("results.edn");
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Command.Result run = Command.of(java, "--enable-native-access=ALL-UNNAMED",
            "-cp", cp.out().strip() + File.pathSeparator + Command.ROOT.resolve("src/test/clojure"),
            "clojure.main", "-m", "onager.example-suite", APP.toString(), results.toString())
        .in(APP).run(Duration.ofMinutes(5));
    if (run.exit() != 0 || !Files.exists(results)) return failed("run the suite", run);

    List<Map<Object, Object>> outcomes = (List<Map<Object, Object>>) Clojure.read(Files.readString(results));
    // The app logs through its Logback and logback.xml: SLF4J without a provider would say so,
    // and Logback without a configuration would print Netty's DEBUG lines.
    DynamicTest logging = DynamicTest.dynamicTest("examples/notes logs through its logback.xml", () -> {
      assertFalse(run.err().contains("SLF4J"), run.err());
      assertFalse(run.out().contains("DEBUG"), run.out());
    });
    return Stream.concat(Stream.of(logging), outcomes.stream().map(m -> {
      String failure = (String) m.get(FAILURE);
      String skipped = (String) m.get(SKIPPED);
      return DynamicTest.dynamicTest("examples/" + m.get(NAME), () -> {
        if (skipped != null) abort(skipped);
        if (failure != null) throw new AssertionError(failure + "\n--- the suite's output\n" + run.out() + run.err());
      });
    }));
  }

  private static Stream<DynamicTest> failed(String what, Command.Result r) {
    return Stream.of(DynamicTest.dynamicTest("examples/notes: " + what, () -> {
      throw new AssertionError("could not " + what + " of examples/notes: " + r.describe());
    }));
  }
}
