package onager.kernel.server;

import clojure.lang.ExceptionInfo;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;

/** The error {@link OnagerServer#start} throws when the server does not come to listen. */
final class ListenFailure {
  private ListenFailure() {}

  private static final Keyword ERROR = Keyword.intern("onager", "error");
  private static final Keyword CANNOT_LISTEN = Keyword.intern("cannot-listen");
  private static final Keyword HOST = Keyword.intern("host");
  private static final Keyword PORT = Keyword.intern("port");
  private static final Keyword UNIX_SOCKET = Keyword.intern("unix-socket");

  /**
   * An ex-info saying where and why, as in "cannot listen on 127.0.0.1:8080:
   * address already in use", with {:onager/error :cannot-listen :host :port}.
   * {@code failure} comes as a suppressed exception, not as the cause:
   * clojure.main reports an error's innermost cause, which would be Netty's
   * "bind(..) failed with error(-98)" again.
   */
  static ExceptionInfo of(String host, int port, Throwable failure) {
    ExceptionInfo e = new ExceptionInfo("cannot listen on " + host + ":" + port + ": " + reason(failure),
        new PersistentArrayMap(new Object[] {ERROR, CANNOT_LISTEN, HOST, host, PORT, port}));
    e.addSuppressed(failure);
    return e;
  }

  /**
   * The same for the Unix domain socket {@code path}, as in "cannot listen on
   * unix:/run/app.sock: address already in use", with {:onager/error
   * :cannot-listen :unix-socket path}; {@code failure} may be null when
   * {@code why} says it all.
   */
  static ExceptionInfo ofSocket(String path, String why, Throwable failure) {
    ExceptionInfo e = new ExceptionInfo("cannot listen on unix:" + path + ": " + why,
        new PersistentArrayMap(new Object[] {ERROR, CANNOT_LISTEN, UNIX_SOCKET, path}));
    if (failure != null) e.addSuppressed(failure);
    return e;
  }

  // The system's words, without the call and error number Netty puts before them:
  // "bind(..) failed with error(-98): Address already in use" says "address already in use".
  static String reason(Throwable failure) {
    if (failure == null) return "unknown";
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) root = root.getCause();
    String message = root.getMessage();
    if (message == null || message.isBlank()) return root.getClass().getSimpleName();
    String words = message.substring(message.lastIndexOf(": ") + 1).strip();
    if (words.isEmpty()) words = message;
    return Character.toLowerCase(words.charAt(0)) + words.substring(1);
  }
}
