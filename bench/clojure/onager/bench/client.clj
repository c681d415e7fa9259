(ns onager.bench.client
  "The client benchmark: the raw Vert.x server, pinned to one CPU, is the
  fixed point; each client runs in a JVM of its own pinned to the other CPUs,
  driven by the same loop (onager.bench.client.LoadLoop): 64 callers on
  virtual threads for keep-alive GETs, one caller for a 1 GiB download and
  upload. Figures are ratios to Vert.x's client called from Java with no
  Clojure, the ceiling; the client's own CPU time is measured in its JVM."
  (:require [clojure.string :as str]
            [onager.bench.json :as json]
            [onager.bench.proc :as proc]
            [onager.bench.servers :as servers]
            [onager.bench.stats :as stats]))

(set! *warn-on-reflection* true)

(def baseline-id "vertx-java")

(defn- clj-http-jars []
  (for [jar ["clj-http" "httpclient" "httpcore" "httpmime" "commons-logging" "commons-codec" "commons-io"
             "slingshot" "potemkin" "riddley" "clj-tuple"]]
    (str "/usr/share/java/" jar ".jar")))

(def clients
  "The clients, in report order: `:main` and `:args` start one, `:classpath`
  says what it needs."
  [{:id "vertx-java" :label "Vert.x client, from Java" :main "onager.bench.client.VertxClientLoad" :args []
    :classpath :raw}
   {:id "onager" :label "Onager client" :main "clojure.main" :args ["-m" "onager.bench.client-load" "onager"]
    :classpath :onager}
   {:id "jdk" :label "JDK HttpClient" :main "onager.bench.client.JdkClientLoad" :args [] :classpath :raw}
   {:id "clj-http" :label "clj-http 2.3 (Apache HttpClient 4)" :main "clojure.main"
    :args ["-m" "onager.bench.client-load" "clj-http"] :classpath :clj-http :http1-only? true :gets-only? true}])

(def ^:private gib (* 1024 1024 1024))

(def scenarios
  "The scenarios, in report order."
  [{:id "client-plaintext" :label "plaintext" :mode "get" :path "/plaintext"
    :doc "GET /plaintext (13 bytes) over HTTP/1.1, 64 callers, keep-alive"}
   {:id "client-json" :label "JSON" :mode "get" :path "/json"
    :doc "GET /json over HTTP/1.1, 64 callers, keep-alive"}
   {:id "client-h2-plaintext" :label "plaintext, h2" :mode "get" :path "/plaintext" :tls? true
    :doc "GET /plaintext over h2 (TLS, ALPN), 64 callers on one connection"}
   {:id "client-h2-json" :label "JSON, h2" :mode "get" :path "/json" :tls? true
    :doc "GET /json over h2 (TLS, ALPN), 64 callers on one connection"}
   {:id "client-download" :label "1 GiB download" :mode "download" :path "/download" :size gib
    :doc "one GET of 1 GiB read as a stream, after one of 256 MiB"}
   {:id "client-upload" :label "1 GiB upload" :mode "upload" :path "/upload" :size gib
    :doc "one POST of 1 GiB streamed from a generator, after one of 256 MiB"}])

