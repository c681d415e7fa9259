package onager.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The REPL of `make repl` (scripts/repl): with nREPL on NREPL_CP (Debian's, as make repl
 * names it), an nREPL server an editor can connect to; without, the REPL alone.
 */
class ReplIT {
  private static final String DEBIAN_NREPL = "/usr/share/java/nrepl.jar";
  private static final Pattern STARTED = Pattern.compile("nREPL server started on port (\\d+) on host 127\\.0\\.0\\.1 - nrepl://127\\.0\\.0\\.1:(\\d+)");

  @TempDir
  Path project;

  @Test
  void nreplEvaluatesOverItsSocketAndTellsItsPort() throws Exception {
    assertTrue(Files.isRegularFile(Path.of(DEBIAN_NREPL)), "scripts/install-tools test installs libnrepl-clojure");
    try (Command.Running repl = repl(DEBIAN_NREPL).start()) {
      Matcher started = repl.await(STARTED, Duration.ofMinutes(2));
      int port = Integer.parseInt(started.group(1));
      assertEquals(started.group(1), started.group(2));
      assertEquals(String.valueOf(port), Files.readString(project.resolve(".nrepl-port")), "the port file editors read");

      try (Socket socket = new Socket("127.0.0.1", port)) {
        socket.setSoTimeout(60_000);
        assertTrue(eval(socket, "1", "(+ 1 2)").contains("5:value1:3"));
        // Debian's nrepl.jar names Debian's Clojure in its manifest: that jar must stay off the class path.
        String rt = "(count (enumeration-seq (.getResources (ClassLoader/getSystemClassLoader) \"clojure/lang/RT.class\")))";
        assertTrue(eval(socket, "2", rt).contains("5:value1:1"), "one Clojure on the class path");
      }
      repl.closeInput();
      assertEquals(0, repl.waitFor(Duration.ofSeconds(60)), repl.output());
      assertFalse(Files.exists(project.resolve(".nrepl-port")), "the port file goes with the server");
    }
  }

  @Test
  void theUsersOwnJarsOnNreplCpAndCiderNreplsHandler() throws Exception {
    // cider-nrepl is on Clojars only: a stand-in with its entry point, in a directory of the user's.
    Path cider = Files.createDirectories(project.resolve("stand-in/cider"));
    Files.writeString(cider.resolve("nrepl.clj"), """
        (ns cider.nrepl
          (:require [nrepl.middleware :refer [set-descriptor!]]
                    [nrepl.misc :refer [response-for]]
                    [nrepl.server :as server]
                    [nrepl.transport :as transport]))

        (defn wrap-stand-in [handler]
          (fn [{:keys [op] :as msg}]
            (if (= op "stand-in")
              (transport/send (:transport msg) (response-for msg :status :done :stand-in "yes"))
              (handler msg))))

        (set-descriptor! #'wrap-stand-in {:handles {"stand-in" {}}})

        (def cider-nrepl-handler (server/default-handler #'wrap-stand-in))
        """);
    try (Command.Running repl = repl(DEBIAN_NREPL + ":" + project.resolve("stand-in")).start()) {
      int port = Integer.parseInt(repl.await(STARTED, Duration.ofMinutes(2)).group(1));
      repl.await(Pattern.compile("^with cider-nrepl's middleware$"), Duration.ofSeconds(10));
      try (Socket socket = new Socket("127.0.0.1", port)) {
        socket.setSoTimeout(60_000);
        socket.getOutputStream().write("d2:id1:12:op8:stand-ine".getBytes(StandardCharsets.UTF_8));
        assertTrue(replies(socket).contains("8:stand-in3:yes"), "the server runs cider.nrepl's handler");
        assertTrue(eval(socket, "2", "(+ 1 2)").contains("5:value1:3"));
      }
      repl.closeInput();
      assertEquals(0, repl.waitFor(Duration.ofSeconds(60)), repl.output());
    }
  }

  @Test
  void withoutNreplItIsThePlainRepl() throws Exception {
    try (Command.Running repl = repl("").start()) {
      repl.send("(println (+ 1 2) (find-ns 'nrepl.server))\n");
      repl.await(Pattern.compile("3 nil"), Duration.ofMinutes(2));
      repl.closeInput();
      assertEquals(0, repl.waitFor(Duration.ofSeconds(60)), repl.output());
      assertFalse(repl.output().contains("nREPL"), repl.output());
      assertFalse(Files.exists(project.resolve(".nrepl-port")));
    }
  }

  /** scripts/repl as make repl runs it, with Onager's runtime class path, in a project directory of its own. */
  private Command repl(String nreplClasspath) throws IOException {
    String cp = Command.ROOT.resolve("target/classes") + ":"
        + Files.readString(Path.of(System.getProperty("onager.it.runtime-classpath"))).strip();
    return Command.of(Command.ROOT.resolve("scripts/repl").toString(), cp, "--enable-native-access=ALL-UNNAMED")
        .in(project).env("NREPL_CP", nreplClasspath).env("NREPL_PORT", null);
  }

  /** Sends an eval op in bencode and returns the replies up to the one whose status is done. */
  private static String eval(Socket socket, String id, String code) throws IOException {
    String message = "d4:code" + bytes(code) + ":" + code + "2:id" + id.length() + ":" + id + "2:op4:evale";
    socket.getOutputStream().write(message.getBytes(StandardCharsets.UTF_8));
    return replies(socket);
  }

  /** The replies to the last request, up to the one whose status is done. */
  private static String replies(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream replies = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    while (!replies.toString(StandardCharsets.UTF_8).contains("6:statusl4:donee")) {
      int n = in.read(buf);
      if (n < 0) break;
      replies.write(buf, 0, n);
    }
    return replies.toString(StandardCharsets.UTF_8);
  }

  private static int bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8).length;
  }
}
