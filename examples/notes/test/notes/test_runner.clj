(ns notes.test-runner
  "Runs every notes test namespace: `clj -M:test`. Exits with 1 when a test
  failed, so that a script or CI sees it."
  (:require [clojure.test :as t]))

(set! *warn-on-reflection* true)

(def ^:private namespaces
  '[notes.validation-test notes.api-test notes.static-test])

(defn -main
  "Runs the tests and exits."
  [& _]
  (apply require namespaces)
  (let [{:keys [fail error]} (apply t/run-tests namespaces)]
    (shutdown-agents)
    (System/exit (if (zero? (+ (long fail) (long error))) 0 1))))
