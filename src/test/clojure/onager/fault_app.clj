(ns onager.fault-app
  "A server for the tests that need a JVM of their own (onager.server.jvm-test):
  /hog reads the whole request body into memory, as a careless handler would;
  /count reads it through one small buffer and answers how many bytes came;
  anything else answers \"ok\".

  Run: clojure -m onager.fault-app PORT MAX-BODY MODE [LOW-MEMORY-PERCENT]"
  (:require [onager.server :as server])
  (:import [java.io InputStream]))

(set! *warn-on-reflection* true)

(defn- count-bytes [^InputStream in]
  (let [buf (byte-array 65536)]
    (loop [total 0]
      (let [n (.read in buf)]
        (if (neg? n) total (recur (+ total n)))))))

(defn handler
  "The fault app's Ring handler."
  [request]
  (case (:uri request)
    "/hog" (let [bytes (.readAllBytes ^InputStream (:body request))]
             {:status 200 :body (str "held " (alength bytes) " bytes\n")})
    "/count" {:status 200 :body (str "counted " (count-bytes (:body request)) " bytes\n")}
    {:status 200 :body "ok\n"}))

(defn -main
  "Starts the fault app on PORT (0: a free one) with :max-body MAX-BODY,
  :handler-mode MODE (virtual, event-loop or worker) and, when given,
  :low-memory-percent LOW-MEMORY-PERCENT."
  [port max-body mode & [low-memory-percent]]
  (let [s (server/start handler (cond-> {:host "127.0.0.1" :port (parse-long port) :max-body (parse-long max-body)
                                         :handler-mode (keyword mode)}
                                  low-memory-percent (assoc :low-memory-percent (parse-long low-memory-percent))))]
    (println (str "fault app listening on http://127.0.0.1:" (server/port s) "/"))
    (flush)))
