(ns onager.bench.memory
  "The memory and start-up benchmark:

  - the smallest heap (-Xms = -Xmx, SerialGC) of 6, 8, 10, 12, 16, 24, 32
    and 64 MiB at which each server starts and serves plaintext for a while
    with no error and no OutOfMemoryError;
  - plaintext throughput with a 16 MiB heap and with 512 MiB, in alternating
    runs, and the resident memory (RSS) under that load;
  - start-up: the time from launching the JVM to the first good response, with
    the server pinned to one CPU as in every other run, and again on all CPUs;
    and the same with a JDK AOT cache (JDK 25+, JEP 483/514) made by a
    training run: the JDK's, Clojure's and the libraries' classes come
    pre-parsed and pre-linked from the cache (Onager's API among them, as the
    build compiled it). From source the demo is still compiled at every start;
    the uberjar's cache is the one `make aot-cache` writes.

  - 10,000 idle WebSockets: the heap and the RSS each costs the servers with
    the demo's /ws/echo.

  The uberjar (`make uberjar`: everything compiled ahead of time, one jar) is
  measured beside the servers run from source."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.bench.load :as load]
            [onager.bench.proc :as proc]
            [onager.bench.run :as run]
            [onager.bench.servers :as servers]
            [onager.bench.stats :as stats]))

(set! *warn-on-reflection* true)

(def servers
  "The servers this benchmark measures by default: the baseline, Onager in
  its default mode and its fastest, the peer, the floor under any Clojure
  server on Vert.x run from source, and the demo's uberjar."
  (mapv servers/by-id ["vertx" "onager-virtual" "onager-event-loop" "ring-jetty" "clojure-floor" "onager-uberjar"]))

(def heap-sizes "The heaps tried, smallest first, in MiB." [6 8 10 12 16 24 32 64])

(def small-heap "The small heap of the throughput comparison, MiB." 16)
(def large-heap "The large heap of the throughput comparison, MiB." 512)

(defn- log [& xs]
  (apply println xs)
  (flush))

(defn- out-of-memory? [handle]
  (let [f ^java.io.File (:err-log handle)]
    (and (.exists f) (str/includes? (slurp f) "OutOfMemoryError"))))

