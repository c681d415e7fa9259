package onager.kernel.router;

import clojure.lang.ExceptionInfo;
import clojure.lang.Keyword;
import clojure.lang.PersistentArrayMap;

/** The ex-info a route table that cannot work fails with, at start-up. */
final class RouteError {
  private RouteError() {}

  private static final Keyword ERROR = Keyword.intern("onager", "error");

  /** {@code kv}: more keys and values for the ex-info's data. */
  static ExceptionInfo of(String kind, String message, Object... kv) {
    Object[] data = new Object[kv.length + 2];
    data[0] = ERROR;
    data[1] = Keyword.intern(kind);
    System.arraycopy(kv, 0, data, 2, kv.length);
    return new ExceptionInfo(message, PersistentArrayMap.createAsIfByAssoc(data));
  }
}
