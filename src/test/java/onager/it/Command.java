package onager.it;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A command the integration tests run, as a user would in a shell: in a directory, with
 * changes to the environment, its output kept for the assertions and for failure messages.
 */
final class Command {
  /** This repository: Failsafe runs the tests in it. */
  static final Path ROOT = Path.of("").toAbsolutePath();

  private final List<String> args;
  private Path dir = ROOT;
  private final Map<String, String> env = new LinkedHashMap<>();

  private Command(List<String> args) {
    this.args = args;
  }

  static Command of(String... args) {
    return new Command(List.of(args));
  }

  static Command of(List<String> args) {
    return new Command(List.copyOf(args));
  }

  Command in(Path directory) {
    dir = directory;
    return this;
  }

  /** Sets a variable in the command's environment; {@code null} removes it. */
  Command env(String name, String value) {
    env.put(name, value);
    return this;
  }

  /** What a finished command printed and its exit status. */
  record Result(int exit, String out, String err) {
    String describe() {
      return "exit " + exit + "\n--- stdout\n" + out + "\n--- stderr\n" + err;
    }
  }

  /** Runs the command to its end, with nothing on its standard input. */
  Result run(Duration timeout) {
    try {
      Path out = Files.createTempFile("onager-it", ".out");
      Path err = Files.createTempFile("onager-it", ".err");
      try {
        Process p = builder().redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
            .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
          p.destroyForcibly().waitFor();
          throw new AssertionError("timed out after " + timeout + ": " + args + "\n" + new Result(-1, read(out), read(err)).describe());
        }
        return new Result(p.exitValue(), read(out), read(err));
      } finally {
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** Starts the command, its standard input a pipe the test writes to, its output read line by line. */
  Running start() {
    try {
      return new Running(builder().redirectErrorStream(true).start(), args);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private ProcessBuilder builder() {
    ProcessBuilder b = new ProcessBuilder(args).directory(dir.toFile());
    env.forEach((k, v) -> {
      if (v == null) b.environment().remove(k);
      else b.environment().put(k, v);
    });
    return b;
  }

  private static String read(Path file) throws IOException {
    return Files.readString(file, StandardCharsets.UTF_8);
  }

  /** A command still running: stdout and stderr as one stream of lines. */
  static final class Running implements AutoCloseable {
    private final Process process;
    private final List<String> args;
    private final List<String> lines = new ArrayList<>();
    private final Thread reader;

    private Running(Process process, List<String> args) {
      this.process = process;
      this.args = args;
      this.reader = Thread.ofPlatform().daemon().start(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            synchronized (lines) {
              lines.add(line);
              lines.notifyAll();
            }
          }
        } catch (IOException e) {
          // The process ended; what it printed before is kept.
        }
      });
    }

    /** Waits for a line that matches, and returns its match; fails with the output so far otherwise. */
    Matcher await(Pattern pattern, Duration timeout) throws InterruptedException {
      long deadline = System.nanoTime() + timeout.toNanos();
      int next = 0;
      synchronized (lines) {
        while (true) {
          for (; next < lines.size(); next++) {
            Matcher m = pattern.matcher(lines.get(next));
            if (m.find()) return m;
          }
          long left = deadline - System.nanoTime();
          if (left <= 0 || (!process.isAlive() && !reader.isAlive())) {
            throw new AssertionError("no line matching " + pattern + " from " + args + ":\n" + String.join("\n", lines));
          }
          TimeUnit.NANOSECONDS.timedWait(lines, Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)));
        }
      }
    }

    void send(String text) throws IOException {
      OutputStream in = process.getOutputStream();
      in.write(text.getBytes(StandardCharsets.UTF_8));
      in.flush();
    }

    void closeInput() throws IOException {
      process.getOutputStream().close();
    }

    /** Waits for the end of the process and of its output, and returns its exit status. */
    int waitFor(Duration timeout) throws InterruptedException {
      if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        throw new AssertionError(args + " did not end in " + timeout + ":\n" + output());
      }
      reader.join(timeout.toMillis());
      return process.exitValue();
    }

    String output() {
      synchronized (lines) {
        return String.join("\n", lines);
      }
    }

    @Override
    public void close() {
      if (process.isAlive()) {
        process.destroy();
        try {
          if (!process.waitFor(20, TimeUnit.SECONDS)) process.destroyForcibly().waitFor();
        } catch (InterruptedException e) {
          process.destroyForcibly();
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
