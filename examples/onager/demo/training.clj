(ns onager.demo.training
  "The training run of the demo's JDK AOT cache (`make aot-cache`, JDK 25+):
  the demo started as it is deployed, plus --train, which hands the server to
  `run` to be exercised, so that the JVM records what a real start and real
  requests load, link and profile (JEP 483, 514, 515):

    java -XX:AOTCacheOutput=target/onager-demo.aot -jar target/onager-demo.jar --port 0 --train

  The requests go over plain sockets rather than through an HTTP client, whose
  classes would go into the cache and be loaded at every start of the server."
  (:require [clojure.string :as str]
            [onager.server :as server])
  (:import [java.io OutputStream]
           [java.net Socket]
           [java.nio.charset StandardCharsets]))

(set! *warn-on-reflection* true)

(def ^:private requests
  "[method path body expected-status]: every endpoint but /fail, whose stack
  trace in the log would only alarm."
  [["GET" "/" nil 200]
   ["GET" "/plaintext" nil 200]
   ["GET" "/json" nil 200]
   ["POST" "/echo" "echo me" 200]
   ["GET" "/sleep?ms=1" nil 200]
   ["GET" "/stream?n=3" nil 200]
   ["GET" "/download?size=100000" nil 200]
   ["GET" "/download?size=100000&as=seq" nil 200]
   ["POST" "/upload" (apply str (repeat 1000 "upload ")) 200]
   ["GET" "/static/index.html" nil 200]
   ["GET" "/nothing-here" nil 404]])

(def ^:private rounds
  "How many times each request is sent: enough for the JVM to profile the
  paths every request takes (JEP 515), few enough to take a second or two."
  50)

(defn- status
  "Sends one request on a connection of its own, reads the whole response and
  returns its status code."
  [port method path ^String body]
  (with-open [s (Socket. "127.0.0.1" (int port))]
    (let [^OutputStream out (.getOutputStream s)
          content (.getBytes (str body) StandardCharsets/UTF_8)
          head (str method " " path " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                    (when body (str "Content-Length: " (alength content) "\r\n"))
                    "\r\n")]
      (.write out (.getBytes head StandardCharsets/ISO_8859_1))
      (.write out content)
      (.flush out)
      (let [response (String. (.readAllBytes (.getInputStream s)) StandardCharsets/ISO_8859_1)]
        (parse-long (second (str/split response #" " 3)))))))

(defn run
  "Requests every endpoint of the demo `server` `rounds` times, stops it and
  exits the JVM (which then writes the AOT cache): 0 when every answer had the
  status it should, 1 otherwise."
  [server]
  (let [port (server/port server)
        wrong (doall (for [_ (range rounds)
                           [method path body expected] requests
                           :let [got (status port method path body)]
                           :when (not= expected got)]
                       (str method " " path ": " got ", not " expected)))]
    (server/stop server)
    (shutdown-agents)
    (if (empty? wrong)
      (println "training run: every endpoint answered" rounds "times")
      (binding [*out* *err*]
        (println "training run failed:" (str/join "; " (distinct wrong)))))
    (flush)
    (System/exit (if (empty? wrong) 0 1))))
