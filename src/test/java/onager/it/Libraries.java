package onager.it;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The libraries on a class path, each named as its jar in a Maven repository is,
 * artifact-version[-classifier].jar: the same name whoever resolved it.
 */
final class Libraries {
  private Libraries() {}

  /**
   * Resolves a deps.edn project with scripts/deps-classpath (tools.deps as a library, in a JVM of
   * its own), preparing the libs that need it; {@code javaOpts} go to that JVM.
   */
  static Command.Result resolveWithToolsDeps(Path project, String javaOpts) {
    return Command.of(Command.ROOT.resolve("scripts/deps-classpath").toString(), project.toString())
        .env("DEPS_JAVA_OPTS", javaOpts).run(Duration.ofMinutes(5));
  }

  /** The entries of a class path, in order. */
  static List<String> entries(String classpath) {
    return Arrays.stream(classpath.strip().split(File.pathSeparator)).filter(s -> !s.isEmpty()).toList();
  }

  /** The jars of a class path, by name. */
  static Set<String> jars(String classpath) {
    return entries(classpath).stream().filter(e -> e.endsWith(".jar"))
        .map(e -> Path.of(e).getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
  }

  /** The libraries this build runs with: its runtime class path, which every consumer must get. */
  static Set<String> ofThisBuild() {
    try {
      return jars(Files.readString(Path.of(System.getProperty("onager.it.runtime-classpath"))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The jar names of a `mvn dependency:tree` output file, below its root (the project itself). */
  static Set<String> ofMavenTree(String tree) {
    // "+- group:artifact:type[:classifier]:version:scope", under tree-drawing characters.
    Pattern line = Pattern.compile("^[|+\\\\\\- ]+([^:\\s]+):([^:\\s]+):jar(?::([^:\\s]+))?:([^:\\s]+):(compile|runtime)$");
    Set<String> jars = new TreeSet<>();
    for (String l : tree.split("\n")) {
      Matcher m = line.matcher(l);
      if (m.find()) jars.add(m.group(2) + "-" + m.group(4) + (m.group(3) == null ? "" : "-" + m.group(3)) + ".jar");
    }
    return jars;
  }

  /** Fails, naming the jars that differ, unless the two sets are equal. */
  static void assertSameJars(Set<String> expected, Set<String> actual, String what) {
    Set<String> missing = new TreeSet<>(expected);
    missing.removeAll(actual);
    Set<String> extra = new TreeSet<>(actual);
    extra.removeAll(expected);
    if (!missing.isEmpty() || !extra.isEmpty()) {
      throw new AssertionError(what + ": missing " + missing + ", not expected " + extra);
    }
  }

  /** Clojure and the two libraries it brings, whose versions follow the Clojure a project picks. */
  static Set<String> withoutClojure(Set<String> jars) {
    return jars.stream().filter(j -> !j.matches("(clojure|spec\\.alpha|core\\.specs\\.alpha)-\\d.*"))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  /** The versions of the jars whose artifact names pass the test. */
  static Set<String> versions(Set<String> jars, Predicate<String> artifact) {
    // artifact-version[-classifier].jar, where a classifier starts with a letter.
    Pattern name = Pattern.compile("^(.+?)-(\\d[^-]*)(?:-[a-z].*)?\\.jar$");
    Set<String> versions = new TreeSet<>();
    for (String jar : jars) {
      Matcher m = name.matcher(jar);
      if (m.matches() && artifact.test(m.group(1))) versions.add(m.group(2));
    }
    return versions;
  }
}
