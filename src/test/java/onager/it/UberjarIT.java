package onager.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.jar.JarFile;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * `make uberjar` builds the demo as one jar that `java -jar` runs from any directory, its
 * static folder inside it, through onager.kernel.launch.Launcher; `make aot-cache` writes a
 * JDK AOT cache for it that a JVM started with the same flags uses (JDK 25+).
 */
class UberjarIT {
  private static final Path UBERJAR = Command.ROOT.resolve("target/onager-demo.jar");
  private static final Path AOT_CACHE = Command.ROOT.resolve("target/onager-demo.aot");
  private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+/)");
  private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();

  @TempDir
  Path elsewhere;

  @Test
  void javaJarServesTheDemoAndItsStaticFilesFromTheJar() throws Exception {
    make("uberjar");
    try (JarFile jar = new JarFile(UBERJAR.toFile())) {
      assertEquals("onager.kernel.launch.Launcher", jar.getManifest().getMainAttributes().getValue("Main-Class"));
      assertEquals("onager.demo", jar.getManifest().getMainAttributes().getValue("Onager-Main"));
      assertTrue(jar.getEntry("onager/demo__init.class") != null && jar.getEntry("onager/server__init.class") != null,
          "the demo and the API compiled ahead of time");
      assertTrue(jar.getEntry("io/vertx/core/Vertx.class") != null && jar.getEntry("clojure/lang/RT.class") != null,
          "the libraries merged in");
      assertTrue(jar.stream().noneMatch(e -> e.getName().startsWith("onager/") && e.getName().endsWith(".clj")),
          "no Clojure source of ours, which a start could compile instead of loading its class");
      // Every service every library names, in one file per service (Netty's, Jackson's, a logging binding's).
      for (String library : Libraries.entries(Files.readString(Path.of(System.getProperty("onager.it.runtime-classpath"))).strip())) {
        try (JarFile lib = new JarFile(library)) {
          for (var e : lib.stream().filter(e -> e.getName().startsWith("META-INF/services/") && !e.isDirectory()).toList()) {
            var merged = jar.getEntry(e.getName());
            assertTrue(merged != null, e.getName() + " of " + library);
            String all = new String(jar.getInputStream(merged).readAllBytes(), StandardCharsets.UTF_8);
            new String(lib.getInputStream(e).readAllBytes(), StandardCharsets.UTF_8).lines()
                .filter(l -> !l.isBlank() && !l.startsWith("#"))
                .forEach(l -> assertTrue(all.lines().anyMatch(l.strip()::equals), l + " of " + library + " in " + e.getName()));
          }
        }
      }
    }

    // In a directory without examples/static: the static files must come from the jar. No flag:
    // the manifest enables Netty's native access, so the JVM has nothing to warn about.
    Path classes = elsewhere.resolve("classes.log");
    try (Command.Running demo = Command.of(JAVA, "-Xlog:class+load=info:file=" + classes, "-jar", UBERJAR.toString(),
        "--port", "0").in(elsewhere).start()) {
      URI base = URI.create(demo.await(LISTENING, Duration.ofMinutes(2)).group(1));
      HttpClient client = HttpClient.newHttpClient();
      HttpResponse<String> plain = get(client, base.resolve("/plaintext"));
      assertEquals(200, plain.statusCode());
      assertEquals("Hello, World!", plain.body());

      HttpResponse<String> page = get(client, base.resolve("/static/index.html"));
      assertEquals(200, page.statusCode());
      assertTrue(page.body().contains("<h1>Onager demo</h1>"), page.body());
      assertEquals("text/html", page.headers().firstValue("content-type").orElse(null));
      assertEquals(String.valueOf(Files.size(Command.ROOT.resolve("examples/static/index.html"))),
          page.headers().firstValue("content-length").orElse(null));

      for (String path : List.of("/static/", "/static/missing.html", "/static/../onager/demo__init.class",
          "/static/../META-INF/MANIFEST.MF")) {
        assertEquals(404, rawStatus(base.getPort(), path), path);
      }
      assertFalse(demo.output().contains("WARNING"), demo.output());
      assertFalse(demo.output().contains("\tat "), demo.output());

      // Its logs go to java.util.logging through SLF4J's provider, one line a record: no SLF4J
      // warning about a missing provider, and a failing handler's record then its stack trace.
      assertEquals(500, get(client, base.resolve("/fail")).statusCode());
      demo.await(Pattern.compile("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} SEVERE +onager\\.server\\.handler handler for GET /fail failed"),
          Duration.ofSeconds(30));
      assertFalse(demo.output().contains("SLF4J"), demo.output());
    }
    String loaded = Files.readString(classes);
    assertTrue(loaded.contains("onager.kernel.launch.Launcher "), "the Main-Class ran");
    assertFalse(loaded.contains("clojure.core.server__init"), "the launcher leaves the socket-server set-up out");
    assertFalse(loaded.contains("jdk.jfr.internal.MetadataRepository "),
        "with Netty's JFR events off, serving builds no JFR metadata");
  }

  @Test
  void theUberjarRunsOnTheOldestJdk() throws Exception {
    make("uberjar");
    String oldest = Command.of(Command.ROOT.resolve("scripts/java-21-runtime").toString()).run(Duration.ofMinutes(5)).out().strip();
    try (Command.Running demo = Command.of(oldest + "/bin/java", "-jar", UBERJAR.toString(), "--port", "0")
        .in(elsewhere).start()) {
      URI base = URI.create(demo.await(LISTENING, Duration.ofMinutes(2)).group(1));
      assertEquals("Hello, World!", get(HttpClient.newHttpClient(), base.resolve("/plaintext")).body());
    }
  }

  @Test
  void aSocketReplStartsWhenAPropertyAsksForOne() throws Exception {
    make("uberjar");
    int replPort;
    try (ServerSocket free = new ServerSocket(0)) {
      replPort = free.getLocalPort();
    }
    try (Command.Running demo = Command.of(JAVA, "-Dclojure.server.repl={:port " + replPort + " :accept clojure.core.server/repl}",
        "-jar", UBERJAR.toString(), "--port", "0").in(elsewhere).start()) {
      demo.await(LISTENING, Duration.ofMinutes(2));
      try (Socket repl = new Socket("127.0.0.1", replPort)) {
        repl.setSoTimeout(30_000);
        repl.getOutputStream().write("(+ 1 2)\n:repl/quit\n".getBytes(StandardCharsets.UTF_8));
        String out = new String(repl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(out.contains("3"), out);
      }
    }
  }

  @Test
  void theAotCacheIsWrittenAndUsed() throws Exception {
    int feature = Runtime.version().feature();
    if (feature < 25) {
      String why = "JDK " + feature + " has no AOT cache (JDK 25+): make aot-cache was not checked";
      System.out.println(why);
      Assumptions.abort(why);
    }
    Files.deleteIfExists(AOT_CACHE);
    make("aot-cache");
    assertTrue(Files.size(AOT_CACHE) > 0);

    // -XX:AOTMode=on: a JVM that cannot use the cache (another JDK, other flags, another jar) fails.
    try (Command.Running demo = Command.of(JAVA, "--enable-native-access=ALL-UNNAMED", "-XX:AOTMode=on",
            "-XX:AOTCache=" + AOT_CACHE, "-Xlog:aot=info", "-jar", UBERJAR.toString(), "--port", "0")
        .in(elsewhere).start()) {
      URI base = URI.create(demo.await(LISTENING, Duration.ofMinutes(2)).group(1));
      HttpResponse<String> json = get(HttpClient.newHttpClient(), base.resolve("/json"));
      assertEquals(200, json.statusCode());
      assertEquals("{\"message\":\"Hello, World!\"}", json.body());
      assertTrue(demo.output().contains("Using AOT-linked classes: true"), demo.output());
    }
  }

  /** `make -s TARGET` in the repository, as a user types it (not as a sub-make of make test). */
  private void make(String target) {
    Command.Result r = Command.of("make", "-s", "-C", Command.ROOT.toString(), target).in(elsewhere)
        .env("MAKEFLAGS", null).env("MFLAGS", null).env("MAKELEVEL", null)
        .run(Duration.ofMinutes(8));
    assertEquals(0, r.exit(), r.describe());
  }

  private static HttpResponse<String> get(HttpClient client, URI uri) throws IOException, InterruptedException {
    return client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The status of GET `path` sent as it is: HttpClient would resolve its dot segments first. */
  private static int rawStatus(int port, String path) throws IOException {
    try (Socket s = new Socket("127.0.0.1", port)) {
      s.setSoTimeout(30_000);
      s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.ISO_8859_1));
      String response = new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
      return Integer.parseInt(response.split(" ", 3)[1]);
    }
  }
}
