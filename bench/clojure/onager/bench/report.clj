(ns onager.bench.report
  "The reports: Markdown, JSON and (for throughput) a PNG chart, each stamped
  with the commit, the JDK and the CPU, and the issue's bars checked."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.bench.chart :as chart]
            [onager.bench.json :as json]
            [onager.bench.load :as load]
            [onager.bench.stats :as stats]))

(set! *warn-on-reflection* true)

;; ---- numbers ----

(defn f
  "`x` with `digits` decimals, or – when it is nil."
  [x digits]
  (if (nil? x) "–" (format (str "%." digits "f") (double x))))

(defn- count-str [x]
  (cond
    (nil? x) "–"
    (>= (double x) 1e6) (format "%.2fM" (/ (double x) 1e6))
    (>= (double x) 1e4) (format "%.1fk" (/ (double x) 1e3))
    :else (format "%.0f" (double x))))

(defn- bytes-str [x]
  (cond
    (nil? x) "–"
    (>= (double x) (* 1024 1024)) (format "%.2f MiB" (/ (double x) 1024 1024))
    (>= (double x) 10240) (format "%.1f KiB" (/ (double x) 1024))
    :else (format "%.0f B" (double x))))

(defn with-spread
  "`median (min–max)` of a spread, each formatted by `fmt`; only the median
  when there was one run."
  [s fmt]
  (cond
    (nil? s) "–"
    (= 1 (:n s)) (fmt (:median s))
    :else (str (fmt (:median s)) " (" (fmt (:min s)) "–" (fmt (:max s)) ")")))

