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
            [onager.bench.stats :as stats])
  (:import (java.io File)
           (java.nio.file Files Path)
           (java.nio.file.attribute FileAttribute)))

(set! *warn-on-reflection* true)

(def baseline-id "vertx-java")

(defn- clj-http-jars []
  (for [jar ["clj-http" "httpclient" "httpcore" "httpmime" "commons-logging" "commons-codec" "commons-io"
             "slingshot" "potemkin" "riddley" "clj-tuple"]]
    (str "/usr/share/java/" jar ".jar")))

(def clients
  "The clients, in report order: `:main` and `:args` start one, `:classpath`
  says what it needs; `:beside?` ones also run at once with the baseline each
  round (see run-all)."
  [{:id "vertx-java" :label "Vert.x client, from Java" :main "onager.bench.client.VertxClientLoad" :args []
    :classpath :raw}
   {:id "onager" :label "Onager client" :main "clojure.main" :args ["-m" "onager.bench.client-load" "onager"]
    :classpath :onager :beside? true}
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

(defn- start-client
  "Starts `client` in `scenario` against the server `handle`, with the JVM
  properties `props` (a map); the Process."
  ^Process [client scenario handle {:keys [cpus warmup duration]} props]
  (let [java (str (System/getProperty "java.home") "/bin/java")
        args (if (= "get" (:mode scenario))
               ["get" (url scenario handle) "64" (str warmup) (str duration)]
               [(:mode scenario) (url scenario handle) (str (:size scenario))])
        cmd (vec (concat (proc/taskset-prefix (:wrk cpus))
                         [java "-XX:+UseParallelGC" "-Xms512m" "-Xmx512m" "--enable-native-access=ALL-UNNAMED"]
                         (for [[k v] props] (str "-D" k "=" v))
                         ["-cp" (classpath (:classpath client)) (:main client)]
                         (:args client) args))]
    (.start (doto (ProcessBuilder. ^java.util.List cmd) (.redirectErrorStream true)))))

(defn- report-of
  "Waits for the client process `p` to end; its report (the JSON line LoadLoop
  prints) as a map."
  [^Process p]
  (let [out (slurp (.getInputStream p))
        line (last (filter #(str/starts-with? % "{\"requests\"") (str/split-lines out)))]
    (.waitFor p)
    (if line
      (json/read-str line)
      {:requests 0 :errors 1 :error (str "no report; it printed:\n" (str/join "\n" (take-last 10 (str/split-lines out))))})))

(defn- run-client
  "Runs `client` once in `scenario` against the server `handle`, alone on its CPU."
  [client scenario handle opts]
  (report-of (start-client client scenario handle opts {})))

(defn- run-beside
  "Runs `client` and the baseline at once in `scenario`, both on the clients'
  CPU, against the server `handle`: [client's report, baseline's]. GETs warm
  up for at least `warmup-s` and until both JITs are quiet, then measure the
  same seconds (LoadLoop's pair directory); transfers start together."
  [client baseline scenario handle opts warmup-s]
  (let [dir (when (= "get" (:mode scenario))
              (Files/createTempDirectory "onager-pair" (make-array FileAttribute 0)))
        props (when dir {"onager.bench.pairDir" (str dir)})
        opts (assoc opts :warmup warmup-s)]
    (try
      (mapv report-of (mapv #(start-client % scenario handle opts props) [client baseline]))
      (finally
        (when dir
          (doseq [^File f (.listFiles (.toFile ^Path dir))] (.delete f))
          (Files/delete dir))))))

(defn- figures
  "Per-run figures: req/s, CPU µs/request and bytes allocated per request (when
  the JVM tells) for GETs, MiB/s and CPU ns/byte for transfers."
  [scenario {:keys [requests bytes seconds cpu_ms errors alloc_bytes]}]
  (when (and (pos? (long requests)) (zero? (long errors)))
    (if (= "get" (:mode scenario))
      (cond-> {:rps (/ requests seconds) :cpu-us (/ (* 1000.0 cpu_ms) requests)}
        (and alloc_bytes (not (neg? (long alloc_bytes)))) (assoc :alloc-b (/ (double alloc_bytes) requests)))
      {:mib-s (/ bytes seconds 1024 1024) :cpu-ns-byte (/ (* 1e6 cpu_ms) bytes)})))

(defn- summarise [scenario runs]
  (let [fs (keep #(figures scenario %) runs)]
    (into {} (for [k (keys (first fs))] [k (stats/spread (map k fs))]))))

(defn- print-run [round runs id sc r]
  (println (format "   round %d/%d %-18s %s" round runs id
                   (if (pos? (long (:errors r 0))) (str "FAILED: " (:error r))
                       (str (pr-str (figures sc r))
                            (when-let [w (:warmup_s r)] (str " after " w " s warm-up"))
                            (when-let [j (:jit_ms r)] (str ", JIT " j " ms measured")))))))

(defn- ratios
  "Each pair of runs, [mine base], as the ratio of mine's figures over base's,
  then their spread by figure."
  [sc pairs]
  (let [fs (for [[mine base] pairs] [(figures sc mine) (figures sc base)])
        ks (keys (some first fs))]
    (into {} (for [k ks] [k (stats/spread (map (fn [[m b]] (stats/ratio (get m k) (get b k))) fs))]))))

(defn- round
  "One round of `scenario`: each client alone, in turn, in the first `runs`
  rounds; then, in the first `pairs`, each :beside? client at once with the
  baseline. Adds the reports to `acc`: by client id, and the pairs [client's,
  baseline's] under [:beside id]. Round `n` of `rounds` in all."
  [acc defs sc handle {:keys [runs pairs] :as opts} rounds n]
  (let [baseline (by-id defs baseline-id)
        acc (if (> (long n) (long runs))
              acc
              (reduce (fn [acc c]
                        (let [r (run-client c sc handle opts)]
                          (print-run n rounds (:id c) sc r)
                          (update acc (:id c) (fnil conj []) r)))
                      acc defs))]
    (if (> (long n) (long pairs))
      acc
      (reduce (fn [acc c]
                ;; At least the longer warm-up either needed alone (in its last round alone); LoadLoop
                ;; goes on while either JIT compiles, as each now has half the CPU to compile on.
                (let [warmup-s (long (Math/ceil (max (double (:warmup_s (peek (acc (:id c))) 0))
                                                     (double (:warmup_s (peek (acc baseline-id)) 0))
                                                     (double (:warmup opts)))))
                      [mine base :as pair] (run-beside c baseline sc handle opts warmup-s)]
                  (print-run n rounds (str (:id c) ", beside") sc mine)
                  (print-run n rounds (str baseline-id ", beside") sc base)
                  (update acc [:beside (:id c)] (fnil conj []) pair)))
              acc (filter :beside? defs)))))

(defn run-all
  "Runs every scenario on every client, `runs` rounds alternating clients,
  against one raw Vert.x server; returns the scenarios with each client's runs,
  summaries and ratios to the baseline's.

  Rounds taken a minute apart on a shared machine differ by more than what a
  client costs over the baseline; a :beside? client therefore also runs at once
  with the baseline, `pairs` times, both on the clients' CPU, which they share
  as the machine's mood changes. Its :beside ratios are of those pairs. The
  pairs come after each round's runs alone and, past `runs`, in rounds of their
  own: one pair moves by several per cent, so a median needs more of them than
  of runs alone."
  [client-defs scenario-defs {:keys [runs pairs cpus log-dir tls-files] :as opts}]
  (let [server (servers/by-id servers/baseline-id)
        rounds (max (long runs) (long pairs))
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
               results (reduce (fn [acc n] (round acc defs sc handle opts rounds n)) {} (range 1 (inc rounds)))
               summaries (into {} (for [c defs] [(:id c) (summarise sc (results (:id c)))]))]
           (assoc (select-keys sc [:id :label :doc :mode])
                  :clients (vec (for [c defs
                                      :let [pairs (results [:beside (:id c)])]]
                                  ;; Each round's figure over the baseline's in the same round, then their
                                  ;; median: rounds alternate clients, so a round's drift hits both alike.
                                  (cond-> {:id (:id c) :label (:label c) :runs (results (:id c))
                                           :summary (summaries (:id c))
                                           :ratio (ratios sc (map vector (results (:id c)) (results baseline-id)))}
                                    pairs (assoc :beside {:runs pairs :ratio (ratios sc pairs)}))))))))
      (finally (servers/stop handle)))))
