(ns onager.bench.client-report
  "The client benchmark's report: Markdown and JSON, the issue's bars checked."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.bench.json :as json]
            [onager.bench.report :refer [f with-spread]]
            [onager.bench.stats :as stats]))

(set! *warn-on-reflection* true)

(defn- client-of [data scenario-id client-id]
  (some #(when (= client-id (:id %)) %)
        (:clients (some #(when (= scenario-id (:id %)) %) (:scenarios data)))))

(defn- over
  "The median of Onager's `k` over `other`'s: both are ratios to the same
  baseline, so their quotient compares the two clients."
  [data sc other k]
  (let [a (get-in (client-of data sc "onager") [:ratio k :median])
        b (get-in (client-of data sc other) [:ratio k :median])]
    (when (and a b (pos? (double b))) (/ (double a) (double b)))))

(defn- layer-ratio
  "Onager's `k` over the Java-only Vert.x client's: the median of the rounds
  where the two ran at once when there are any, else of the rounds apart."
  [data sc k]
  (let [c (client-of data sc "onager")]
    (get-in c [:beside :ratio k :median] (get-in c [:ratio k :median]))))

(def ^:private get-scenarios ["client-plaintext" "client-json" "client-h2-plaintext" "client-h2-json"])

(defn- bars
  "The issue's bars: [scenario, what, value, comparison, target]."
  [data]
  (concat
   (for [sc get-scenarios
         [what value op target]
         [["req/s ÷ Vert.x client from Java" (layer-ratio data sc :rps) >= 0.95]
          ["CPU µs/request ÷ Vert.x client from Java" (layer-ratio data sc :cpu-us) <= 1.05]
          ["req/s ÷ JDK HttpClient's" (over data sc "jdk" :rps) >= 1.0]
          ["req/s ÷ clj-http's" (over data sc "clj-http" :rps) >= 2.0]]
         :when (or (not (str/includes? what "clj-http")) (client-of data sc "clj-http"))]
     [sc what value op target])
   (for [sc ["client-download" "client-upload"]]
     [sc "CPU ns/byte ÷ Vert.x client from Java" (layer-ratio data sc :cpu-ns-byte) <= 1.1])))

(defn- bar-row [[sc what value op target]]
  (str "| " sc " | " what " | " (f value 3) " | " (if (= op >=) "≥ " "≤ ") target " | "
       (cond (nil? value) "not measured" (op value target) "**met**" :else "**not met**") " |"))

(defn- scenario-table [sc]
  (let [get? (= "get" (:mode sc))]
    (concat
     [(str "### " (:label sc)) "" (str (:doc sc) ".") ""
      (if get?
        "| client | req/s | ÷ Vert.x | CPU µs/req | ÷ Vert.x | warm-up s | failed runs |"
        "| client | MiB/s | ÷ Vert.x | CPU ns/byte | ÷ Vert.x | failed runs |")
      (if get? "|---|---|---|---|---|---|---|" "|---|---|---|---|---|---|")]
     (for [{:keys [label summary ratio runs]} (:clients sc)
           :let [[a b] (if get? [:rps :cpu-us] [:mib-s :cpu-ns-byte])
                 warm-ups (stats/spread (map :warmup_s runs))]]
       (str "| " label " | " (with-spread (a summary) #(f % 0)) " | " (with-spread (a ratio) #(f % 2))
            " | " (with-spread (b summary) #(f % 2)) " | " (with-spread (b ratio) #(f % 2))
            (when get? (str " | " (with-spread warm-ups #(f % 0))))
            " | " (count (filter #(pos? (long (:errors % 0))) runs)) " |"))
     [""]
     (for [{:keys [label beside]} (:clients sc)
           :when beside
           :let [[a b] (if get? [:rps :cpu-us] [:mib-s :cpu-ns-byte])]]
       (str "Beside: " label " and the Java-only Vert.x client at once, " (count (:runs beside))
            " round(s): " (if get? "req/s" "MiB/s") " ÷ Vert.x " (with-spread (get-in beside [:ratio a]) #(f % 3))
            ", " (if get? "CPU µs/req" "CPU ns/byte") " ÷ Vert.x " (with-spread (get-in beside [:ratio b]) #(f % 3))
            (when-let [alloc (and get? (get-in beside [:ratio :alloc-b]))]
              (str ", bytes allocated/req ÷ Vert.x " (with-spread alloc #(f % 3))))
            "."))
     [""])))

(defn markdown
  "The Markdown report of a client benchmark run."
  [{:keys [stamp settings] :as data}]
  (str/join
   "\n"
   (concat
    ["# Onager benchmark: the HTTP client"
     ""
     (str "- **Kind:** " (if (:quick settings) "QUICK run: a placeholder, not a result" "full client run"))
     (str "- **Commit:** `" (:commit stamp) "` · **JDK:** " (:jdk stamp) " · **CPU:** " (:cpu stamp) " × " (:cpus stamp)
          " · **Linux** " (:kernel stamp))
     (str "- **When:** " (:date stamp) ", took " (f (:minutes stamp) 1) " min; load average at start "
          (:load-at-start stamp) ", at end " (:load-at-end stamp))
     (str "- **How:** raw Vert.x server pinned to CPU " (get-in settings [:cpus :server]) ", each client in a JVM of "
          "its own (-Xmx512m, ParallelGC) pinned to CPU " (get-in settings [:cpus :wrk]) "; " (:runs settings)
          " round(s) alone, alternating clients, and " (:pairs settings) " pair(s) at once (below); GETs start"
          " once the JIT is quiet after start-up and are measured for " (:duration settings)
          " s after a warm-up of at least " (:warmup settings) " s, which goes on (up to 60 s more) until the"
          " client's JIT compiles under 2 % of the time in three 2 s windows in a row, 64 callers on virtual"
          " threads each waiting for its response")
     ""
     "Every ratio is the client's figure over the Java-only Vert.x client's in the same round, then the"
     "median (min–max) of those. CPU is the client JVM's own (all its threads), read in it over the"
     "measured window, per request or per byte. The Vert.x, JDK and Onager clients speak h2 over TLS"
     "(ALPN) in the h2 scenarios; clj-http has no HTTP/2."
     ""
     "Onager's client also runs at once with the Java-only one, both on the clients' CPU (\"Beside\""
     "below), after each round's runs alone and then in rounds of pairs only: GETs warm up for at least"
     "the longer warm-up the two needed in the last round alone and until both JITs are quiet (each"
     "compiles on half the CPU), then measure the same seconds; transfers start together. The layer's"
     "bars use those pairs' ratios: rounds apart differ by more than the layer costs on a shared machine."
     ""
     "## The bars (issue 24)"
     ""
     "| scenario | figure | value | target | |"
     "|---|---|---|---|---|"]
    (map bar-row (bars data))
    ["" "## Results" ""]
    (mapcat scenario-table (:scenarios data))
    ["Reproduce: `make bench-client` (full), `make bench-client QUICK=1`. See bench/README.md." ""])))

(defn write
  "Writes client.md and client.json to `dir`, and copies them to `results-dir`
  when it is given."
  [data dir results-dir]
  (let [md (io/file dir "client.md")
        js (io/file dir "client.json")]
    (io/make-parents md)
    (spit md (markdown data))
    (spit js (json/write-str data))
    (when results-dir
      (.mkdirs (io/file results-dir))
      (io/copy md (io/file results-dir "client.md"))
      (io/copy js (io/file results-dir "client.json")))
    (println (str "Report: " md (when results-dir (str " (and " results-dir "/)"))))
    data))
