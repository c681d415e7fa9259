(ns onager.metrics-app
  "A -main for a JVM of its own, for what the metrics tests cannot check in
  theirs, where other tests have loaded Micrometer: that a server without
  :metrics loads no Micrometer class (the JVM runs with -Xlog:class+load, and
  this prints a marker line before it turns metrics on), and what
  onager.metrics says when Micrometer is not on the class path."
  (:require [onager.metrics :as metrics]
            [onager.server :as server]))

(defn- serve-once
  "Starts a server with `opts`, makes one request, stops it; returns the body."
  [opts]
  (let [s (server/start (fn [_] {:status 200 :body "ok"}) (merge {:host "127.0.0.1" :port 0} opts))]
    (try
      (slurp (str "http://127.0.0.1:" (server/port s) "/"))
      (finally (server/stop s)))))

(defn -main
  "\"off-then-on\": a request to a server without :metrics, the marker line, then
  one with them. \"missing\": what onager.metrics/prometheus-registry throws, as EDN."
  [what]
  (case what
    "off-then-on" (do (println "metrics off:" (serve-once {}))
                      (println "=== metrics on ===")
                      (println "metrics on:" (serve-once {:metrics (metrics/prometheus-registry)})))
    "missing" (prn (try (metrics/prometheus-registry)
                        {:made :registry}
                        (catch clojure.lang.ExceptionInfo e
                          {:message (ex-message e) :data (ex-data e)}))))
  (shutdown-agents))