(defn- try-heap
  "Starts `server` with a heap of `mib` MiB and loads it with plaintext for
  `seconds`. Returns {:ok? :why :requests ...}."
  [server mib seconds {:keys [cpus wrk log-dir extra-flags]}]
  (let [h (servers/launch server {:port (servers/free-port) :cpus (:server cpus) :heap-mib mib :log-dir log-dir
                                  :extra-flags extra-flags})]
    (try
      ;; A server not up within 30 s at this heap is collecting garbage most of the time.
      (let [ms (servers/await-ready h 30000)
            r (load/run-wrk (load/by-id "plaintext") (:port h) seconds wrk)
            why (cond
                  (not (servers/alive? h)) "the JVM exited"
                  (out-of-memory? h) "OutOfMemoryError"
                  (zero? (long (:requests r))) "no request served"
                  (pos? (long (:error-count r))) (str "errors " (:errors r)))]
        {:mib mib :ok? (nil? why) :why why :startup-ms ms :requests (:requests r) :rps (:rps r)})
      (catch clojure.lang.ExceptionInfo e
        {:mib mib :ok? false
         :why (cond
                (out-of-memory? h) "OutOfMemoryError while starting"
                (servers/alive? h) "not serving after 30 s (collecting garbage)"
                :else (str/replace (first (str/split-lines (or (ex-message e) "failed"))) #":$" ""))})
      (finally
        (servers/stop h)))))

(defn min-heap
  "The smallest heap in `heap-sizes` at which `server` serves without error,
  with what each smaller one did."
  [server seconds opts]
  (loop [[mib & more] heap-sizes tries []]
    (if (nil? mib)
      {:min-mib nil :tries tries}
      (let [t (try-heap server mib seconds opts)]
        (log (format "   %-18s -Xmx%dm: %s" (:id server) mib (if (:ok? t) "serves" (:why t))))
        (if (:ok? t)
          {:min-mib mib :tries (conj tries t)}
          (recur more (conj tries t)))))))

(defn- sampling-rss
  "Runs `f` while sampling the RSS of `pid` every 100 ms; returns [result max-rss-kb]."
  [pid f]
  (let [peak (atom 0)
        running (atom true)
        t (doto (Thread. (fn []
                           (while @running
                             (when-let [kb (proc/rss-kb pid)] (swap! peak max (long kb)))
                             (Thread/sleep 100))))
            (.setDaemon true)
            (.start))
        result (try (f) (finally (reset! running false) (.join t 1000)))]
    [result @peak]))

(defn heap-throughput
  "Plaintext throughput of each server at `small-heap` and `large-heap` MiB,
  in rounds that alternate servers and heaps, with the RSS under load."
  [server-defs {:keys [runs cpus log-dir extra-flags] :as opts}]
  (let [scenario (load/by-id "plaintext")
        handles (atom [])]
    (try
      (doseq [s server-defs mib [small-heap large-heap]]
        (let [h (servers/launch s {:port (servers/free-port) :cpus (:server cpus) :heap-mib mib :log-dir log-dir
                                   :extra-flags extra-flags})]
          (swap! handles conj (assoc h :mib mib))
          (servers/await-ready h 60000)))
      (let [runs-by (reduce
                     (fn [acc round]
                       (reduce (fn [acc h]
                                 (let [[r rss] (sampling-rss (:pid h) #(run/measure h scenario opts))
                                       id (:id (:server h))]
                                   (log (format "   round %d/%d %-18s -Xmx%-4s %9.0f req/s  RSS %5.1f MiB under load"
                                                round runs id (str (:mib h) "m") (double (:rps r)) (/ rss 1024.0)))
                                   (update acc [id (:mib h)] (fnil conj [])
                                           (assoc r :rss-load-kb rss :peak-rss-kb (proc/peak-rss-kb (:pid h))))))
                               acc @handles))
                     {} (range 1 (inc (long runs))))]
        (vec (for [s server-defs]
               (let [small (runs-by [(:id s) small-heap])
                     large (runs-by [(:id s) large-heap])]
                 {:id (:id s) :label (:label s)
                  :small {:mib small-heap :runs small
                          :rps (stats/spread (map :rps small))
                          :rss-mib (stats/spread (map #(/ (:rss-load-kb %) 1024.0) small))}
                  :large {:mib large-heap :runs large
                          :rps (stats/spread (map :rps large))
                          :rss-mib (stats/spread (map #(/ (:rss-load-kb %) 1024.0) large))}
                  :small-vs-large (stats/spread (map #(stats/ratio (:rps %1) (:rps %2)) small large))}))))
      (finally (run! servers/stop @handles)))))

(defn startup
  "Start-up to the first good response, `reps` launches of each server,
  alternating servers; each pinned to the server's CPUs in `opts` (`:cpus`
  nil: on all of them)."
  [server-defs reps {:keys [cpus log-dir extra-flags]}]
  (let [times (reduce
               (fn [acc rep]
                 (reduce (fn [acc s]
                           (let [h (servers/launch s {:port (servers/free-port) :cpus (:server cpus) :log-dir log-dir
                                                           :extra-flags extra-flags})
                                 ms (try (servers/await-ready h 60000) (finally (servers/stop h)))]
                             (log (format "   launch %d/%d %-18s first response after %6.0f ms" rep reps (:id s) (double ms)))
                             (update acc (:id s) (fnil conj []) ms)))
                         acc server-defs))
               {} (range 1 (inc (long reps))))]
    (mapv (fn [s] {:id (:id s) :label (:label s) :ms (times (:id s)) :startup-ms (stats/spread (times (:id s)))})
          server-defs)))

(def aot-servers
  "The servers whose start-up is also measured with an AOT cache."
  ["vertx" "onager-virtual" "onager-uberjar"])

(def uberjar-cache
  "The uberjar's AOT cache, which `make aot-cache` writes with its training
  run (onager.demo.training), as a user would."
  "target/onager-demo.aot")

(defn- jdk-tool [tool]
  (str (System/getProperty "java.home") "/bin/" tool))

(defn- jar-up
  "Jars `dirs` (each a directory whose contents go to the jar's root) into `jar`."
  [jar dirs]
  (io/make-parents jar)
  (let [args (concat ["cf" (str jar)] (mapcat (fn [d] ["-C" d "."]) dirs))
        r (apply proc/sh (jdk-tool "jar") args)]
    (when-not r (throw (ex-info (str "jar failed: " (str/join " " args)) {})))
    (str jar)))

(defn jar-classpath
  "The class path of jars an AOT cache needs (it refuses directories): the
  kernel with the API sources (Maven copies them to target/classes), the demo,
  the bench classes, then the dependencies."
  [dir]
  (str/join ":" [(jar-up (io/file dir "onager.jar") ["target/classes"])
                 (jar-up (io/file dir "demo.jar") ["examples"])
                 (jar-up (io/file dir "bench.jar") ["target/bench-classes"])
                 (str/trim (slurp "target/classpath.txt.deps"))]))

(defn- aot-supported? []
  (>= (.feature (Runtime/version)) 25))

(defn- train
  "A training run of `server` writing the AOT cache `cache`: start, serve
  plaintext and JSON for a few seconds, exit."
  [server cache cp {:keys [cpus wrk log-dir]}]
  (let [h (servers/launch server {:port (servers/free-port) :cpus (:server cpus) :log-dir log-dir :tag "training"
                                  :classpath cp :extra-flags [(str "-XX:AOTCacheOutput=" cache)]})]
    (try
      (servers/await-ready h 120000)
      (load/run-wrk (load/by-id "plaintext") (:port h) 2 wrk)
      (load/run-wrk (load/by-id "json") (:port h) 2 wrk)
      (finally (servers/stop h)))
    (when-not (.exists (io/file cache))
      (throw (ex-info (str "the training run of " (:id server) " wrote no AOT cache:\n" (servers/log-tail h)) {})))))

(defn aot-startup
  "Start-up with an AOT cache, `reps` launches of each of `aot-servers` that
  is among `server-defs`; nil on a JDK without AOT caches. The uberjar runs
  with the cache `make aot-cache` wrote (the uberjar's training run), the
  others with one their own training run writes here."
  [server-defs reps {:keys [cpus log-dir] :as opts}]
  (when (aot-supported?)
    (let [dir (io/file log-dir "aot")
          source-cp (jar-classpath dir)
          ;; The cache refuses a directory on the class path: the probe goes in as a jar.
          uberjar-cp (str servers/uberjar ":" (io/file dir "bench.jar"))
          defs (filterv (set server-defs) (map servers/by-id aot-servers))
          cps (into {} (for [s defs] [(:id s) (if (= :uberjar (:classpath s)) uberjar-cp source-cp)]))
          caches (into {} (for [s defs]
                            (if (= :uberjar (:classpath s))
                              [(:id s) uberjar-cache]
                              (let [cache (str (io/file dir (str (:id s) ".aot")))]
                                (train s cache (cps (:id s)) opts)
                                [(:id s) cache]))))
          times (reduce
                 (fn [acc rep]
                   (reduce (fn [acc s]
                             ;; AOTMode=on: a JVM that cannot use its cache fails rather than starting without it.
                             (let [h (servers/launch s {:port (servers/free-port) :cpus (:server cpus) :log-dir log-dir
                                                        :tag "aot" :classpath (cps (:id s))
                                                        :extra-flags ["-XX:AOTMode=on" (str "-XX:AOTCache=" (caches (:id s)))]})
                                   ms (try (servers/await-ready h 60000) (finally (servers/stop h)))]
                               (log (format "   launch %d/%d %-18s with AOT cache: first response after %6.0f ms"
                                            rep reps (:id s) (double ms)))
                               (update acc (:id s) (fnil conj []) ms)))
                           acc defs))
                 {} (range 1 (inc (long reps))))]
      (mapv (fn [s] {:id (:id s) :label (str (:label s) " + JDK AOT cache") :ms (times (:id s))
                     :startup-ms (stats/spread (times (:id s)))})
            defs))))

(def idle-websockets-count "The idle WebSockets each server holds in the memory benchmark." 10000)

(def websocket-servers
  "The servers the idle-WebSocket figures compare: those with the demo's /ws/echo."
  #{"vertx" "onager-virtual" "onager-event-loop"})

(defn- hold-idle-websockets
  "Starts the load generator holding `n` idle WebSockets to `port` for at most
  `seconds`; returns its process once they are all open."
  ^Process [port n seconds wrk]
  (let [cmd (load/ws-command {:path "/ws/echo" :ws-mode "idle" :connections n} port seconds wrk)
        p (.start (doto (ProcessBuilder. ^java.util.List cmd) (.redirectErrorStream true)))
        in (java.io.BufferedReader. (java.io.InputStreamReader. (.getInputStream p)))]
    (loop [seen []]
      (let [line (.readLine in)]
        (cond
          (nil? line) (throw (ex-info (str "WsLoad ended before its WebSockets were open:\n" (str/join "\n" seen)) {}))
          (str/starts-with? line "{\"ready\"") p
          :else (recur (conj seen line)))))))

(defn idle-websockets
  "The heap and resident memory `idle-websockets-count` idle WebSockets cost
  each server, per connection: the live heap (after a full collection) and
  the RSS with them open, less the same before they opened; `runs` rounds,
  alternating servers."
  [server-defs {:keys [runs cpus wrk log-dir extra-flags]}]
  (let [n idle-websockets-count
        defs (filterv #(websocket-servers (:id %)) server-defs)
        results (reduce
                 (fn [acc round]
                   (reduce
                    (fn [acc s]
                      (let [h (servers/launch s {:port (servers/free-port) :cpus (:server cpus) :log-dir log-dir
                                                 :extra-flags extra-flags})]
                        (try
                          (servers/await-ready h 60000)
                          (let [before (servers/probe h true)
                                rss0 (proc/rss-kb (:pid h))
                                client (hold-idle-websockets (:port h) n 300 wrk)
                                after (servers/probe h true)
                                rss1 (proc/rss-kb (:pid h))
                                r {:heap-per-conn (/ (double (- (long (:live after)) (long (:live before)))) n)
                                   :rss-per-conn (/ (* 1024.0 (- (long rss1) (long rss0))) n)}]
                            (.destroy client)
                            (.waitFor client 30 java.util.concurrent.TimeUnit/SECONDS)
                            (log (format "   round %d/%d %-18s %d idle WebSockets: heap %6.0f B, RSS %6.0f B each"
                                         round runs (:id s) n (:heap-per-conn r) (:rss-per-conn r)))
                            (update acc (:id s) (fnil conj []) r))
                          (finally (servers/stop h)))))
                    acc defs))
                 {} (range 1 (inc (long runs))))]
    (mapv (fn [s]
            (let [rs (results (:id s))]
              {:id (:id s) :label (:label s) :connections n :runs rs
               :heap-per-conn (stats/spread (map :heap-per-conn rs))
               :rss-per-conn (stats/spread (map :rss-per-conn rs))}))
          defs)))

(defn run-all
  "The whole memory benchmark on `server-defs`."
  [server-defs {:keys [quick runs] :as opts}]
  (let [serve-seconds (if quick 3 10)
        reps (if quick 2 5)]
    (log "== start-up: JVM launch to the first response, the server on one CPU")
    (let [st (startup server-defs reps opts)
          _ (log "== start-up on all CPUs")
          st-all (startup server-defs reps (assoc opts :cpus nil))
          _ (log "== start-up with a JDK AOT cache, the server on one CPU")
          aot (aot-startup server-defs reps opts)]
      (log (str "== smallest heap that serves plaintext for " serve-seconds " s"))
      (let [mins (mapv (fn [s] (assoc (min-heap s serve-seconds opts) :id (:id s) :label (:label s))) server-defs)]
        (log (str "== plaintext at -Xmx" small-heap "m and -Xmx" large-heap "m, RSS under load"))
        (let [tp (heap-throughput server-defs opts)
              _ (log (str "== " idle-websockets-count " idle WebSockets: heap and RSS per connection"))
              ws (idle-websockets server-defs opts)]
          {:startup st :startup-all-cpus st-all :aot-startup aot :min-heap mins :heap-throughput tp
           :idle-websockets ws :serve-seconds serve-seconds :startup-reps reps :runs runs})))))
