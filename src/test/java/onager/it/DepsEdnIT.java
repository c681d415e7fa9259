package onager.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * deps.edn lists the libraries again (tools.deps reads no pom.xml of a deps.edn project):
 * resolved by tools.deps, they are this build's runtime libraries, at the same versions.
 */
class DepsEdnIT {
  @Test
  void depsEdnResolvesToThePomsRuntimeLibraries() {
    Command.Result r = Libraries.resolveWithToolsDeps(Command.ROOT, "");
    assertEquals(0, r.exit(), r.describe());
    List<String> cp = Libraries.entries(r.out());
    assertEquals(List.of(Command.ROOT.resolve("src/main/clojure").toString(), Command.ROOT.resolve("target/classes").toString()),
        cp.subList(0, 2), "deps.edn's paths: the Clojure sources and the compiled kernel");
    Libraries.assertSameJars(Libraries.ofThisBuild(), Libraries.jars(r.out()),
        "deps.edn's libraries against pom.xml's runtime ones (mvn dependency:tree shows the POM's)");
  }
}
