(ns onager.autobahn-app
  "The WebSocket echo server that onager.server.autobahn-test runs the Autobahn
  TestSuite against, in a JVM of its own: each message back as it came, with
  permessage-deflate on and room for the suite's largest messages (16 MiB).
  Its handler is also onager.server.websocket-interop-test's echo.

  Run: clojure -m onager.autobahn-app MODE (virtual or event-loop)"
  (:require [onager.server :as server]
            [onager.websocket :as ws]))

(set! *warn-on-reflection* true)

(defn handler
  "Echoes each WebSocket message; refuses anything else with 400."
  [request]
  (if (ws/websocket-request? request)
    {:ring.websocket/listener {:on-message (fn [socket message] (ws/send socket message))}}
    {:status 400}))

(defn -main
  "Starts the echo server in handler mode MODE on a free port of 127.0.0.1,
  says where it listens, and serves until the JVM is stopped."
  [mode]
  ;; The cases check the protocol, not the compression ratio: level 1 keeps the
  ;; 12.* and 13.* cases (a thousand compressed messages each) short.
  (let [s (server/start handler {:host "127.0.0.1" :port 0 :handler-mode (keyword mode)
                                 :ws-compression? true :ws-compression-level 1
                                 :ws-max-frame-size (* 20 1024 1024)
                                 :ws-max-message-size (* 20 1024 1024)})]
    (println (str "listening on http://127.0.0.1:" (server/port s) "/"))
    (flush)
    @(promise)))
