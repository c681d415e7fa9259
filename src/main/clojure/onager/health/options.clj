(ns onager.health.options
  "The options of `onager.health/health`: validation, defaults and
  documentation all come from `table`."
  (:require [onager.options :refer [int-in]]))

(set! *warn-on-reflection* true)

(defn- checks? [m]
  (and (map? m)
       (every? #(or (keyword? %) (string? %)) (keys m))
       (every? #(and (ifn? %) (not (coll? %))) (vals m))))

(def table
  "Options of `onager.health/health`, in the order the docs show them. See `onager.options`."
  [{:key :checks
    :default {}
    :valid? checks?
    :allowed "a map of check names (keywords or strings) to functions of no arguments"
    :doc (str "The readiness checks: what this instance needs to serve (its database, a cache warmed up). "
              "Readiness fails while one of them fails.")}
   {:key :liveness-checks
    :default {}
    :valid? checks?
    :allowed "a map of check names (keywords or strings) to functions of no arguments"
    :doc (str "The liveness checks: what only a restart mends (a deadlock detector, say). Keep them to "
              "that: an orchestrator restarts the process when liveness fails, and a database down for "
              "everyone is not mended by restarting every instance.")}
   {:key :timeout-ms
    :default 2000
    :valid? (int-in 1 600000)
    :allowed "an integer from 1 to 600000"
    :doc "How long a probe waits for its checks, which run at once; a check still running then fails."}])
