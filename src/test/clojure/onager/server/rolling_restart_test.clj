(ns onager.server.rolling-restart-test
  "A rolling deploy behind a real load balancer: nginx (Debian, its default
  retry policy, which never sends a POST again once it has sent it) in front of
  two demo JVMs, under steady POST load from wrk, while each demo in turn gets
  SIGTERM and is started again on its port. Not one request may fail: the
  draining server stops accepting first, answers what arrives with
  Connection: close, and never closes a connection a request may be on its way
  down."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.client-support :refer [free-port]]
            [onager.nginx-support :as nginx-support]
            [onager.test-jvm :as jvm])
  (:import [java.io File]
           [java.nio.file Files]
           [java.nio.file.attribute FileAttribute]
           [java.util.concurrent TimeUnit]))

(set! *warn-on-reflection* true)

(defn- nginx-config
  "examples/deploy/nginx.conf, the one doc/deployment.md shows, on the test's
  ports, with its files in `dir`."
  [^File dir port [a b]]
  (-> (slurp "examples/deploy/nginx.conf")
      (str/replace "events {}" (str (nginx-support/main-directives dir) "events {}"))
      (str/replace "http {" (str "http {\n" (nginx-support/http-directives dir "    ")))
      (str/replace "127.0.0.1:8081" (str "127.0.0.1:" a))
      (str/replace "127.0.0.1:8082" (str "127.0.0.1:" b))
      (str/replace "listen 8080;" (str "listen 127.0.0.1:" port ";"))))

(defn- start-demo [port]
  (jvm/start [] 'onager.demo "--port" (str port)))

(defn- restart
  "SIGTERM to `demo`, waits for it to exit, starts a new one on its port; the
  old one's exit status and log."
  [demo port]
  (let [^Process process (:process demo)]
    (shell/sh "kill" "-TERM" (str (.pid process)))
    (let [exited? (.waitFor process 60 TimeUnit/SECONDS)]
      {:exit (when exited? (.exitValue process))
       :log (jvm/log-text demo)
       :next (start-demo port)})))

(defn- wrk-summary
  "What wrk printed, read into the counts the test checks."
  [out]
  {:requests (some-> (re-find #"(\d+) requests in" out) second parse-long)
   :non-2xx (or (some-> (re-find #"Non-2xx or 3xx responses: (\d+)" out) second parse-long) 0)
   :socket-errors (re-find #"Socket errors:.*" out)})

(deftest a-rolling-restart-behind-nginx-loses-no-request
  (let [dir (.toFile (Files/createTempDirectory "onager-rolling" (make-array FileAttribute 0)))
        ports [(free-port) (free-port)]
        front (free-port)
        script (io/file dir "post.lua")
        demos (atom (mapv start-demo ports))
        nginx (nginx-support/start dir (nginx-config dir front ports) [front])]
    (spit script (str "wrk.method = \"POST\"\n"
                      "wrk.body = string.rep(\"x\", 2000)\n"
                      "wrk.headers[\"Content-Type\"] = \"application/octet-stream\"\n"))
    (try
      ;; wrk runs until told to stop (SIGINT makes it print its figures), bounded by -d.
      (let [wrk (-> (ProcessBuilder. ^java.util.List (vector "wrk" "-t1" "-c32" "-d120s" "-s" (.getPath script)
                                                             (str "http://127.0.0.1:" front "/upload")))
                    (.redirectErrorStream true)
                    (.redirectOutput (io/file dir "wrk.log"))
                    (.start))
            _ (Thread/sleep 3000)
            restarts (vec (for [i (range 2)]
                            (let [r (restart (nth @demos i) (nth ports i))]
                              (swap! demos assoc i (:next r))
                              ;; Both serve (nginx's fail_timeout, 2 s, over) before the next one goes.
                              (Thread/sleep 3000)
                              r)))]
        (shell/sh "kill" "-INT" (str (.pid wrk)))
        (is (.waitFor wrk 30 TimeUnit/SECONDS) "wrk stops when told")
        (let [out (slurp (io/file dir "wrk.log"))
              {:keys [requests non-2xx socket-errors]} (wrk-summary out)
              errors (slurp (io/file dir "error.log"))]
          (testing "each demo drained on SIGTERM and exited 0"
            (is (= [0 0] (map :exit restarts)))
            (is (every? #(re-find #"stopping .* gracefully" (:log %)) restarts)))
          (testing "steady load went through both restarts"
            (is (some? requests) out)
            (is (< 2000 (or requests 0)) out))
          (testing "and not one request failed"
            (is (zero? non-2xx) out)
            (is (nil? socket-errors) out)
            ;; A connection refused or reset while nginx connects is one it tries on the other
            ;; demo; one that fails once the request is sent is a request lost.
            (is (not-any? #(and (re-find #"reset by peer|prematurely closed|timed out" %)
                                (not (str/includes? % "while connecting to upstream")))
                          (str/split-lines errors))
                errors))))
      (finally
        (nginx-support/stop nginx)
        (run! jvm/stop @demos)))))
