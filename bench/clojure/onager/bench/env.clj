(ns onager.bench.env
  "The stamp every report carries: what was measured, on what."
  (:require [clojure.string :as str]
            [onager.bench.proc :as proc])
  (:import [java.time ZonedDateTime ZoneOffset]
           [java.time.format DateTimeFormatter]))

(set! *warn-on-reflection* true)

(defn- cpu-model []
  (or (some->> (proc/sh "sh" "-c" "grep -m1 'model name' /proc/cpuinfo")
               (re-find #":\s*(.*)")
               second)
      "unknown"))

(defn- load-average []
  (some-> (proc/sh "cat" "/proc/loadavg") (str/split #" ") (->> (take 3) (str/join " "))))

(defn load-now
  "The 1, 5 and 15 minute load averages now, as /proc/loadavg gives them."
  []
  (load-average))

(defn stamp
  "The commit (with -dirty when the work tree has changes), the JDK, the CPU
  and the time."
  []
  (let [commit (or (proc/sh "git" "rev-parse" "--short=10" "HEAD") "unknown")
        dirty? (not (str/blank? (proc/sh "git" "status" "--porcelain" "--untracked-files=no")))]
    {:commit (str commit (when dirty? "-dirty"))
     :jdk (str (System/getProperty "java.vm.vendor") " " (System/getProperty "java.runtime.version"))
     :cpu (cpu-model)
     :cpus (proc/cpu-count)
     :kernel (proc/sh "uname" "-r")
     :wrk (some-> (proc/sh "sh" "-c" "wrk --version 2>&1 | head -1") (str/split #" ") second)
     :h2load (some->> (proc/sh "sh" "-c" "h2load --version 2>&1 | head -1") (re-find #"nghttp2/(\S+)") second)
     :date (.format DateTimeFormatter/ISO_OFFSET_DATE_TIME
                    (.withNano (ZonedDateTime/now ZoneOffset/UTC) 0))
     :load-at-start (load-average)}))
