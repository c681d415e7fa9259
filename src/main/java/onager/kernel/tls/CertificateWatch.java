package onager.kernel.tls;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import onager.kernel.log.Logs;

/**
 * Reloads the certificates when their files change ({@code :ssl-reload-on-change?}):
 * every second, on a thread of its own (never an event loop), it compares each
 * file's modification time and size with what it saw last. Polling, not a
 * WatchService: certificate tools and Kubernetes replace files by renaming
 * them, or a symbolic link above them, which a poll of the path sees alike.
 * A half-written pair (the new certificate, the old key) fails to load, is
 * logged, and is tried again when the files change once more.
 */
public final class CertificateWatch implements Closeable {
  static final long PERIOD_MS = 1000;

  private final Certificates certificates;
  private final List<Path> files;
  private final ScheduledExecutorService timer;
  private List<Object> seen;

  private CertificateWatch(Certificates certificates) {
    this.certificates = certificates;
    this.files = certificates.files().stream().map(Path::of).toList();
    this.seen = stamps();
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "onager-tls-reload");
      t.setDaemon(true);
      return t;
    });
  }

  /** Starts watching the files of {@code certificates}. */
  public static CertificateWatch start(Certificates certificates) {
    CertificateWatch w = new CertificateWatch(certificates);
    w.timer.scheduleWithFixedDelay(w::check, PERIOD_MS, PERIOD_MS, TimeUnit.MILLISECONDS);
    return w;
  }

  private void check() {
    List<Object> now = stamps();
    if (now.equals(seen)) return;
    seen = now;
    try {
      certificates.reload();
    } catch (RuntimeException e) {
      Logs.SERVER.warn("TLS certificates changed but were not reloaded (the ones in use stay): {}", e.getMessage());
    }
  }

  // Each file's modification time and size, or its absence (a file replaced in two steps).
  private List<Object> stamps() {
    return files.stream().map(f -> {
      try {
        BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
        return (Object) List.of(a.lastModifiedTime(), a.size(), Objects.toString(a.fileKey()));
      } catch (IOException absent) {
        return (Object) "absent";
      }
    }).toList();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
