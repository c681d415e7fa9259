(ns onager.signal-app
  "A server for onager.server.jvm-test's SIGTERM tests, in a JVM of its own:
  started with :shutdown-hook? true, and, with the argument stop-first,
  stopped again at once, which must give SIGTERM back to the JVM.

  Run: clojure -m onager.signal-app [stop-first]"
  (:require [onager.server :as server]))

(set! *warn-on-reflection* true)

(defn -main
  "Starts the server (and stops it, given stop-first), then says where it
  listened; the JVM stays up for the test's signal."
  [& [mode]]
  (let [s (server/start (fn [_] {:status 200 :body "ok"}) {:host "127.0.0.1" :port 0 :shutdown-hook? true})]
    (when (= mode "stop-first") (server/stop s))
    (println (str "listening on http://127.0.0.1:" (server/port s) "/"))
    (flush)
    @(promise)))
