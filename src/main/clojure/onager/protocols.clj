(ns onager.protocols
  "Extension points of the server.

  Response bodies: the kernel writes nil, String, byte[], ByteBuffer, File, Path,
  InputStream and ISeq itself. Any other body type is written through
  `ResponseBody`, or through `ring.core.protocols/StreamableResponseBody` when
  ring-core is loaded and the type extends that instead, so types written for
  other Ring servers work unchanged.")

(set! *warn-on-reflection* true)

(defprotocol ResponseBody
  "A response body type the server writes by calling `write-body-to-stream`."
  (write-body-to-stream [body response output-stream]
    "Writes `body` to `output-stream` (a java.io.OutputStream) for `response`
    (the Ring response map). It runs on a thread that may block. With a sync
    handler the response ends when this returns; with an async handler it ends
    when the stream is closed, so the body may be written later, from any
    thread (server-sent events, for instance). Same contract as
    ring.core.protocols/StreamableResponseBody."))

(defn- ring-writer
  "Ring's write-body-to-stream when ring-core is loaded and extends to `body`."
  [body]
  (when-let [ns (find-ns 'ring.core.protocols)]
    (let [protocol @(ns-resolve ns 'StreamableResponseBody)
          write (ns-resolve ns 'write-body-to-stream)]
      (when (satisfies? protocol body) write))))

(defn write-body
  "The kernel's fallback for body types it does not write itself; not for
  handlers to call."
  [body response output-stream]
  (if (satisfies? ResponseBody body)
    (write-body-to-stream body response output-stream)
    (if-let [write (ring-writer body)]
      (write body response output-stream)
      (throw (ex-info (str "Cannot write a response :body of type " (.getName (class body))
                           ": use a String, byte[], InputStream, File, Path, ByteBuffer or seq, "
                           "or extend onager.protocols/ResponseBody to it.")
                      {:onager/error :invalid-body :type (class body)})))))
