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
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * A namespace marked to run beside the others (onager.test-runner/beside?)
 * starts at once on a thread of its own, and is reported after all the others,
 * so that the suite waits for it only once they are done.
 */
class ClojureSuiteTest {
  private static final Path ROOT = Path.of("src/test/clojure");

  @TestFactory
  Stream<DynamicNode> clojureTests() throws IOException {
    String only = System.getProperty("clojure.test.ns", "");
    List<String> wanted = only.isBlank() ? List.of() : List.of(only.split(","));
    // Each namespace wanted, in order, with its file.
    Map<String, Path> namespaces = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      files.filter(p -> p.toString().endsWith("_test.clj")).sorted().forEach(p -> {
        String ns = ROOT.relativize(p).toString()
            .replaceAll("\\.clj$", "").replace('/', '.').replace('_', '-');
        if (wanted.isEmpty() || wanted.contains(ns)) namespaces.put(ns, p);
      });
    }
    if (namespaces.isEmpty()) fail("no Clojure test namespace matched " + (only.isBlank() ? ROOT : only));
    Clojure.var("clojure.core", "require").invoke(Clojure.read("onager.test-runner"));
    IFn beside = Clojure.var("onager.test-runner", "beside?");
    // Those that run beside the others start now, and are reported last.
    Map<String, CompletableFuture<Object>> started = new HashMap<>();
    namespaces.forEach((ns, file) -> {
      if (Boolean.TRUE.equals(beside.invoke(file.toFile()))) started.put(ns, runBeside(ns));
    });
    return namespaces.keySet().stream().sorted(Comparator.comparing(started::containsKey))
        .map(ns -> namespace(ns, started.get(ns)));
  }

  // Loaded here, on the suite's thread (two threads loading namespaces at once can
  // see each other's half-loaded ones), then run on a thread of its own.
  private static CompletableFuture<Object> runBeside(String ns) {
    CompletableFuture<Object> results = new CompletableFuture<>();
    try {
      Clojure.var("clojure.core", "require").invoke(Clojure.read(ns));
    } catch (Throwable t) {
      results.completeExceptionally(t);
      return results;
    }
    Thread.ofPlatform().name("beside " + ns).start(() -> {
      try {
        results.complete(runNs(ns));
      } catch (Throwable t) {
        results.completeExceptionally(t);
      }
    });
    return results;
  }

  // The namespace runs when JUnit first asks for its tests, so :once fixtures run once;
  // one started beside the others is waited for then.
  private static DynamicNode namespace(String ns, CompletableFuture<Object> beside) {
    return DynamicContainer.dynamicContainer(ns, Stream.of(ns).flatMap(n -> run(n, beside)));
  }

  private static Object runNs(String ns) {
    return Clojure.var("onager.test-runner", "run-ns").invoke(Clojure.read(ns));
  }

  @SuppressWarnings("unchecked")
  private static Stream<DynamicNode> run(String ns, CompletableFuture<Object> beside) {
    Object results;
    try {
      results = beside == null ? runNs(ns) : beside.join();
    } catch (Throwable t) {
      Throwable cause = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
      return Stream.of(DynamicTest.dynamicTest("load " + ns, () -> {
        throw new AssertionError(ns + " did not load", cause);
      }));
    }
    List<DynamicNode> tests = new ArrayList<>();
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
    // One beside the others starts no server here, and what leaked meanwhile is another's.
    if (beside != null) return tests.stream();
    List<String> leaks = LeakRecorder.collect();
    tests.add(DynamicTest.dynamicTest(ns + "/no-netty-leaks", () -> {
      if (!leaks.isEmpty()) {
        throw new AssertionError(leaks.size() + " Netty leak(s) while " + ns + " ran:\n" + String.join("\n\n", leaks));
      }
    }));
    return tests.stream();
  }
}
