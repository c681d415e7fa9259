(ns onager.metrics-app
  "A -main for a JVM of its own, for what the metrics tests cannot check in
  theirs, where other tests have loaded Micrometer: that a server without
  :metrics loads no Micrometer class (the JVM runs with -Xlog:class+load, and
  this prints a marker line before it turns metrics on), and what
  onager.metrics says when Micrometer is not on the class path."
  (:require [onager.metrics :as metrics]
            [onager.router :as router]
            [onager.server :as server]))

(defn- status
  "The status of a GET of `url`."
  [url]
  (.getResponseCode ^java.net.HttpURLConnection (.openConnection (java.net.URL. url))))

(defn- serve-once
  "Starts a router's server with `opts` and :max-uri-length 100, makes a request
  its route takes, one no route takes and one it refuses (414), stops it;
  returns the first's body."
  [opts]
  (let [app (router/router [["/r/:id" {:get (fn [_] {:status 200 :body "ok"})}]])
        s (server/start app (merge {:host "127.0.0.1" :port 0 :max-uri-length 100} opts))
        base (str "http://127.0.0.1:" (server/port s))]
    (try
      (let [body (slurp (str base "/r/1"))]
        (assert (= 404 (status (str base "/nothing"))))
        (assert (= 414 (status (str base "/" (apply str (repeat 200 "u"))))))
        body)
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