(defn by-id
  "The entry of `table` (clients or scenarios) whose :id is `id`, or nil."
  [table id]
  (first (filter #(= id (:id %)) table)))

(defn- classpath [kind]
  (case kind
    :raw (servers/classpath :raw)
    :onager (str (servers/classpath :raw) ":bench/clojure")
    :clj-http (str/join ":" (concat [(servers/classpath :raw) "bench/clojure"] (clj-http-jars)))))

(defn- url [scenario handle]
  (if (:tls? scenario)
    (str "https://127.0.0.1:" (:ssl-port handle) (:path scenario))
    (str "http://127.0.0.1:" (:port handle) (:path scenario))))

(defn- run-client
  "Runs `client` once in `scenario` against the server `handle`; its report
  (the JSON line LoadLoop prints) as a map."
  [client scenario handle {:keys [cpus warmup duration]}]
  (let [java (str (System/getProperty "java.home") "/bin/java")
        args (if (= "get" (:mode scenario))
               ["get" (url scenario handle) "64" (str warmup) (str duration)]
               [(:mode scenario) (url scenario handle) (str (:size scenario))])
        cmd (vec (concat (proc/taskset-prefix (:wrk cpus))
                         [java "-XX:+UseParallelGC" "-Xms512m" "-Xmx512m" "--enable-native-access=ALL-UNNAMED"
                          "-cp" (classpath (:classpath client)) (:main client)]
                         (:args client) args))
        p (.start (doto (ProcessBuilder. ^java.util.List cmd) (.redirectErrorStream true)))
        out (slurp (.getInputStream p))
        line (last (filter #(str/starts-with? % "{\"requests\"") (str/split-lines out)))]
    (.waitFor p)
    (if line
      (json/read-str line)
      {:requests 0 :errors 1 :error (str "no report; it printed:\n" (str/join "\n" (take-last 10 (str/split-lines out))))})))

(defn- figures
  "Per-run figures: req/s and CPU µs/request for GETs, MiB/s and CPU ns/byte for transfers."
  [scenario {:keys [requests bytes seconds cpu_ms errors]}]
  (when (and (pos? (long requests)) (zero? (long errors)))
    (if (= "get" (:mode scenario))
      {:rps (/ requests seconds) :cpu-us (/ (* 1000.0 cpu_ms) requests)}
      {:mib-s (/ bytes seconds 1024 1024) :cpu-ns-byte (/ (* 1e6 cpu_ms) bytes)})))

(defn- summarise [scenario runs]
  (let [fs (keep #(figures scenario %) runs)]
    (into {} (for [k (keys (first fs))] [k (stats/spread (map k fs))]))))

(defn run-all
  "Runs every scenario on every client, `runs` rounds alternating clients,
  against one raw Vert.x server; returns the scenarios with each client's runs,
  summaries and ratios to the baseline's."
  [client-defs scenario-defs {:keys [runs cpus log-dir tls-files] :as opts}]
  (let [server (servers/by-id servers/baseline-id)
        ssl-port (servers/free-port)
        handle (servers/launch server {:port (servers/free-port) :cpus (:server cpus) :log-dir log-dir
                                       :ssl-port ssl-port
                                       :args ["--tls-port" (str ssl-port) "--ssl-cert" (:cert tls-files)
                                              "--ssl-key" (:key tls-files)]})]
    (try
      (servers/await-ready handle 60000)
      (vec
       (for [sc scenario-defs]
         (let [defs (remove #(or (and (:tls? sc) (:http1-only? %)) (and (not= "get" (:mode sc)) (:gets-only? %)))
                            client-defs)
               _ (println (str "== " (:id sc) ": " (:doc sc)))
               results (reduce (fn [acc round]
                                 (reduce (fn [acc c]
                                           (let [r (run-client c sc handle opts)]
                                             (println (format "   round %d/%d %-11s %s" round runs (:id c)
                                                              (if (pos? (long (:errors r 0))) (str "FAILED: " (:error r))
                                                                  (str (pr-str (figures sc r))
                                                                       (when-let [w (:warmup_s r)]
                                                                         (str " after " w " s warm-up"))))))
                                             (update acc (:id c) (fnil conj []) r)))
                                         acc defs))
                               {} (range 1 (inc (long runs))))
               summaries (into {} (for [c defs] [(:id c) (summarise sc (results (:id c)))]))
               base-runs (map #(figures sc %) (results baseline-id))]
           (assoc (select-keys sc [:id :label :doc :mode])
                  :clients (vec (for [c defs
                                      :let [s (summaries (:id c))
                                            mine (map #(figures sc %) (results (:id c)))]]
                                  ;; Each round's figure over the baseline's in the same round, then their
                                  ;; median: rounds alternate clients, so a round's drift hits both alike.
                                  {:id (:id c) :label (:label c) :runs (results (:id c)) :summary s
                                   :ratio (into {} (for [k (keys s)]
                                                     [k (stats/spread (map #(stats/ratio (get %1 k) (get %2 k))
                                                                           mine base-runs))]))}))))))
      (finally (servers/stop handle)))))
