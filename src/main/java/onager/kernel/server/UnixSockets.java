package onager.kernel.server;

import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import onager.kernel.log.Logs;

/**
 * The file of the Unix domain socket a server listens on (:unix-socket). A
 * process that stops without closing its socket leaves the file behind, and
 * binding the path again then fails, so a socket file that no process accepts
 * on is removed before binding; anything else at the path is left alone.
 */
final class UnixSockets {
  private UnixSockets() {}

  // The file type bits of st_mode, and a socket's (POSIX <sys/stat.h>).
  private static final int S_IFMT = 0170000;
  private static final int S_IFSOCK = 0140000;

  /**
   * Makes {@code path} free to bind: removes a stale socket file there. Throws
   * the :cannot-listen ex-info when a process listens on it, or when the path
   * is a file of another kind.
   */
  static void clearStale(String path) {
    Path p = Path.of(path);
    if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) return;
    if (!isSocket(p)) {
      throw ListenFailure.ofSocket(path, "the path exists and is not a socket (only a stale socket is removed)", null);
    }
    try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      probe.connect(UnixDomainSocketAddress.of(p));
    } catch (ConnectException refused) {
      // No process accepts on it: the socket of one that is gone.
      try {
        Files.deleteIfExists(p);
        Logs.SERVER.info("removed the stale socket file {}", path);
      } catch (IOException e) {
        throw ListenFailure.ofSocket(path, "cannot remove its stale socket file: " + ListenFailure.reason(e), e);
      }
      return;
    } catch (IOException e) {
      // Not ours to judge (no permission, say): binding will say why it fails.
      return;
    }
    throw ListenFailure.ofSocket(path, "another process listens on it", null);
  }

  /** Removes the socket file {@code path} once the server has closed it. */
  static void remove(String path) {
    Path p = Path.of(path);
    try {
      if (Files.exists(p, LinkOption.NOFOLLOW_LINKS) && isSocket(p)) Files.delete(p);
    } catch (IOException e) {
      Logs.SERVER.warn("could not remove the socket file {}: {}", path, ListenFailure.reason(e));
    }
  }

  private static boolean isSocket(Path p) {
    try {
      return ((Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & S_IFMT) == S_IFSOCK;
    } catch (IOException | UnsupportedOperationException e) {
      return false;
    }
  }
}
