(ns onager.transport-app
  "A -main for a JVM of its own, for what the transport tests cannot do to their
  JVM: start servers where Netty's native transports do not load
  (-Dio.netty.transport.noNative=true). It prints one EDN map: each transport
  asked for, with what start did."
  (:require [onager.server :as server]))

(defn- outcome
  "What starting a server with `transport` gives: {:transport t} when it
  starts (then stopped), or the ex-info's {:message :data}."
  [transport]
  (try
    (let [s (server/start (fn [_] {:status 200 :body "ok"}) {:host "127.0.0.1" :port 0 :transport transport})]
      (try
        {:transport (server/transport s) :body (slurp (str "http://127.0.0.1:" (server/port s) "/"))}
        (finally (server/stop s))))
    (catch clojure.lang.ExceptionInfo e
      {:message (ex-message e) :data (ex-data e)})))

(defn -main
  "Prints {transport outcome} for the transports named in `args`."
  [& args]
  (prn (into {} (map (fn [t] [(keyword t) (outcome (keyword t))])) args))
  (shutdown-agents))
