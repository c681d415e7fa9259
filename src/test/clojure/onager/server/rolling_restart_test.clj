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
  (:import [java.io File RandomAccessFile]
           [java.nio.charset StandardCharsets]
           [java.nio.file Files]
           [java.nio.file.attribute FileAttribute]
           [java.util.concurrent TimeUnit]))

(set! *warn-on-reflection* true)

(defn- nginx-config
  "examples/deploy/nginx.conf, the one doc/deployment.md shows, on the test's
  ports, with its files in `dir`. It logs each response to `dir`/served.log:
  its status, the upstreams tried and what each answered."
  [^File dir port [a b]]
  (-> (slurp "examples/deploy/nginx.conf")
      (str/replace "events {}" (str (nginx-support/main-directives dir) "events {}"))
      (str/replace "http {" (str "http {\n" (nginx-support/http-directives dir "    ")
                                 "    log_format upstreams '$status $upstream_addr $upstream_status';\n"))
      (str/replace "location / {" (str "access_log " (.getAbsolutePath dir) "/served.log upstreams;\n"
                                       "        location / {"))
      (str/replace "127.0.0.1:8081" (str "127.0.0.1:" a))
      (str/replace "127.0.0.1:8082" (str "127.0.0.1:" b))
      (str/replace "listen 8080;" (str "listen 127.0.0.1:" port ";"))))

(defn- start-demo [port]
  (jvm/start [] 'onager.demo "--port" (str port)))

(defn- await-served
  "Waits until nginx's `served` log, past its first `from` bytes, shows a
  request that the upstream on `port` answered, at its first try, with 2xx;
  true once it does, false after 60 s."
  [^File served from port]
  (let [answered (re-pattern (str "(?m)^2\\d\\d 127\\.0\\.0\\.1:" port " 2\\d\\d$"))
        deadline (+ (System/currentTimeMillis) 60000)]
    (loop []
      (let [text (with-open [file (RandomAccessFile. served "r")]
                   (let [bytes (byte-array (max 0 (- (.length file) from)))]
                     (.seek file from)
                     (.readFully file bytes)
                     (String. bytes StandardCharsets/ISO_8859_1)))]
        (cond (re-find answered text) true
              (> (System/currentTimeMillis) deadline) false
              :else (do (Thread/sleep 50) (recur)))))))

(defn- restart
  "SIGTERM to `demo`, waits for it to exit, starts a new one on its port and
  waits until nginx sends it requests again; the old one's exit status and log,
  and whether nginx came back to the new one."
  [demo port ^File served]
  (let [^Process process (:process demo)]
    (shell/sh "kill" "-TERM" (str (.pid process)))
    (let [exited? (.waitFor process 60 TimeUnit/SECONDS)
          from (.length served)
          next-demo (start-demo port)]
      {:exit (when exited? (.exitValue process))
       :log (jvm/log-text demo)
       :next next-demo
       :served-again? (await-served served from port)})))

(defn- wrk-summary
  "What wrk printed, read into the counts the test checks."
  [out]
  {:requests (some-> (re-find #"(\d+) requests in" out) second parse-long)
   :non-2xx (or (some-> (re-find #"Non-2xx or 3xx responses: (\d+)" out) second parse-long) 0)
   :socket-errors (re-find #"Socket errors:.*" out)})

(defn- failed-summary
  "How many times each line of nginx's `served` log that is not a 2xx occurs,
  most common first."
  [^File served]
  (if (.exists served)
    (->> (str/split-lines (slurp served))
         (remove #(or (str/blank? %) (str/starts-with? % "2")))
         frequencies
         (sort-by (comp - val))
         (take 20)
         (map (fn [[line n]] (str n " × " line)))
         (str/join "\n"))
    "(none logged)"))

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
            ;; nginx tries an instance it left out again only after fail_timeout, and takes it back only
            ;; once that try is answered: a new JVM on a busy machine answers its first requests late. The
            ;; next instance goes only once nginx is back on this one, or nginx has none to send to.
            restarts (vec (for [i (range 2)]
                            (let [r (restart (nth @demos i) (nth ports i) (io/file dir "served.log"))]
                              (swap! demos assoc i (:next r))
                              r)))]
        (shell/sh "kill" "-INT" (str (.pid wrk)))
        (is (.waitFor wrk 30 TimeUnit/SECONDS) "wrk stops when told")
        (let [out (slurp (io/file dir "wrk.log"))
              {:keys [requests non-2xx socket-errors]} (wrk-summary out)
              errors (slurp (io/file dir "error.log"))]
          (testing "each demo drained on SIGTERM and exited 0, and nginx sent its successor requests"
            (is (= [0 0] (map :exit restarts)))
            (is (= [true true] (map :served-again? restarts)))
            (is (every? #(re-find #"stopping .* gracefully" (:log %)) restarts)))
          (testing "steady load went through both restarts"
            (is (some? requests) out)
            (is (< 2000 (or requests 0)) out))
          (testing "and not one request failed"
            (is (zero? non-2xx) (str out "\nthe failed responses (status, upstreams tried, what they answered):\n"
                                     (failed-summary (io/file dir "served.log"))))
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
