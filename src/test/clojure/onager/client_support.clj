(ns onager.client-support
  "What the client tests share: clients closed after each test, and raw
  servers on 127.0.0.1 that answer with whatever bytes a test writes (the
  hostile servers: silent, endless, closing mid-body)."
  (:require [onager.client :as client])
  (:import [java.io InputStream OutputStream]
           [java.net InetAddress ServerSocket Socket SocketException]
           [java.nio.charset StandardCharsets]
           [java.util.concurrent.atomic AtomicInteger]))

(set! *warn-on-reflection* true)

(defmacro with-client
  "Runs `body` with `sym` bound to a client made with `opts`, closed after."
  [[sym opts] & body]
  `(let [~sym (client/client ~opts)]
     (try ~@body (finally (client/close ~sym)))))

(defn read-head
  "Reads a request head from `in` up to its blank line; nil when the
  connection ends first. Returns the head as text."
  [^InputStream in]
  (let [sb (StringBuilder.)]
    (loop []
      (let [b (.read in)]
        (cond
          (neg? b) nil
          :else (do (.append sb (char b))
                    (if (.endsWith (str sb) "\r\n\r\n") (str sb) (recur))))))))

(defn write!
  "Writes `text` (ISO-8859-1) to `out` and flushes."
  [^OutputStream out ^String text]
  (.write out (.getBytes text StandardCharsets/ISO_8859_1))
  (.flush out))

(defn raw-server
  "A server on a free port of 127.0.0.1 that calls `(serve socket n)` on a
  virtual thread for each connection (n counts them from 1). Returns
  {:port p :connections AtomicInteger :close (fn [])}."
  [serve]
  (let [ss (ServerSocket. 0 50 (InetAddress/getByName "127.0.0.1"))
        count (AtomicInteger.)
        sockets (atom #{})]
    (Thread/startVirtualThread
     (fn []
       (try
         (loop []
           (let [^Socket s (.accept ss)
                 n (.incrementAndGet count)]
             (swap! sockets conj s)
             (Thread/startVirtualThread
              (fn [] (try (serve s n)
                          (catch SocketException _ nil)
                          (finally (.close s)))))
             (recur)))
         (catch SocketException _ nil))))
    {:port (.getLocalPort ss)
     :connections count
     :close (fn [] (.close ss) (run! #(.close ^Socket %) @sockets))}))

(defmacro with-raw-server
  "Runs `body` with `sym` bound to a `raw-server` of `serve`, closed after."
  [[sym serve] & body]
  `(let [~sym (raw-server ~serve)]
     (try ~@body (finally ((:close ~sym))))))

(defn free-port
  "A TCP port nothing listens on now."
  []
  (with-open [s (ServerSocket. 0)] (.getLocalPort s)))

(defn await-listening
  "Waits until something accepts connections on 127.0.0.1:`port`, or throws
  with `(why)` when `process` ends or 30 s pass first."
  [port ^Process process why]
  (let [deadline (+ (System/currentTimeMillis) 30000)]
    (loop []
      (when-not (try (with-open [_ (Socket. "127.0.0.1" (int port))] true)
                     (catch java.io.IOException _ false))
        (when (or (> (System/currentTimeMillis) deadline) (not (.isAlive process)))
          (throw (ex-info (why) {:port port})))
        (Thread/sleep 50)
        (recur)))))

(defn raw-url
  "The http URL of `path` on the raw server `rs`."
  [rs path]
  (str "http://127.0.0.1:" (:port rs) path))

(defn error-of
  "The ex-data of what `f` throws (an ex-info, unwrapped from an
  ExecutionException), or {:returned value} when it does not throw."
  [f]
  (try {:returned (f)}
       (catch java.util.concurrent.ExecutionException e (assoc (ex-data (.getCause e)) :message (.getMessage (.getCause e))))
       (catch clojure.lang.ExceptionInfo e (assoc (ex-data e) :message (.getMessage e)))))

;; ---- proxies ----

