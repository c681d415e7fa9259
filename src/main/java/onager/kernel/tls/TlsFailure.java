package onager.kernel.tls;

import clojure.lang.ExceptionInfo;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;
import onager.kernel.log.Reasons;

/**
 * The error start (and a reload) throws when a certificate, a key or a trust
 * store cannot be used: an ex-info whose message names the option and the file,
 * as in "TLS: :ssl-key /etc/tls/key.pem: it does not match the certificate of
 * :ssl-cert /etc/tls/cert.pem", with {:onager/error :invalid-tls :key :file}.
 */
final class TlsFailure {
  private TlsFailure() {}

  private static final Keyword ERROR = Keyword.intern("onager", "error");
  private static final Keyword INVALID_TLS = Keyword.intern("invalid-tls");
  private static final Keyword KEY = Keyword.intern("key");
  private static final Keyword FILE = Keyword.intern("file");

  /**
   * {@code where} is the option's place: "" in the top-level options, or
   * {@code :sni "name" } for a server name's; {@code option} its name, as
   * {@code "ssl-cert"}; {@code file} its file or null; {@code why} what is wrong.
   */
  static ExceptionInfo of(String where, String option, String file, String why, Throwable cause) {
    String named = where + ":" + option + (file == null ? "" : " " + file);
    return new ExceptionInfo("TLS: " + named + ": " + why,
        new PersistentArrayMap(new Object[] {ERROR, INVALID_TLS, KEY, Keyword.intern(option), FILE, file}),
        cause);
  }

  /** The innermost message of {@code t}: the reason a library gave. */
  static String reason(Throwable t) {
    return Reasons.innermost(t);
  }
}
