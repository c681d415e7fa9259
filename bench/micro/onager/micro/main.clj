(ns onager.micro.main
  "Runs the micro-benchmarks (`make bench-micro`, QUICK=1 for a short run),
  prints a table and writes bench/results/micro/report.md and report.json.

  Each comparison checks first that every candidate computes the same result;
  then onager.micro.harness measures them all in this JVM."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [onager.json :as json]
            [onager.micro.harness :as harness]
            [onager.micro.json :as micro-json]
            [onager.micro.params :as micro-params]
            [onager.micro.routes :as micro-routes])
  (:import [java.time Instant]))

(set! *warn-on-reflection* true)

(def ^:private settings
  {:quick {:warm-ms 1000 :rounds 7 :sample-ms 50}
   :full {:warm-ms 3000 :rounds 15 :sample-ms 200}})

(defn- verify! [{:keys [id candidates same verify]}]
  (if verify
    (when-not (verify) (throw (ex-info (str id ": the candidates do not compute the same results") {:id id})))
    (let [results (map (fn [{:keys [name f]}] [name (same (f))]) candidates)]
      (when-not (apply = (map second results))
        (throw (ex-info (str id ": the candidates do not compute the same results") {:id id :results results}))))))

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

(defn- markdown [{:keys [machine mode settings started finished load] :as _report} results]
  (str/join
   "\n"
   (concat
    ["# Micro-benchmarks"
     ""
     (str "`make bench-micro" (when (= mode :quick) " QUICK=1") "`, " started " to " finished ".")
     ""
     (str "Machine: " (:cpus machine) " CPUs (" (:cpu machine) "), " (:jvm machine) ", " (:os machine)
          ", heap " (:max-heap-mib machine) " MiB, commit " (:commit machine)
          ". Load average " (:before load) " before, " (:after load) " after: the machine is shared, so "
          "compare ratios, not absolute figures.")
     ""
     (str "Every candidate runs in one JVM, each in a loop of its own (as JMH generates them). All are "
          "warmed up first, " (:warm-ms settings) " ms each; then "
          (:rounds settings) " rounds go over every comparison, one batch of about " (:sample-ms settings)
          " ms per candidate per round, the order rotating. ns/op is the median over rounds (min and max "
          "beside it); × is how many times longer the peer takes than onager: the median over rounds of the "
          "two figures' ratio within a round. B/op is what the calling thread allocates per call.")
     ""
     "| benchmark | candidate | ns/op (median) | min | max | B/op | × onager's time | target |"
     "|---|---|---:|---:|---:|---:|---:|---|"]
    (for [{:keys [title candidates target met?]} results
          [i {:keys [name median-ns min-ns max-ns bytes-per-op ratio]}] (map-indexed vector candidates)]
      (str "| " (if (zero? i) title "") " | " name " | " (fmt median-ns 0) " | " (fmt min-ns 0) " | " (fmt max-ns 0)
           " | " (fmt bytes-per-op 0)
           " | " (if ratio (str (fmt ratio 2) "×") "1×")
           " | " (cond
                   (pos? i) ""
                   target (str "≥ " (fmt (:at-least target) 1) "× vs " (:peer target)
                               (when (seq (:also-faster-than target))
                                 (str ", faster than " (str/join ", " (:also-faster-than target))))
                               ": " (if met? "**met**" "**NOT met**"))
                   :else "")
           " |"))
    [""])))

(defn -main [& _]
  (let [mode (if (System/getenv "QUICK") :quick :full)
        s (settings mode)
        started (str (Instant/now))
        before (load-average)
        benchmarks (vec (concat (micro-params/benchmarks) (micro-json/benchmarks) (micro-routes/benchmarks)))
        _ (run! verify! benchmarks)
        measured (harness/measure (mapv :candidates benchmarks) s #(do (println "micro-benchmarks:" %) (flush)))
        results (mapv result benchmarks measured)
        report {:mode mode :settings s :started started :finished (str (Instant/now)) :machine (machine)
                :load {:before before :after (load-average)} :results results}
        md (markdown report results)
        dir (io/file "bench/results/micro")]
    (.mkdirs dir)
    (spit (io/file dir "report.md") md)
    (spit (io/file dir "report.json") (json/write report {:pretty? true}))
    (println)
    (println md)
    (println "Wrote bench/results/micro/report.md and report.json")
    (shutdown-agents)))
