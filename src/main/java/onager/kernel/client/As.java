package onager.kernel.client;

import clojure.lang.Keyword;

/** What a response's {@code :body} is made into, the {@code :as} request key. */
enum As {
  /** Text, in the charset the Content-Type names, else UTF-8. */
  STRING,
  BYTES,
  /** A heap {@link java.nio.ByteBuffer}, ready to read. */
  BYTE_BUFFER,
  /** An {@link java.io.InputStream} read as the body arrives, the server held back while it is not read. */
  STREAM,
  /** Parsed JSON with keyword keys, or string keys; an empty body is nil. */
  JSON,
  JSON_STRING_KEYS;

  /** The form a {@code :as} keyword names (clj-http's names too), or null. */
  static As of(Object value) {
    if (!(value instanceof Keyword k)) return null;
    return switch (k.getName()) {
      case "string", "text" -> STRING;
      case "bytes", "byte-array" -> BYTES;
      case "byte-buffer" -> BYTE_BUFFER;
      case "stream" -> STREAM;
      case "json" -> JSON;
      case "json-string-keys" -> JSON_STRING_KEYS;
      default -> null;
    };
  }

  /** True for the forms the whole body is read into before the response is handed over. */
  boolean buffered() {
    return this != STREAM;
  }
}
