(ns onager.sse
  "Server-sent events (the HTML standard's text/event-stream): a response
  whose body stays open and carries events as the server sends them, over
  HTTP/1.1 and HTTP/2, in any handler mode, sync or async.

    (require '[onager.sse :as sse])

    (defn ticks [request]
      (sse/event-stream
       {:on-open (fn [stream]
                   (loop [n (inc (parse-long (or (sse/last-event-id request) \"0\")))]
                     (when (sse/send stream {:id (str n) :data (str \"tick \" n)})
                       (Thread/sleep 1000)
                       (recur (inc n)))))}))

  Each event is written whole and flushed on its own; nothing compresses or
  holds the stream back. A client that reads slowly slows `send` down, as for
  any streamed body; a client that leaves closes the stream, and `send` then
  returns false."
  (:refer-clojure :exclude [send])
  (:require [onager.protocols :as protocols])
  (:import [onager.kernel.sse EventStream]))

(set! *warn-on-reflection* true)

(deftype ^:private EventStreamBody [on-open on-close keep-alive-ms]
  protocols/ResponseBody
  (write-body-to-stream [_ _ out]
    (let [stream (EventStream. out)]
      (try
        (when on-open (on-open stream))
        (.run stream keep-alive-ms)
        (finally
          (.close stream)
          (try
            (when on-close (on-close stream))
            ;; From an async handler the response ends when its body is closed, not when this returns.
            (finally (.close ^java.io.OutputStream out))))))))

(defn event-stream
  "A response map whose body is an event stream. Options:
    :on-open       (fn [stream]) called once the stream is open, on the thread
                   that writes the body (a virtual thread, unless the handler
                   mode is :worker), which may block and send for as long as it
                   likes; or keep `stream` and send from anywhere.
    :on-close      (fn [stream]) called once the stream has ended: closed by
                   `close`, or by the client leaving.
    :keep-alive-ms a comment after this long without an event, so that proxies
                   keep the connection and a client gone without a word is
                   found (default 15000; 0: never).
    :headers       more response headers.
  The stream ends with `close`; `on-open` returning does not end it."
  [{:keys [on-open on-close keep-alive-ms headers] :or {keep-alive-ms 15000}}]
  (when-not (and (int? keep-alive-ms) (<= 0 keep-alive-ms Integer/MAX_VALUE))
    (throw (ex-info (str ":keep-alive-ms must be an integer from 0 to 2147483647, not " (pr-str keep-alive-ms))
                    {:onager/error :invalid-option :key :keep-alive-ms :value keep-alive-ms})))
  {:status 200
   :headers (merge {"Content-Type" "text/event-stream; charset=utf-8"
                    "Cache-Control" "no-cache"
                    ;; nginx buffers responses for its clients unless told not to.
                    "X-Accel-Buffering" "no"}
                   headers)
   :body (->EventStreamBody on-open on-close (long keep-alive-ms))})

(defn send
  "Sends an event on `stream`: a string (the data), or a map of :data (any
  value, sent as its string, a line per line), :event (the type), :id (the
  client's Last-Event-ID when it reconnects) and :retry (milliseconds the
  client waits before reconnecting). Returns true once written and flushed,
  false when the stream is closed (the client has gone). From any thread."
  [^EventStream stream event]
  (if (map? event)
    (let [{:keys [data event id retry]} event]
      (.send stream (some-> id str) (some-> event name) (some-> data str) (when retry (Long/valueOf (long retry)))))
    (.send stream nil nil (str event) nil)))

(defn send-comment
  "Sends a comment line on `stream` (clients ignore it): true once written,
  false when the stream is closed."
  [^EventStream stream text]
  (.comment stream (str text)))

(defn close
  "Ends the stream and its response; `on-close` then runs. From any thread."
  [^EventStream stream]
  (.close stream))

(defn open?
  "True until `stream` is closed, by `close` or by the client leaving."
  [^EventStream stream]
  (.isOpen stream))

(defn last-event-id
  "The Last-Event-ID a reconnecting client sent: the id of the last event it
  got, or nil."
  [request]
  (get-in request [:headers "last-event-id"]))