(defn- pipe!
  "Copies `from` to `to` on a virtual thread until either ends."
  [^Socket from ^Socket to]
  (Thread/startVirtualThread
   (fn []
     (try (.transferTo (.getInputStream from) (.getOutputStream to))
          (catch java.io.IOException _ nil)
          (finally (.close from) (.close to))))))

(defn- tunnel!
  "Relays between `client` and a new connection to `host`:`port` until either closes."
  [^Socket client host port ^String first-bytes]
  (with-open [target (Socket. ^String host (int port))]
    (when first-bytes (write! (.getOutputStream target) first-bytes))
    (let [t (pipe! target client)]
      (try (.transferTo (.getInputStream client) (.getOutputStream target))
           (catch java.io.IOException _ nil))
      (.join ^Thread t 5000))))

(defn http-proxy
  "An HTTP proxy (a raw server's handler): CONNECT makes a tunnel; a request
  in absolute form goes on to its host in origin form, the connection closed
  after its answer. The request lines go into
  the atom `seen`. With `credentials` (\"user:pass\") a request without them
  gets 407. `hosts` maps a host name to the address the proxy connects to for
  it, as a resolver would: names no resolver here knows."
  ([seen credentials] (http-proxy seen credentials {}))
  ([seen credentials hosts]
    (fn [^Socket socket _]
      (let [in (.getInputStream socket) out (.getOutputStream socket)]
        (when-let [head (read-head in)]
          (let [line (first (.split ^String head "\r\n"))
                expected (when credentials
                           (str "Proxy-Authorization: Basic "
                                (.encodeToString (java.util.Base64/getEncoder)
                                                 (.getBytes ^String credentials StandardCharsets/UTF_8))))]
            (swap! seen conj line)
            (if (and expected (not (.contains (.toLowerCase ^String head) (.toLowerCase ^String expected))))
              (write! out "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"t\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
              (if-let [[_ host port] (re-matches #"CONNECT ([^:]+):(\d+) HTTP/1\.1" line)]
                (do (write! out "HTTP/1.1 200 Connection established\r\n\r\n")
                    (tunnel! socket (get hosts host host) (parse-long port) nil))
                ;; One request per connection: in origin form, with Connection: close, so that
                ;; the answer ends the connection and the next request comes on a new one.
                (let [[_ host port] (re-find #"^\S+ http://([^:/]+):(\d+)/" line)
                      lines (remove #(re-find #"(?i)^(connection|proxy-connection|proxy-authorization):" %)
                                    (rest (.split ^String head "\r\n")))
                      origin-line (.replaceFirst ^String line "^(\\S+) http://[^/]+" "$1 ")]
                  (tunnel! socket (get hosts host host) (parse-long port)
                           (str origin-line "\r\n" (apply str (map #(str % "\r\n") lines))
                                "Connection: close\r\n\r\n")))))))))))

(defn socks5-proxy
  "A SOCKS5 proxy (RFC 1928, a raw server's handler) that connects where it
  is asked and relays; the targets go into the atom `seen` as \"host:port\"."
  [seen]
  (fn [^Socket socket _]
    (let [in (java.io.DataInputStream. (.getInputStream socket)) out (.getOutputStream socket)]
      (.readByte in)
      (.readFully in (byte-array (.readUnsignedByte in)))
      (.write out (byte-array [5 0]))
      (.readByte in) (.readByte in) (.readByte in)
      (let [host (case (int (.readUnsignedByte in))
                   1 (let [b (byte-array 4)] (.readFully in b) (.getHostAddress (InetAddress/getByAddress b)))
                   3 (let [b (byte-array (.readUnsignedByte in))] (.readFully in b) (String. b StandardCharsets/US_ASCII))
                   4 (let [b (byte-array 16)] (.readFully in b) (.getHostAddress (InetAddress/getByAddress b))))
            port (.readUnsignedShort in)]
        (swap! seen conj (str host ":" port))
        (.write out (byte-array [5 0 0 1 0 0 0 0 0 0]))
        (.flush out)
        (tunnel! socket host port nil)))))
