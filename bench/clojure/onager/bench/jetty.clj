(ns onager.bench.jetty
  "ring-jetty-adapter 1.8 (the Debian package) serving the demo's own Ring
  handler, with the adapter's defaults: the peer a Ring user runs today.

    clojure -m onager.bench.jetty --port 8080"
  (:require [clojure.java.io :as io]
            [onager.demo :as demo]
            [ring.adapter.jetty :as jetty]))

(set! *warn-on-reflection* true)

(defn -main
  "Starts Jetty on --port (8080 when not given) and returns; Jetty's threads
  keep the JVM running."
  [& args]
  (let [opts (apply hash-map args)
        port (or (some-> (get opts "--port") parse-long) 8080)]
    (jetty/run-jetty (demo/handler (io/file "examples/static")) {:port port :join? false})
    (println (str "ring-jetty-adapter listening on http://127.0.0.1:" port "/"))
    (flush)))
