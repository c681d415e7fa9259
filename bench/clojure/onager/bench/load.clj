(ns onager.bench.load
  "The scenarios, and wrk, which drives them."
  (:require [clojure.string :as str]
            [onager.bench.json :as json]
            [onager.bench.proc :as proc])
  (:import [java.util.concurrent TimeUnit]))

(set! *warn-on-reflection* true)

(def scenarios
  "Every scenario, in report order. `:skip` names servers the scenario says
  nothing about (a blocking handler on the event loop stalls the loop by
  design). `:bar-key` is the figure the issue's bars read."
  [{:id "plaintext" :label "plaintext" :path "/plaintext" :connections 64
    :doc "GET /plaintext, 13 bytes, 64 connections, no pipelining"}
   {:id "pipelined" :label "plaintext, pipelined ×16" :path "/plaintext" :connections 64 :depth 16
    :doc "the same, 16 requests per write (TechEmpower's pipeline.lua)"}
   {:id "json" :label "JSON" :path "/json" :connections 64
    :doc "GET /json, {\"message\":\"Hello, World!\"} serialised per request with Jackson"}
   {:id "sleep" :label "50 ms blocking" :path "/sleep?ms=50" :connections 120
    :skip #{"onager-event-loop"}
    :doc "GET /sleep?ms=50 at 120 connections: the ceiling is 2400 req/s"}
   {:id "download" :label "1 MiB download" :path "/download?size=1048576" :connections 16
    :doc "GET /download, a 1 MiB body generated as it is sent, 16 connections"}
   {:id "upload" :label "1 MiB upload" :path "/upload" :connections 16 :upload 1048576
    :doc "POST /upload with a 1 MiB body the server reads and checksums, 16 connections"}])

(defn by-id
  "The scenario `id` names, or nil."
  [id]
  (first (filter #(= id (:id %)) scenarios)))

(defn wrk-command
  "The wrk command line for `scenario` against `port` for `seconds`, wrk
  pinned to `cpus` with `threads` threads."
  [scenario port seconds {:keys [cpus threads]}]
  (vec (concat (proc/taskset-prefix cpus)
               ["wrk" "-t" (str threads) "-c" (str (:connections scenario))
                "-d" (str seconds "s") "--timeout" "10s"
                "-s" "bench/wrk/bench.lua"
                (str "http://127.0.0.1:" port (:path scenario))
                "--" (str (:depth scenario 1)) (str (:upload scenario 0))])))

(defn run-wrk
  "Runs wrk for `scenario` against `port` for `seconds`. Returns what its
  script reports (requests, errors, latency in µs) plus :rps; throws when
  wrk fails."
  [scenario port seconds opts]
  (let [cmd (wrk-command scenario port seconds opts)
        p (.start (doto (ProcessBuilder. ^java.util.List cmd) (.redirectErrorStream true)))
        out (slurp (.getInputStream p))]
    (when-not (.waitFor p (+ 60 (long seconds)) TimeUnit/SECONDS)
      (.destroyForcibly p)
      (throw (ex-info (str "wrk did not finish: " (str/join " " cmd)) {:out out})))
    (let [line (last (filter #(str/starts-with? % "{") (str/split-lines out)))]
      (when (or (not (zero? (.exitValue p))) (nil? line))
        (throw (ex-info (str "wrk failed (" (.exitValue p) "): " (str/join " " cmd) "\n" out) {:out out})))
      (let [r (json/read-str line)
            secs (/ (double (:duration_us r)) 1e6)]
        (assoc r
               :rps (/ (double (:requests r)) secs)
               :error-count (reduce + (vals (:errors r)))
               :non-2xx (get-in r [:errors :status]))))))
