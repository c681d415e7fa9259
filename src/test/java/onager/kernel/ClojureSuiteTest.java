package onager.kernel;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

import clojure.java.api.Clojure;
import clojure.lang.IFn;
import clojure.lang.Keyword;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicContainer;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs the clojure.test suites under src/test/clojure as JUnit dynamic tests, one
 * per deftest, so that Surefire's reports (and the summary line) count them with
 * the Java tests. {@code -Dclojure.test.ns=a.b-test,c-test} runs only those. What
 * a test reports as skipped (onager.test-runner says how) is a skipped test.
 *
 * <p>After each namespace, one more test fails if Netty's leak detector (at
 * PARANOID, see {@link LeakRecorder}) reported a buffer that was never released.
 */
class ClojureSuiteTest {
  private static final Path ROOT = Path.of("src/test/clojure");

  @TestFactory
  Stream<DynamicNode> clojureTests() throws IOException {
    String only = System.getProperty("clojure.test.ns", "");
    List<String> wanted = only.isBlank() ? List.of() : List.of(only.split(","));
    List<String> namespaces = new ArrayList<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      files.filter(p -> p.toString().endsWith("_test.clj")).sorted().forEach(p -> {
        String ns = ROOT.relativize(p).toString()
            .replaceAll("\\.clj$", "").replace('/', '.').replace('_', '-');
        if (wanted.isEmpty() || wanted.contains(ns)) namespaces.add(ns);
      });
    }
    if (namespaces.isEmpty()) fail("no Clojure test namespace matched " + (only.isBlank() ? ROOT : only));
    return namespaces.stream().map(ClojureSuiteTest::namespace);
  }

  // The namespace runs when JUnit first asks for its tests, so :once fixtures run once.
  private static DynamicNode namespace(String ns) {
    return DynamicContainer.dynamicContainer(ns, Stream.of(ns).flatMap(ClojureSuiteTest::run));
  }

  @SuppressWarnings("unchecked")
  private static Stream<DynamicNode> run(String ns) {
    IFn require = Clojure.var("clojure.core", "require");
    require.invoke(Clojure.read("onager.test-runner"));
    Object results;
    try {
      results = Clojure.var("onager.test-runner", "run-ns").invoke(Clojure.read(ns));
    } catch (Throwable t) {
      return Stream.of(DynamicTest.dynamicTest("load " + ns, () -> {
        throw new AssertionError(ns + " did not load", t);
      }));
    }
    List<DynamicNode> tests = new ArrayList<>();
    List<String> leaks = LeakRecorder.collect();
    for (Object r : (List<Object>) results) {
      Map<Object, Object> m = (Map<Object, Object>) r;
      String name = (String) m.get(Keyword.intern("name"));
      String failure = (String) m.get(Keyword.intern("failure"));
      String skipped = (String) m.get(Keyword.intern("skipped"));
      tests.add(DynamicTest.dynamicTest(ns + "/" + name, () -> {
        if (skipped != null) abort(skipped);
        if (failure != null) throw new AssertionError(failure);
      }));
    }
    tests.add(DynamicTest.dynamicTest(ns + "/no-netty-leaks", () -> {
      if (!leaks.isEmpty()) {
        throw new AssertionError(leaks.size() + " Netty leak(s) while " + ns + " ran:\n" + String.join("\n\n", leaks));
      }
    }));
    return tests.stream();
  }
}
