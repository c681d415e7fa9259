(ns onager.bench.floor
  "The floor under any Clojure server on Vert.x run from source: clojure.main
  boots Clojure and compiles this namespace from its source, as it does the
  demo's, and then starts the harness's raw Vert.x server. No Onager code is
  loaded, so what this server needs in start-up time, heap and resident
  memory, a Clojure server on Vert.x 5 started the same way cannot do with
  less.

    clojure -m onager.bench.floor --port 8080"
  (:import [onager.bench.vertx RawVertx]))

(set! *warn-on-reflection* true)

(defn -main
  "Starts the raw Vert.x server with `args` (--port N) and returns; its event
  loops keep the JVM running."
  [& args]
  (RawVertx/main (into-array String args)))
