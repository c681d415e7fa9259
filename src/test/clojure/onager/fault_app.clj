(ns onager.fault-app
  "A server for the tests that need a JVM of their own (onager.server.jvm-test):
  /hog reads the whole request body into memory, as a careless handler would;
  anything else answers \"ok\".

  Run: clojure -m onager.fault-app PORT MAX-BODY MODE"
  (:require [onager.server :as server])
  (:import [java.io InputStream]))

(set! *warn-on-reflection* true)

(defn handler
  "The fault app's Ring handler."
  [request]
  (if (= "/hog" (:uri request))
    (let [bytes (.readAllBytes ^InputStream (:body request))]
      {:status 200 :body (str "held " (alength bytes) " bytes\n")})
    {:status 200 :body "ok\n"}))

(defn -main
  "Starts the fault app on PORT (0: a free one) with :max-body MAX-BODY and
  :handler-mode MODE (virtual, event-loop or worker)."
  [port max-body mode]
  (let [s (server/start handler {:host "127.0.0.1" :port (parse-long port) :max-body (parse-long max-body)
                                 :handler-mode (keyword mode)})]
    (println (str "fault app listening on http://127.0.0.1:" (server/port s) "/"))
    (flush)))
