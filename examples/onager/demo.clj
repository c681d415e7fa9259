(ns onager.demo
  "The demo server that `make run` starts, and the app the benchmarks drive.

    /plaintext        \"Hello, World!\" (TechEmpower plaintext)
    /json             {\"message\":\"Hello, World!\"}, serialised per request by onager.json
                      (TechEmpower JSON)
    /echo             the request body, streamed back as it arrives
    /sleep?ms=N       answers after a blocking Thread/sleep of N ms (at most 60000)
    /stream?n=N       N lines as a lazy seq, sent chunked, one flush per line
    /download?size=N  N bytes (Content-Length N) from an InputStream that makes
                      them as it goes (&as=seq: from a lazy seq of 64 KiB byte
                      arrays instead)
    /upload           reads the request body; answers its length and CRC-32
    /fail             throws: the client gets a plain 500, the log the stack trace
    /ws/echo          a WebSocket echoing each message, text or binary
    /ws/room          a WebSocket chat room: each message goes to every member
    /sse/clock        server-sent events, one a second (?interval-ms=N), honouring Last-Event-ID
    /health/live      the liveness probe (onager.health): 200
    /health/ready     the readiness probe: 200, and 503 from the moment the server
                      begins to stop (SIGTERM), --shutdown-delay-ms before it drains
    /metrics          the meters in the Prometheus text format (with --metrics)
    /static/...       files under the static folder: the class path's static/
                      (examples/static, or the uberjar's), or --static DIR

  Run it from the repository's root with `make run`, which serves it in clear
  text on PORT (8080) and over TLS on TLS_PORT (8443), with a self-signed
  certificate for localhost made at start (PORT=9000 TLS_PORT=9443 make run
  for others), or, to give it options, on the JDK `make` picks:

    \"$(scripts/java-home)/bin/java\" --enable-native-access=ALL-UNNAMED \\
      -cp \"$(make -s classpath):examples\" \\
      clojure.main -m onager.demo [--port 8080] [--tls-port 8443] [--mode virtual|event-loop|worker]
                                  [--async] [--static DIR] [--max-body BYTES] [--train]
                                  [--ssl-cert PEM] [--ssl-key PEM] [--ssl-provider jdk|openssl]
                                  [--shutdown-delay-ms MS]
                                  [--transport auto|epoll|io-uring|nio] [--metrics]

  Without --tls-port it listens in clear text only. --ssl-cert and --ssl-key
  give the TLS port that certificate instead of a self-signed one (the
  benchmarks give raw Vert.x and the demo the same), --ssl-provider its TLS
  implementation (:ssl-provider), --transport its I/O transport (:transport;
  the line saying where it listens names the one it runs on). --metrics meters
  the server (:metrics, a Prometheus registry of onager.metrics) and serves the
  meters at /metrics, for Prometheus, or for the benchmarks to measure what
  metrics cost.

  or, from the uberjar `make uberjar` builds, with the same options:

    java -jar target/onager-demo.jar [--port 8080]

  --train makes it the training run of a JDK AOT cache (`make aot-cache`): it
  requests each endpoint a few times, then stops and exits
  (onager.demo.training)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.demo.realtime :as realtime]
            [onager.health :as health]
            [onager.json :as json]
            [onager.server :as server]
            [onager.tls :as tls])
  (:import [java.io File InputStream]
           [java.net JarURLConnection URL URLConnection URLDecoder]
           [java.nio.charset StandardCharsets]
           [java.util.concurrent Executors ScheduledExecutorService ThreadFactory TimeUnit]
           [java.util.zip CRC32]
           [onager.kernel.server OnagerServer]))

(set! *warn-on-reflection* true)

(def ^:private max-sleep-ms 60000)

