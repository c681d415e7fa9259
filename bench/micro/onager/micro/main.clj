(ns onager.micro.main
  "Runs the micro-benchmarks (`make bench-micro`, QUICK=1 for a short run),
  prints a table and writes bench/results/micro/report.md and report.json.

  Each comparison runs in JVMs of its own (onager.micro.fork), several of
  them, each checking first that every candidate computes the same result;
  onager.micro.harness measures the candidates within a fork."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [onager.json :as json]
            [onager.micro.fork :as fork])
  (:import [java.time Instant]))

(set! *warn-on-reflection* true)

(def ^:private settings
  "Per fork: the harness's warm-up per candidate, rounds and batch length; and
  how many forks each comparison gets (FORKS overrides it)."
  {:quick {:warm-ms 1000 :rounds 7 :sample-ms 50 :forks 1}
   :full {:warm-ms 3000 :rounds 10 :sample-ms 200 :forks 5}})

(defn- slurp-quietly [path]
  (try (String. (java.nio.file.Files/readAllBytes (java.nio.file.Path/of ^String path (make-array String 0))))
       (catch Exception _ nil)))

(defn- machine []
  {:cpus (.availableProcessors (Runtime/getRuntime))
   :cpu (some->> (slurp-quietly "/proc/cpuinfo") (re-find #"model name\s*:\s*(.*)") second str/trim)
   :jvm (str (System/getProperty "java.vm.name") " " (System/getProperty "java.runtime.version"))
   :os (str (System/getProperty "os.name") " " (System/getProperty "os.version"))
   :max-heap-mib (quot (.maxMemory (Runtime/getRuntime)) (* 1024 1024))
   :commit (str/trim (:out (shell/sh "git" "rev-parse" "--short" "HEAD")))})

(defn- load-average []
  (some-> (slurp-quietly "/proc/loadavg") (str/split #" ") first))

(defn- result
  "The report entry of the comparison `spec` from its `measured` candidates."
  [{:keys [id title per target]} measured]
  (let [per (or per 1)
        scaled (mapv #(-> % (update :median-ns / per) (update :min-ns / per) (update :max-ns / per)
                          (update :bytes-per-op / per)
                          (update :samples (fn [s] (mapv (fn [x] (/ x per)) s))))
                     measured)
        by-name (into {} (map (juxt :name identity)) scaled)
        ratio (:ratio (by-name (:peer target)))
        also (map #(:ratio (by-name %)) (:also-faster-than target))]
    {:id id
     :title title
     :candidates scaled
     :target target
     :met? (boolean (and ratio (>= ratio (:at-least target)) (every? #(> % 1.0) also)))}))

(defn- fmt [x digits] (format (str "%." digits "f") (double x)))

(defn- markdown [{:keys [machine mode micro settings started finished load] :as _report} results]
  (str/join
   "\n"
   (concat
    ["# Micro-benchmarks"
     ""
     (str "`make bench-micro" (when (= mode :quick) " QUICK=1") (when micro (str " MICRO=" micro)) "`, "
          started " to " finished ".")
     ""
     (str "Machine: " (:cpus machine) " CPUs (" (:cpu machine) "), " (:jvm machine) ", " (:os machine)
          ", heap " (:max-heap-mib machine) " MiB, commit " (:commit machine)
          ". Load average " (:before load) " before, " (:after load) " after: the machine is shared, so "
          "compare ratios, not absolute figures.")
     ""
     (str "Each comparison runs in " (:forks settings) " JVM" (when (< 1 (:forks settings)) "s")
          " of its own (forks, as JMH runs each benchmark), the forks going round the comparisons in turn. "
          "In a fork, each candidate runs in a loop of its own (as JMH generates them); all are warmed up "
          "first, " (:warm-ms settings) " ms each; then " (:rounds settings) " rounds, one batch of about "
          (:sample-ms settings) " ms per candidate per round, the order rotating. ns/op is the median over "
          "the rounds of all forks (min and max beside it); × is how many times longer the peer takes than "
          "onager: the median over all rounds of the two figures' ratio within a round, each fork's own "
          "median beside it. B/op is what the calling thread allocates per call.")
     ""
     (str "The last column measures every comparison together in one more JVM, as a server sees every "
          "kind of request: code the comparisons share is then compiled for all of them at once. "
          "The targets are judged on the forks, as JMH measures.")
     ""
     (str "| benchmark | candidate | ns/op (median) | min | max | B/op | × onager's time | each fork's × | target "
          "| × in one JVM with all |")
     "|---|---|---:|---:|---:|---:|---:|---|---|---:|"]
    (for [{:keys [title candidates target met?]} results
          [i {:keys [name median-ns min-ns max-ns bytes-per-op ratio fork-ratios shared-ratio]}]
          (map-indexed vector candidates)]
      (str "| " (if (zero? i) title "") " | " name " | " (fmt median-ns 0) " | " (fmt min-ns 0) " | " (fmt max-ns 0)
           " | " (fmt bytes-per-op 0)
           " | " (if ratio (str (fmt ratio 2) "×") "1×")
           " | " (str/join ", " (map #(str (fmt % 2) "×") fork-ratios))
           " | " (cond
                   (pos? i) ""
                   target (str "≥ " (fmt (:at-least target) 1) "× vs " (:peer target)
                               (when (seq (:also-faster-than target))
                                 (str ", faster than " (str/join ", " (:also-faster-than target))))
                               ": " (if met? "**met**" "**NOT met**"))
                   :else "")
           " | " (if shared-ratio (str (fmt shared-ratio 2) "×") "")
           " |"))
    [""])))

(defn- chosen
  "The comparisons whose ids start with one of the comma-separated `prefixes`
  (all of them when nil)."
  [comparisons prefixes]
  (if (str/blank? prefixes)
    comparisons
    (let [ps (str/split prefixes #",")
          picked (filterv (fn [{:keys [id]}] (some #(str/starts-with? id %) ps)) comparisons)]
      (when (empty? picked)
        (throw (ex-info (str "MICRO=" prefixes " names no comparison; the ids are: "
                             (str/join ", " (map :id comparisons)))
                        {:micro prefixes})))
      picked)))

(defn- forks
  "FORKS from the environment, else `default`."
  [default]
  (if-let [v (not-empty (System/getenv "FORKS"))]
    (let [n (parse-long v)]
      (if (and n (pos? n)) n (throw (ex-info (str "FORKS=" v " is not a positive whole number") {:forks v}))))
    default))

(defn -main
  "Measures the comparisons in forks of their own and writes the report:
  into bench/results/micro/ when all of them ran, else into target/micro/.
  The environment picks: QUICK (short runs), FORKS (forks per comparison),
  MICRO (comma-separated prefixes of the comparisons' ids, as params,json/parse)."
  [& _]
  (let [mode (if (System/getenv "QUICK") :quick :full)
        s (update (settings mode) :forks forks)
        micro (not-empty (System/getenv "MICRO"))
        started (str (Instant/now))
        before (load-average)
        all (fork/comparisons)
        benchmarks (chosen all micro)
        harness-settings (select-keys s [:warm-ms :rounds :sample-ms])
        progress #(do (println "micro-benchmarks:" %) (flush))
        measured (fork/measure benchmarks (:forks s) harness-settings progress)
        shared (fork/measure-shared benchmarks harness-settings progress)
        results (mapv result benchmarks (map (fn [candidates ratios]
                                               (mapv #(cond-> %1 %2 (assoc :shared-ratio %2)) candidates ratios))
                                             measured shared))
        report {:mode mode :micro micro :settings s :started started :finished (str (Instant/now))
                :machine (machine) :load {:before before :after (load-average)} :results results}
        md (markdown report results)
        dir (io/file (if (= (count benchmarks) (count all)) "bench/results/micro" "target/micro"))]
    (.mkdirs dir)
    (spit (io/file dir "report.md") md)
    (spit (io/file dir "report.json") (json/write report {:pretty? true}))
    (println)
    (println md)
    (println (str "Wrote " dir "/report.md and report.json"))
    (shutdown-agents)))
