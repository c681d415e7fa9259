(ns onager.bench.proc
  "What the harness asks of the operating system: running commands, and what
  Linux's /proc says about a process (CPU time, resident memory)."
  (:require [clojure.java.shell :as shell]
            [clojure.string :as str]))

(set! *warn-on-reflection* true)

(defn sh
  "Runs `args` and returns its trimmed stdout, or nil when it fails."
  [& args]
  (try
    (let [{:keys [exit out]} (apply shell/sh args)]
      (when (zero? (long exit)) (str/trim out)))
    (catch java.io.IOException _ nil)))

(defn- read-proc
  "The text of a /proc file. (slurp fails on them on JDK 25: it asks
  FileInputStream.available, which the kernel refuses.)"
  ^String [path]
  (String. (java.nio.file.Files/readAllBytes (java.nio.file.Path/of ^String path (make-array String 0)))
           java.nio.charset.StandardCharsets/ISO_8859_1))

(def ^:private ticks-per-second
  (delay (double (or (some-> (sh "getconf" "CLK_TCK") parse-long) 100))))

(defn cpu-times
  "{:user :system} CPU seconds that process `pid` (all its threads) has used
  so far; nil when the process is gone. Resolution: one clock tick (10 ms on
  Linux), so read it around runs of seconds."
  [pid]
  (try
    (let [stat (read-proc (str "/proc/" pid "/stat"))
          ;; The command name may hold spaces: fields are counted after its ")".
          fields (str/split (subs stat (+ 2 (long (str/last-index-of stat ")")))) #" ")
          tick (double @ticks-per-second)]
      {:user (/ (long (parse-long (nth fields 11))) tick)
       :system (/ (long (parse-long (nth fields 12))) tick)})
    (catch java.io.IOException _ nil)))

(defn cpu-seconds
  "User plus system CPU seconds that process `pid` has used so far; nil when
  the process is gone."
  [pid]
  (when-let [{:keys [user system]} (cpu-times pid)]
    (+ (double user) (double system))))

(defn- status-kb [pid field]
  (try
    (some (fn [line]
            (when (str/starts-with? line (str field ":"))
              (parse-long (re-find #"\d+" line))))
          (str/split-lines (read-proc (str "/proc/" pid "/status"))))
    (catch java.io.IOException _ nil)))

(defn rss-kb
  "The resident set size of process `pid` now, in KiB; nil when it is gone."
  [pid]
  (status-kb pid "VmRSS"))

(defn peak-rss-kb
  "The largest resident set size process `pid` has had, in KiB."
  [pid]
  (status-kb pid "VmHWM"))

(defn cpu-count
  "The CPUs this machine has online."
  []
  (.availableProcessors (Runtime/getRuntime)))

(defn taskset-prefix
  "The command prefix that pins a process to `cpus` (a string such as \"0\" or
  \"2-3\"), or nothing when `cpus` is nil."
  [cpus]
  (if cpus ["taskset" "-c" (str cpus)] []))