(defn- ratio-str [s]
  (with-spread s #(f % 2)))

(defn- ms [us] (when us (/ (double us) 1000.0)))

(defn- ms-spread [s] (when s (-> s (update :median ms) (update :min ms) (update :max ms))))

;; ---- the stamp ----

(defn- stamp-lines [{:keys [stamp settings]} kind]
  (let [{:keys [commit jdk cpu kernel date load-at-start load-at-end minutes]} stamp
        {:keys [quick runs settle warmup duration wrk jvm-flags] pinned :cpus} settings]
    [(str "- **Kind:** " (if quick
                           (str "QUICK " kind " run (`QUICK=1`): short runs, for development; a placeholder, not a result")
                           (str "full " kind " run")))
     (str "- **Commit:** `" commit "` · **JDK:** " jdk " · **CPU:** " cpu " × " (:cpus stamp)
          " · **Linux** " kernel " · **wrk** " (or (:wrk stamp) "?") " · **h2load** " (or (:h2load stamp) "?"))
     (str "- **When:** " date ", took " (f minutes 1) " min; load average at start " load-at-start
          ", at end " load-at-end)
     (str "- **How:** server pinned to CPU " (or (:server pinned) "any") ", wrk (" (:threads wrk) " thread) to CPU "
          (or (:cpus wrk) "any") "; "
          (when (and settle (pos? (long settle))) (str "each server first loaded for " settle " s, then "))
          runs " measured run(s) per server and scenario, alternating servers, each "
          duration " s after a " warmup " s warm-up"
          (when jvm-flags (str "; every server JVM: `" (str/join " " jvm-flags) "`")))]))

;; ---- the throughput report ----

(defn- transport-line
  "Which Netty transport each server ran on, as it said at start (ring-jetty
  says none)."
  [data]
  (let [seen (into [] (comp (mapcat :servers) (filter :transport) (map (juxt :id :transport)) (distinct))
                   (:scenarios data))]
    (str "- **Transports:** "
         (if (seq seen)
           (str/join " · " (for [[id t] seen] (str id " " t)))
           "not said"))))

(defn- with-id
  "The entry of `entries` (scenarios or servers) whose :id is `id`, or nil."
  [entries id]
  (some #(when (= id (:id %)) %) entries))

(defn- find-server [data scenario-id server-id]
  (with-id (:servers (with-id (:scenarios data) scenario-id)) server-id))

(def bars
  "The issue's bars on the throughput figures: scenario, server, figure (a
  path into a server's result), comparison and target; with `:base`, the
  figure is the median over the rounds of the server's req/s divided by that
  server's measured at the same time (its :beside runs), or in the same round
  when there are none (metrics on against off), and the bar is checked only
  when both ran."
  (vec (concat
        (for [sc ["plaintext" "pipelined" "json"]
              [path op target what] [[[:ratio :rps :median] >= 0.95 "req/s ÷ raw Vert.x"]
                                     [[:ratio :cpu-us :median] <= 1.05 "CPU µs/request ÷ raw Vert.x"]
                                     [[:ratio :p99 :median] <= 1.2 "p99 latency ÷ raw Vert.x"]]
              ;; wrk times a pipelined batch only now and then: no p99 to compare there.
              :when (not (and (= sc "pipelined") (= what "p99 latency ÷ raw Vert.x")))]
          {:scenario sc :server "onager-event-loop" :path path :op op :target target :what what})
        (for [sc ["plaintext" "pipelined" "json"]]
          {:scenario sc :server "onager-virtual" :path [:ratio :rps :median] :op >= :target 0.85
           :what "req/s ÷ raw Vert.x"})
        [{:scenario "sleep" :server "onager-virtual" :path [:summary :rps :median] :op >= :target 2280
          :what "req/s (ceiling 2400)"}]
        (for [sc ["download" "upload"]]
          {:scenario sc :server "onager-virtual" :path [:ratio :rps :median] :op >= :target 0.9
           :what "req/s ÷ raw Vert.x"})
        ;; Issue 22: HTTP/2 and TLS, each provider on its own.
        (for [sc (map :id (filter #(and (:only %) (not (#{:ws :sse} (:tool %)))) load/scenarios))
              [server path op target what] [["onager-event-loop" [:ratio :rps :median] >= 0.95 "req/s ÷ raw Vert.x"]
                                            ["onager-event-loop" [:ratio :cpu-us :median] <= 1.05
                                             "CPU µs/request ÷ raw Vert.x"]
                                            ["onager-virtual" [:ratio :rps :median] >= 0.85 "req/s ÷ raw Vert.x"]]]
          {:scenario sc :server server :path path :op op :target target :what what})
        ;; Issue 23: WebSockets.
        (for [sc (map :id (filter #(= :ws (:tool %)) load/scenarios))
              [server path op target what] [["onager-event-loop" [:ratio :rps :median] >= 0.95 "messages/s ÷ raw Vert.x"]
                                            ["onager-virtual" [:ratio :rps :median] >= 0.85 "messages/s ÷ raw Vert.x"]
                                            ["onager-event-loop" [:ratio :cpu-us :median] <= 1.1
                                             "CPU µs/message ÷ raw Vert.x"]
                                            ["onager-virtual" [:ratio :cpu-us :median] <= 1.1
                                             "CPU µs/message ÷ raw Vert.x"]]]
          {:scenario sc :server server :path path :op op :target target :what what})
        ;; Running in production: metrics cost at most 3 % of the throughput of the mode without them.
        (for [sc ["plaintext" "json"]
              [server base] [["onager-event-loop-metrics" "onager-event-loop"]
                             ["onager-virtual-metrics" "onager-virtual"]]]
          {:scenario sc :server server :base base :op >= :target 0.97
           :what (str "req/s ÷ " base "'s")}))))

(defn- verdict [value op target]
  (cond (nil? value) "not measured"
        (op value target) "**met**"
        :else "**not met**"))

(defn- beside-spread
  "The spread of figure `k` of server `s`'s runs beside its twin, each over the
  twin's in the same window; nil when it ran none."
  [s k]
  (stats/spread (map #(stats/ratio (get % k) (get (:twin %) k)) (:beside-runs s))))

(defn- bar-rows [data]
  (for [{:keys [scenario server base path op target what]} bars
        :let [s (find-server data scenario server)
              b (when base (find-server data scenario base))]
        :when (and s (or (nil? base) b))
        ;; Measured at once beside its twin when the run did so (onager.bench.run), else
        ;; same-round pairs: the machine's drift between rounds hits both alike, as it does
        ;; a server and raw Vert.x in the ratios to it.
        :let [v (cond
                  (and base (= base (:beside s)))
                  (:median (beside-spread s :rps))
                  base
                  (:median (stats/spread (map #(stats/ratio (:rps %1) (:rps %2)) (:runs s) (:runs b))))
                  :else (get-in s path))]]
    (str "| " scenario " | " server " | " what " | " (if (> target 100) (count-str v) (f v 3)) " | "
         (if (= op >=) "≥ " "≤ ") target " | " (verdict v op target) " |")))

(defn- scenario-table [sc]
  (concat
   [(str "### " (:label sc))
    ""
    (str (:doc sc) ". `" (case (:tool sc) :h2load "h2load" :ws (str "WsLoad --mode " (:ws-mode sc)) :sse "SseLoad" "wrk")
         " -c " (:connections sc)
         (when (:streams sc) (str " -m " (:streams sc)))
         (when (:close? sc) " -H 'Connection: close'") "`"
         (when (:depth sc) (str ", " (:depth sc) " requests per write"))
         (when (= :h2load (:tool sc)) "; h2load gives no latency percentiles") ".")
    ""
    "| server | req/s | ÷ Vert.x | p50 ms | ÷ | p99 ms | ÷ | CPU µs/req | ÷ | heap alloc/req | ÷ | errors |"
    "|---|---|---|---|---|---|---|---|---|---|---|---|"]
   (for [{:keys [label summary ratio errors]} (:servers sc)]
     (str "| " label
          " | " (with-spread (:rps summary) count-str) " | " (ratio-str (:rps ratio))
          " | " (f (some-> summary :p50 :median ms) 2) " | " (f (some-> ratio :p50 :median) 2)
          " | " (f (some-> summary :p99 :median ms) 2) " | " (f (some-> ratio :p99 :median) 2)
          " | " (with-spread (:cpu-us summary) #(f % 2)) " | " (ratio-str (:cpu-us ratio))
          " | " (bytes-str (some-> summary :alloc-bytes :median)) " | " (f (some-> ratio :alloc-bytes :median) 2)
          " | " errors " |"))
   [""]
   (for [{:keys [label beside beside-runs] :as s} (:servers sc)
         :when (seq beside-runs)]
     (str "Beside " beside " (both at once on the server CPU, each round): " label " made "
          (with-spread (beside-spread s :rps) #(f % 3)) " × its req/s, at "
          (with-spread (beside-spread s :cpu-us) #(f % 3)) " × its CPU per request.\n"))))

(defn bench-markdown
  "The Markdown report of a throughput run."
  [data]
  (str/join
   "\n"
   (concat
    ["# Onager benchmark: throughput, latency, CPU and allocation per request"
     ""]
    (stamp-lines data "benchmark")
    [(transport-line data)
     ""
     "Every ratio is the server's figure divided by raw Vert.x's in the same round, then the median"
     "(min–max) of those ratios; req/s and CPU are medians (min–max) of the runs. CPU µs/req is the"
     "server JVM's user + system time (all its threads: event loops, GC, JIT) from /proc/PID/stat over"
     "the measured run, divided by the requests wrk counted; heap alloc/req is what every thread of the"
     "JVM allocated over the run (ThreadMXBean), divided likewise. On one server core wrk itself tops"
     "out near raw Vert.x's rate, so req/s alone can hide a slower server: the CPU column does not."
     ""
     "![chart](bench.png)"
     ""
     "## The bars (issues 3, 20, 22 and 23)"
     ""
     "Each verdict compares a median from this run with the issue's target. From a QUICK run, or from a"
     "machine busy with other work, a verdict is a placeholder, not a result."
     ""
     "| scenario | server | figure | value | target | |"
     "|---|---|---|---|---|---|"]
    (bar-rows data)
    [""
     "## Results"
     ""]
    (mapcat scenario-table (:scenarios data))
    ["Reproduce: `make bench` (full), `make bench QUICK=1`, one scenario or server:"
     "`make bench SCENARIO=plaintext SERVER=onager-event-loop`. See bench/README.md."
     ""])))

(defn- copy-to [files dir]
  (when dir
    (.mkdirs (io/file dir))
    (doseq [^java.io.File file files]
      (io/copy file (io/file dir (.getName file))))))

(defn write-bench
  "Writes bench.md, bench.json and bench.png to `dir`, and copies them to
  `results-dir` when it is given."
  [data dir results-dir]
  (let [md (io/file dir "bench.md")
        js (io/file dir "bench.json")
        png (io/file dir "bench.png")]
    (io/make-parents md)
    (spit md (bench-markdown data))
    (spit js (json/write-str data))
    (chart/write-png data png)
    (copy-to [md js png] results-dir)
    (println (str "Report: " md (when results-dir (str " (and " results-dir "/)"))))
    data))

;; ---- the memory report ----

(defn- memory-bars [data]
  (let [find (fn [k id] (with-id (get data k) id))
        onager (find :heap-throughput "onager-virtual")
        raw (find :heap-throughput "vertx")
        floor (find :heap-throughput "clojure-floor")
        rss (fn [s] (get-in s [:small :rss-mib :median]))
        heap (fn [id] (some-> (:min-mib (find :min-heap id)) (str " MiB")))
        seconds (fn [id] (some-> (find :startup id) :startup-ms :median (/ 1000.0)))
        mh (find :min-heap "onager-virtual")
        ;; Medians of the same run's launches, pinned to one CPU, as the start-up table's ratios.
        vs-vertx (fn [k id] (let [m (get-in (find k id) [:startup-ms :median])
                                  base (get-in (find :startup "vertx") [:startup-ms :median])]
                              (when (and m base) (/ m base))))
        uh (:min-mib (find :min-heap "onager-uberjar"))
        ;; The default mode's figure, the one users get.
        ws-ratio (fn [k] (let [o (get-in (find :idle-websockets "onager-virtual") [k :median])
                               v (get-in (find :idle-websockets "vertx") [k :median])]
                           (when (and o v (pos? (double v))) (/ (double o) (double v)))))]
    [["Onager (default mode) starts and serves at -Xmx8m" "smallest heap"
      (heap "onager-virtual") "≤ 8 MiB"
      (if-let [m (:min-mib mh)] (verdict m <= 8) "not measured")
      (or (heap "clojure-floor") "—")]
     ["throughput at 16 MiB ÷ its own at 512 MiB" "ratio"
      (f (get-in onager [:small-vs-large :median]) 3) "≥ 0.9"
      (verdict (get-in onager [:small-vs-large :median]) >= 0.9) "—"]
     ["RSS under load at -Xmx16m ÷ raw Vert.x's" "ratio"
      (f (when (and (rss onager) (rss raw)) (/ (rss onager) (rss raw))) 3) "≤ 1.1"
      (verdict (when (and (rss onager) (rss raw)) (/ (rss onager) (rss raw))) <= 1.1)
      (if (and (rss floor) (rss raw)) (f (/ (rss floor) (rss raw)) 3) "—")]
     ["start-up to first response, from source" "seconds"
      (f (seconds "onager-virtual") 2) "≤ 1.5 s"
      (verdict (seconds "onager-virtual") <= 1.5)
      (if-let [fl (seconds "clojure-floor")] (str (f fl 2) " s") "—")]
     ["uberjar: start-up to first response ÷ raw Vert.x's" "ratio"
      (f (vs-vertx :startup "onager-uberjar") 2) "≤ 1.3"
      (verdict (vs-vertx :startup "onager-uberjar") <= 1.3) "—"]
     ["uberjar with its JDK AOT cache ÷ raw Vert.x's without one" "ratio"
      (f (vs-vertx :aot-startup "onager-uberjar") 2) "≤ 1.0"
      (verdict (vs-vertx :aot-startup "onager-uberjar") <= 1.0) "—"]
     ["uberjar starts and serves at -Xmx10m" "smallest heap"
      (some-> uh (str " MiB")) "≤ 10 MiB"
      (if uh (verdict uh <= 10) "not measured") "—"]
     ["idle WebSocket, heap per connection ÷ raw Vert.x's" "ratio"
      (f (ws-ratio :heap-per-conn) 3) "≤ 1.2" (verdict (ws-ratio :heap-per-conn) <= 1.2) "—"]
     ["idle WebSocket, RSS per connection ÷ raw Vert.x's" "ratio"
      (f (ws-ratio :rss-per-conn) 3) "≤ 1.2" (verdict (ws-ratio :rss-per-conn) <= 1.2) "—"]]))

(defn- startup-rows
  "One row per server: its start-up on one CPU and on all, each also as a
  ratio to raw Vert.x's."
  [data]
  (let [cell (fn [k {:keys [id]}]
               (let [s (:startup-ms (with-id (get data k) id))
                     base (get-in (with-id (get data k) "vertx") [:startup-ms :median])]
                 (if s
                   (str (with-spread s #(f % 0)) " | " (f (when base (/ (:median s) base)) 2))
                   "— | —")))]
    (for [s (:startup data)]
      (str "| " (:label s) " | " (cell :startup s) " | " (cell :startup-all-cpus s) " |"))))

(defn memory-markdown
  "The Markdown report of a memory run."
  [data]
  (str/join
   "\n"
   (concat
    ["# Onager benchmark: memory and start-up"
     ""]
    (stamp-lines data "memory")
    [(str "- Server JVMs: `-XX:+UseSerialGC --enable-native-access=ALL-UNNAMED` and a fixed heap "
          "(`-Xms` = `-Xmx`, the size named); start-up with the benchmark's 512 MiB heap.")
     ""
     "## The bars (issues 3, 20 and 23)"
     ""
     "From a QUICK run, or from a machine busy with other work, a verdict is a placeholder, not a result."
     ""
     (str "The last column is the floor: a Clojure program compiled from source, as the demo is, that"
          " starts the raw Vert.x server and loads no Onager code. A bar the floor misses too, no Clojure"
          " server on Vert.x 5 started that way can meet. The uberjar (`make uberjar`) is the demo with"
          " everything compiled ahead of time, the way apps are deployed.")
     ""
     "| bar | figure | value | target | | floor |"
     "|---|---|---|---|---|---|"]
    (for [row (memory-bars data)] (str "| " (str/join " | " row) " |"))
    [""
     "## Start-up: JVM launch to the first good response"
     ""
     (str "Median (min–max) of " (:startup-reps data) " launches per server, alternating: first with the"
          " server pinned to one CPU, as in every other run here (the bar's figure), then on all CPUs. Onager and"
          " ring-jetty compile the demo from its Clojure source at every start, and the floor its own one-function"
          " namespace; Onager's API loads from the classes its build compiled, as its jar ships them. The uberjar"
          " loads everything from classes (`java -jar`'s class path, with the probe's classes). No CDS archive"
          " but the JDK's own.")
     ""
     "| server | ms to first response, one CPU | ÷ Vert.x | on all CPUs | ÷ Vert.x |"
     "|---|---|---|---|---|"]
    (startup-rows data)
    (when-let [aot (seq (:aot-startup data))]
      (concat
       [""
        "The same with a JDK AOT cache (JEP 483/514) made by a training run (`-XX:AOTCacheOutput`, then"
        "`-XX:AOTCache` and `-XX:AOTMode=on`, which fails rather than start without it); the class path is"
        "then jars only. The cache holds the JDK's, Clojure's, Onager's and the libraries' classes pre-parsed"
        "and pre-linked. From source the demo is still compiled at every start; the uberjar's cache is the one"
        "`make aot-cache` writes (its training run: onager.demo.training). One CPU; the ratio is to raw"
        "Vert.x's start-up without a cache, in the table above."
        ""
        "| server | ms to first response | ÷ Vert.x without cache |"
        "|---|---|---|"]
       (let [base (get-in (with-id (:startup data) "vertx") [:startup-ms :median])]
         (for [{:keys [label startup-ms]} aot]
           (str "| " label " | " (with-spread startup-ms #(f % 0))
                " | " (f (when base (/ (:median startup-ms) base)) 2) " |")))))
    [""
     (str "## Smallest heap that serves plaintext for " (:serve-seconds data) " s without an error")
     ""
     "| server | smallest -Xmx | what smaller heaps did |"
     "|---|---|---|"]
    (for [{:keys [label min-mib tries]} (:min-heap data)]
      (str "| " label " | " (if min-mib (str min-mib " MiB") "none up to 64 MiB") " | "
           (str/join "; " (for [t tries :when (not (:ok? t))] (str (:mib t) " MiB: " (:why t)))) " |"))
    [""
     "## Plaintext at -Xmx16m and at -Xmx512m, RSS under load"
     ""
     "| server | req/s at 16 MiB | req/s at 512 MiB | 16 ÷ 512 | RSS under load at 16 MiB | ÷ Vert.x | RSS at 512 MiB |"
     "|---|---|---|---|---|---|---|"]
    (let [base (get-in (with-id (:heap-throughput data) "vertx") [:small :rss-mib :median])]
      (for [{:keys [label small large small-vs-large]} (:heap-throughput data)]
        (str "| " label " | " (with-spread (:rps small) count-str) " | " (with-spread (:rps large) count-str)
             " | " (ratio-str small-vs-large)
             " | " (f (get-in small [:rss-mib :median]) 1) " MiB"
             " | " (f (when base (/ (get-in small [:rss-mib :median]) base)) 2)
             " | " (f (get-in large [:rss-mib :median]) 1) " MiB |")))
    (when-let [ws (seq (:idle-websockets data))]
      (let [base (with-id ws "vertx")
            cell (fn [s k] (str (with-spread (k s) #(f % 0)) " B | "
                                (f (when-let [b (get-in base [k :median])] (/ (get-in s [k :median]) b)) 2)))]
        (concat
         [""
          (str "## " (:connections (first ws)) " idle WebSockets")
          ""
          (str "The live heap after a full collection and the RSS, with the WebSockets open to /ws/echo less"
               " the same just before, per connection; median (min–max) of the rounds, 512 MiB heaps.")
          ""
          "| server | heap per connection | ÷ Vert.x | RSS per connection | ÷ Vert.x |"
          "|---|---|---|---|---|"]
         (for [s ws] (str "| " (:label s) " | " (cell s :heap-per-conn) " | " (cell s :rss-per-conn) " |")))))
    [""
     "RSS under load: the largest VmRSS sampled every 100 ms during the measured runs."
     ""
     "Reproduce: `make bench-memory` (`QUICK=1` for a short one). See bench/README.md."
     ""])))

(defn write-memory
  "Writes memory.md and memory.json to `dir`, and copies them to
  `results-dir` when it is given."
  [data dir results-dir]
  (let [md (io/file dir "memory.md")
        js (io/file dir "memory.json")]
    (io/make-parents md)
    (spit md (memory-markdown data))
    (spit js (json/write-str data))
    (copy-to [md js] results-dir)
    (println (str "Report: " md (when results-dir (str " (and " results-dir "/)"))))
    data))