(defn- query-param
  "The first value of `name` in the query string, URL-decoded, or nil."
  [request name]
  (when-let [q (:query-string request)]
    (some (fn [pair]
            (let [[k v] (str/split pair #"=" 2)]
              (when (= k name) (URLDecoder/decode (str v) StandardCharsets/UTF_8))))
          (str/split q #"&"))))

(defn- long-param [request name default]
  (or (some-> (query-param request name) parse-long) default))

(defn- text [status body]
  {:status status :headers {"Content-Type" "text/plain; charset=utf-8"} :body body})

(def ^:private ^"[B" pattern
  "The alphabet, repeated: the byte at offset k of a /download body is a + k mod 26."
  ;; A primitive loop: a lazy seq of boxed sums took 66 ms of the demo's start-up.
  (let [a (byte-array (* 26 2048))]
    (dotimes [i (alength a)]
      (aset a i (byte (+ 97 (rem i 26)))))
    a))

(defn- generated-stream
  "An InputStream of `size` bytes (the repeating alphabet), made as it is read."
  ^InputStream [^long size]
  (let [pos (volatile! 0)]
    (proxy [InputStream] []
      (read
        ([] (let [k (long @pos)]
              (if (< k size) (do (vreset! pos (inc k)) (+ 97 (mod k 26))) -1)))
        ;; A proxy answers every overload of read with this one fn, so read(byte[])
        ;; (clojure.java.io/copy calls it) must be here too.
        ([^bytes buf] (.read ^InputStream this buf 0 (alength buf)))
        ([^bytes buf off len]
         (let [k (long @pos)
               n (min (long len) (- size k) (- (alength pattern) 26))]
           (if (<= n 0)
             (if (zero? (long len)) 0 -1)
             (do (System/arraycopy pattern (mod k 26) buf off n)
                 (vreset! pos (+ k n))
                 (int n)))))))))

(defn- generated-seq
  "The same bytes as `generated-stream`, as a lazy seq of byte arrays of at most
  64 KiB, each made when the seq is realised that far."
  [^long size]
  (let [chunk 65536]
    (letfn [(from [^long k]
              (lazy-seq
               (when (< k size)
                 (let [n (min chunk (- size k))
                       part (byte-array n)]
                   (loop [done 0]
                     (when (< done n)
                       (let [m (min (- n done) (- (alength pattern) 26))]
                         (System/arraycopy pattern (mod (+ k done) 26) part done m)
                         (recur (+ done m)))))
                   (cons part (from (+ k n)))))))]
      (from 0))))

(defn- upload-summary [^InputStream in]
  (let [crc (CRC32.)
        buf (byte-array 65536)]
    (loop [total 0]
      (let [n (.read in buf)]
        (if (neg? n)
          (text 200 (str total " bytes, crc32 " (Long/toHexString (.getValue crc)) "\n"))
          (do (.update crc buf 0 n) (recur (+ total n))))))))

(defn- static-file
  "The file under `root` that `path` names, or nil when there is none or the path
  tries to leave `root`."
  ^File [^File root ^String path]
  (let [base (.getCanonicalFile root)
        file (.getCanonicalFile (io/file base (str/replace path #"^/+" "")))]
    (when (and (.startsWith (.toPath file) (.toPath base)) (.isFile file))
      file)))

(defn- static-resource
  "The response for the file `path` names under the class path folder `folder`,
  or nil when there is none or the path tries to leave the folder. On disk it
  is a File (sent with sendfile); in a jar there is no file, so the entry goes
  out as a stream of its known length."
  [^String folder ^String path]
  (when (not-any? #{"" "." ".."} (str/split path #"/" -1))
    (when-let [url ^URL (io/resource (str folder "/" path))]
      (if (= "file" (.getProtocol url))
        (let [f ^File (io/as-file url)]
          (when (.isFile f) {:status 200 :body f}))
        (let [conn (.openConnection url)]
          (when-not (and (instance? JarURLConnection conn) (.isDirectory (.getJarEntry ^JarURLConnection conn)))
            {:status 200
             :headers {"Content-Type" (or (URLConnection/guessContentTypeFromName path) "application/octet-stream")
                       "Content-Length" (str (.getContentLengthLong conn))}
             :body (.getInputStream conn)}))))))

(defn- static-response
  "The response for the static file `path`, from `static` (see `handler`), or nil."
  [static ^String path]
  (if (instance? File static)
    (when-let [f (static-file static path)] {:status 200 :body f})
    (static-resource static path)))

(def health
  "The demo's health: no checks of its own; readiness follows the server (its :health)."
  (health/health {}))

(def ^:private probes
  {"/health/live" (health/live-handler health)
   "/health/ready" (health/ready-handler health)})

(defn handler
  "The demo's Ring handler. `static` is the folder /static/ serves: a File on
  disk, or a String naming a folder on the class path (\"static\": the
  examples/static folder on the class path, or the uberjar's copy of it).
  `scrape`, when given, is the Ring handler that answers /metrics."
  ([static] (handler static nil))
  ([static scrape]
   (fn [request]
     (let [uri ^String (:uri request)]
       (cond
         (= uri "/plaintext") (text 200 "Hello, World!")
         (= uri "/json") {:status 200
                          :headers {"Content-Type" "application/json"}
                          :body (json/write-bytes {:message "Hello, World!"})}
         (= uri "/echo") {:status 200
                          :headers {"Content-Type" (get-in request [:headers "content-type"]
                                                           "application/octet-stream")}
                          :body (:body request)}
         (= uri "/sleep") (let [ms (long (min max-sleep-ms (max 0 (long-param request "ms" 50))))]
                            (Thread/sleep ms)
                            (text 200 (str "slept " ms " ms\n")))
         (= uri "/stream") (text 200 (map #(str "line " % "\n") (range (long-param request "n" 10))))
         (= uri "/download") (let [size (max 0 (long-param request "size" 1048576))]
                               {:status 200
                                :headers {"Content-Type" "application/octet-stream"
                                          "Content-Length" (str size)}
                                :body (if (= "seq" (query-param request "as"))
                                        (generated-seq size)
                                        (generated-stream size))})
         (= uri "/upload") (upload-summary (:body request))
         (= uri "/fail") (throw (ex-info "the demo's /fail endpoint failed, as asked" {:uri uri}))
         (contains? realtime/routes uri) ((realtime/routes uri) request)
         (contains? probes uri) ((probes uri) request)
         ;; After the benchmarks' endpoints, so that they cost what they cost without metrics.
         (and scrape (= uri "/metrics")) (scrape request)
         (= uri "/") (text 200 "Onager demo: see /static/index.html\n")
         (str/starts-with? uri "/static/") (or (static-response static (subs uri (count "/static/")))
                                               (text 404 "Not Found\n"))
         :else (text 404 "Not Found\n"))))))

(defonce ^:private ^ScheduledExecutorService timers
  (Executors/newSingleThreadScheduledExecutor
   (reify ThreadFactory
     (newThread [_ r] (doto (Thread. r "onager-demo-timer") (.setDaemon true))))))

(defn async-handler
  "The same endpoints as a 3-arity Ring handler that never blocks its thread:
  /sleep answers from a timer, /upload reads on a virtual thread. `static` and
  `scrape` as for `handler`."
  ([static] (async-handler static nil))
  ([static scrape]
   (let [sync (handler static scrape)]
     (fn [request respond raise]
       (try
         (case (:uri request)
           "/sleep" (let [ms (long (min max-sleep-ms (max 0 (long-param request "ms" 50))))]
                      (.schedule timers ^Runnable #(respond (text 200 (str "slept " ms " ms\n")))
                                 ms TimeUnit/MILLISECONDS))
           "/upload" (Thread/startVirtualThread
                      #(try (respond (upload-summary (:body request)))
                            (catch Throwable t (raise t))))
           ("/health/live" "/health/ready") ((probes (:uri request)) request respond raise)
           (respond (sync request)))
         (catch Throwable t (raise t)))))))

(defn- parse-args [args]
  (loop [opts {:port 8080 :tls-port nil :mode nil :async? false :static nil :max-body nil :train? false
               :ssl-cert nil :ssl-key nil :ssl-provider nil :shutdown-delay-ms nil
               :transport nil :metrics? false}
         [a b & more :as args] args]
    (case a
      nil opts
      "--port" (recur (assoc opts :port (parse-long b)) more)
      "--tls-port" (recur (assoc opts :tls-port (parse-long b)) more)
      "--ssl-cert" (recur (assoc opts :ssl-cert b) more)
      "--ssl-key" (recur (assoc opts :ssl-key b) more)
      "--ssl-provider" (recur (assoc opts :ssl-provider (keyword b)) more)
      "--transport" (recur (assoc opts :transport (keyword b)) more)
      "--mode" (recur (assoc opts :mode (keyword b)) more)
      "--static" (recur (assoc opts :static b) more)
      "--max-body" (recur (assoc opts :max-body (parse-long b)) more)
      "--shutdown-delay-ms" (recur (assoc opts :shutdown-delay-ms (parse-long b)) more)
      "--async" (recur (assoc opts :async? true) (rest args))
      "--train" (recur (assoc opts :train? true) (rest args))
      "--metrics" (recur (assoc opts :metrics? true) (rest args))
      (throw (ex-info (str "Unknown argument " a) {:args args})))))

(defn -main
  "Starts the demo server (the options are in the namespace's docstring), says
  where it listens, and returns it; its threads keep the JVM running."
  ^OnagerServer [& args]
  ;; The uberjar logs through java.util.logging (pom.xml's uberjar profile says why): one line
  ;; a record there too, as examples/logback.xml writes them, unless the command line says.
  (when-not (System/getProperty "java.util.logging.SimpleFormatter.format")
    (System/setProperty "java.util.logging.SimpleFormatter.format" "%1$tT.%1$tL %4$-7s %3$s %5$s%6$s%n"))
  (let [{:keys [port tls-port mode async? static max-body train? ssl-cert ssl-key ssl-provider shutdown-delay-ms
                transport metrics?]}
        (parse-args args)
        static (if static (io/file static) "static")
        ;; Loaded only with --metrics: Micrometer costs start-up time and memory.
        registry (when metrics? ((requiring-resolve 'onager.metrics/prometheus-registry)))
        scrape (when registry ((requiring-resolve 'onager.metrics/prometheus-handler) registry))
        app (if async? (async-handler static scrape) (handler static scrape))
        ;; :shutdown-hook? makes SIGTERM (docker stop, systemctl stop, Ctrl-C) a graceful stop.
        s (server/start app
                        (cond-> {:port port :async? async? :shutdown-hook? true :health health}
                          shutdown-delay-ms (assoc :shutdown-delay-ms shutdown-delay-ms)
                          mode (assoc :handler-mode mode)
                          max-body (assoc :max-body max-body)
                          tls-port (merge {:ssl-port tls-port}
                                          (if ssl-cert {:ssl-cert ssl-cert :ssl-key ssl-key} (tls/self-signed)))
                          ssl-provider (assoc :ssl-provider ssl-provider)
                          transport (assoc :transport transport)
                          registry (assoc :metrics registry)))
        how (str " (" (name (or mode (if async? :event-loop :virtual))) (when async? ", async")
                 ", transport " (name (server/transport s)) (when registry ", metrics at /metrics") ")")]
    (println (str "Onager demo listening on http://127.0.0.1:" (server/port s) "/" how))
    (when tls-port
      (println (str "Onager demo listening on https://localhost:" (server/ssl-port s) "/" how
                    ", a self-signed certificate: curl -k, or trust it in the browser")))
    (flush)
    ;; Loaded only then: a server's start does not pay for it.
    (when train? ((requiring-resolve 'onager.demo.training/run) s))
    s))
