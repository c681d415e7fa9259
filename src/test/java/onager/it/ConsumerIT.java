package onager.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A project outside this repository depends on Onager as a user's would: resolved by
 * tools.deps (used as a library, scripts/deps-classpath) from a local Maven repository
 * after the jar is installed there, and as a :local/root dependency after prep; and by
 * Maven. Each gets the libraries this build runs with, and the first two then serve a
 * request on the oldest Clojure and JDK Onager claims. Such a project has no SLF4J
 * provider (Logback is an optional dependency of Onager's): a handler's error is logged
 * all the same, through java.util.logging.
 *
 * <p>The installed jar is this build's, in a local repository of the tests' own
 * (pom.xml installs it in pre-integration-test); everything else comes from ~/.m2, read as
 * it is, so nothing is downloaded twice. The :local/root test runs first: it brings the
 * oldest Clojure into ~/.m2 when it is not there yet.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerIT {
  private static final String VERSION = System.getProperty("onager.version");
  private static final Path IT_REPO = Path.of(System.getProperty("onager.it.repo"));
  private static final String OLDEST_CLOJURE = System.getProperty("clojure.oldest.version");
  private static final String OLDEST_JAVA = System.getProperty("java.oldest.version");
  private static final Path M2 = Path.of(System.getProperty("user.home"), ".m2", "repository");
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+/)");

  @TempDir
  Path tmp;

  @Test
  @Order(1)
  void aLocalRootDependencyIsPreparedAndServesOnTheOldestClojureAndJdk() throws Exception {
    // The library as a fresh checkout has it: deps.edn, build.clj and the sources, nothing built.
    Path lib = tmp.resolve("onager");
    for (String f : List.of("deps.edn", "build.clj", "src/main")) copy(Command.ROOT.resolve(f), lib.resolve(f));
    Path app = consumer(tmp.resolve("app"), "io.github.onager/onager {:local/root \"" + lib + "\"}", "");

    Command.Result r = Libraries.resolveWithToolsDeps(app, "");
    assertEquals(0, r.exit(), r.describe());
    assertTrue(r.err().contains("Prepping io.github.onager/onager in " + lib), "the lib was prepared:\n" + r.describe());
    assertTrue(Files.isRegularFile(lib.resolve("target/classes/onager/kernel/server/OnagerServer.class")),
        "the prep compiled the kernel:\n" + r.describe());
    List<String> cp = Libraries.entries(r.out());
    assertTrue(cp.containsAll(List.of(lib.resolve("src/main/clojure").toString(), lib.resolve("target/classes").toString())), r.out());
    Libraries.assertSameJars(Libraries.withoutClojure(Libraries.ofThisBuild()), Libraries.withoutClojure(Libraries.jars(r.out())),
        "the :local/root dependency's libraries against this build's");

    serves(app, r.out(), "file:" + lib.resolve("src/main/clojure/onager/server.clj"));
  }

  @Test
  @Order(2)
  void theInstalledJarResolvesWithToolsDepsAndServesOnTheOldestClojureAndJdk() throws Exception {
    Path app = consumer(tmp.resolve("app"), "io.github.onager/onager {:mvn/version \"" + VERSION + "\"}",
        ":mvn/local-repo \"" + IT_REPO + "\"");

    Command.Result r = Libraries.resolveWithToolsDeps(app, "-Dmaven.repo.local.tail=" + M2);
    assertEquals(0, r.exit(), r.describe());
    Path jar = IT_REPO.resolve("io/github/onager/onager/" + VERSION + "/onager-" + VERSION + ".jar");
    assertTrue(Libraries.entries(r.out()).contains(jar.toString()), "Onager is the installed jar:\n" + r.out());
    Set<String> expected = new TreeSet<>(Libraries.withoutClojure(Libraries.ofThisBuild()));
    expected.add(jar.getFileName().toString());
    Libraries.assertSameJars(expected, Libraries.withoutClojure(Libraries.jars(r.out())),
        "tools.deps' libraries for the installed jar against this build's");

    serves(app, r.out(), "jar:file:" + jar + "!/onager/server.clj");
  }

  @Test
  @Order(3)
  void mavenResolvesTheInstalledPomToOneVersionOfEachLibrary() throws Exception {
    Path app = Files.createDirectories(tmp.resolve("maven-app"));
    Files.writeString(app.resolve("pom.xml"), """
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId>
          <artifactId>app</artifactId>
          <version>1</version>
          <dependencies>
            <dependency>
              <groupId>io.github.onager</groupId>
              <artifactId>onager</artifactId>
              <version>%s</version>
            </dependency>
          </dependencies>
        </project>
        """.formatted(VERSION));
    // Maven 3.8 reads one local repository: the tests' own, which has the installed jar, and
    // everything else copied into it from ~/.m2 as from a mirror, never downloaded.
    Files.writeString(app.resolve("settings.xml"), """
        <settings>
          <mirrors>
            <mirror><id>local-m2</id><mirrorOf>*</mirrorOf><url>%s</url></mirror>
          </mirrors>
        </settings>
        """.formatted(M2.toUri()));
    Command.Result r = Command.of("mvn", "-B", "-ntp", "-Dstyle.color=never", "-s", "settings.xml",
            "-Dmaven.repo.local=" + IT_REPO, "org.apache.maven.plugins:maven-dependency-plugin:3.8.1:tree",
            "-DoutputFile=tree.txt")
        .in(app).run(Duration.ofMinutes(5));
    assertEquals(0, r.exit(), r.describe());
    String tree = Files.readString(app.resolve("tree.txt"));

    Set<String> jars = Libraries.ofMavenTree(tree);
    Set<String> expected = new TreeSet<>(Libraries.ofThisBuild());
    expected.add("onager-" + VERSION + ".jar");
    Libraries.assertSameJars(expected, jars, "Maven's libraries for the installed jar against this build's\n" + tree);
    assertEquals(1, Libraries.versions(jars, a -> a.startsWith("netty-") && !a.startsWith("netty-tcnative")).size(), tree);
    Set<String> jackson = Libraries.versions(jars, a -> a.startsWith("jackson-") && !a.equals("jackson-annotations"));
    assertEquals(1, jackson.size(), tree);
    // jackson-annotations has had versions of two numbers since 2.20, its minor release's.
    String annotations = Libraries.versions(jars, "jackson-annotations"::equals).iterator().next();
    assertTrue(jackson.iterator().next().startsWith(annotations + "."), tree);
    assertTrue(tree.contains("netty-transport-native-epoll:jar:linux-x86_64:")
        && tree.contains("netty-transport-native-epoll:jar:linux-aarch_64:"), tree);
  }

  /** A deps.edn project with the dependency given, on the oldest Clojure claimed, and a main that serves. */
  private static Path consumer(Path dir, String dependency, String topLevel) throws IOException {
    Files.createDirectories(dir.resolve("src/consumer"));
    Files.writeString(dir.resolve("deps.edn"), "{:deps {" + dependency + "\n"
        + "        org.clojure/clojure {:mvn/version \"" + OLDEST_CLOJURE + "\"}}\n " + topLevel + "}\n");
    Files.writeString(dir.resolve("src/consumer/main.clj"), """
        (ns consumer.main
          (:require [clojure.java.io :as io]
                    [onager.server :as server]))

        (defn -main []
          (let [s (server/start (fn [request]
                                  (when (= "/fail" (:uri request))
                                    (throw (ex-info "the consumer's handler failed" {})))
                                  {:status 200
                                   :headers {"Content-Type" "text/plain"}
                                   :body (str "clojure " (clojure-version)
                                              ", java " (System/getProperty "java.specification.version"))})
                                {:port 0})]
            (println "onager from" (str (io/resource "onager/server.clj")))
            (println (str "listening on http://127.0.0.1:" (server/port s) "/"))
            (read-line)
            (server/stop s)
            (println "stopped")
            (shutdown-agents)))
        """);
    return dir;
  }

  /** Runs the project's main on the Java 21 runtime: it answers a request, then stops when told. */
  private static void serves(Path app, String classpath, String onagerFrom) throws Exception {
    String java21 = Command.of(Command.ROOT.resolve("scripts/java-21-runtime").toString()).run(Duration.ofMinutes(5)).out().strip();
    try (Command.Running main = Command.of(java21 + "/bin/java", "--enable-native-access=ALL-UNNAMED",
        "-cp", classpath.strip(), "clojure.main", "-m", "consumer.main").in(app).start()) {
      Matcher listening = main.await(LISTENING, Duration.ofMinutes(2));
      assertTrue(main.output().contains("onager from " + onagerFrom), main.output());
      HttpResponse<String> response = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(listening.group(1))).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, response.statusCode());
      assertEquals("clojure " + OLDEST_CLOJURE + ", java " + OLDEST_JAVA, response.body());
      HttpResponse<String> failed = HttpClient.newHttpClient().send(
          HttpRequest.newBuilder(URI.create(listening.group(1) + "fail")).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(500, failed.statusCode());
      // No SLF4J provider: the error goes to java.util.logging's console, with its cause.
      main.await(Pattern.compile("^SEVERE: handler for GET /fail failed; the client got 500$"), Duration.ofSeconds(30));
      main.await(Pattern.compile("the consumer's handler failed"), Duration.ofSeconds(30));
      main.send("\n");
      main.await(Pattern.compile("^stopped$"), Duration.ofSeconds(60));
      assertEquals(0, main.waitFor(Duration.ofSeconds(30)), main.output());
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    try (Stream<Path> files = Files.walk(from)) {
      for (Path f : (Iterable<Path>) files::iterator) {
        Path target = to.resolve(from.relativize(f).toString());
        if (Files.isDirectory(f)) Files.createDirectories(target);
        else Files.copy(f, Files.createDirectories(target.getParent()).resolve(target.getFileName()));
      }
    }
  }
}
