package onager.it;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Plain Maven on a JDK older than the one Onager builds with stops at once, saying which it needs. */
class BuildJdkIT {
  private static final int OLDEST = Integer.parseInt(System.getProperty("java.oldest.version"));
  private static final Path JVMS = Path.of("/usr/lib/jvm");

  @Test
  void mavenOnAnOlderJdkSaysWhichJdkItNeeds() throws IOException {
    Optional<Path> old = olderJdk();
    if (old.isEmpty()) {
      String why = "no JDK older than " + OLDEST + " under " + JVMS + ": the check of Maven on one was not run";
      System.out.println(why);
      Assumptions.abort(why);
    }
    Path home = old.get();
    // MAVEN_OPTS goes: make's holds an option that only JDK 24+ knows.
    Command.Result r = Command.of("mvn", "-B", "-o", "-Dstyle.color=never", "validate")
        .env("JAVA_HOME", home.toString())
        .env("PATH", home.resolve("bin") + ":" + System.getenv("PATH"))
        .env("MAVEN_OPTS", null)
        .run(Duration.ofMinutes(3));
    assertNotEquals(0, r.exit(), r.describe());
    assertTrue(r.out().contains("Onager builds with JDK " + OLDEST + " or newer, and this Maven runs on Java "), r.describe());
    assertTrue(r.out().contains("export JAVA_HOME=$(scripts/java-home)"), r.describe());
    assertFalse(r.out().contains("UnsupportedClassVersionError"), r.describe());
  }

  /** A JDK under /usr/lib/jvm older than the oldest Onager builds with, by its release file. */
  private static Optional<Path> olderJdk() throws IOException {
    if (!Files.isDirectory(JVMS)) return Optional.empty();
    Pattern version = Pattern.compile("(?m)^JAVA_VERSION=\"(?:1\\.)?(\\d+)");
    try (Stream<Path> homes = Files.list(JVMS)) {
      return homes.filter(h -> Files.isExecutable(h.resolve("bin/java")) && Files.isRegularFile(h.resolve("release")))
          .filter(h -> {
            try {
              Matcher m = version.matcher(Files.readString(h.resolve("release")));
              return m.find() && Integer.parseInt(m.group(1)) < OLDEST;
            } catch (IOException e) {
              return false;
            }
          })
          .sorted().findFirst();
    }
  }
}
