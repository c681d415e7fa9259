(ns onager.server.shutdown-test
  "Graceful stop under load, for rolling deploys: every request in flight when
  `stop` is called completes, whole, with Connection: close; new connections are
  refused at once; no connection is reset in the middle of a response."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.server :as server]
            [onager.test-support :as ts])
  (:import [java.net Socket]
           [java.util.concurrent CountDownLatch Executors ScheduledExecutorService TimeUnit]))

(def ^:private body-size 20000)
(def ^:private handler-ms 2000)

(defn- answer [] {:status 200 :headers {"Content-Type" "text/plain"} :body (apply str (repeat body-size "d"))})

(defn- send-request
  "Opens a connection and sends one keep-alive GET on it."
  ^Socket [port]
  (doto (ts/connect port) (.setSoTimeout 60000) (ts/send! "GET /slow HTTP/1.1\r\nHost: x\r\n\r\n")))

(defn- read-to-end [^Socket socket]
  (with-open [socket socket] (ts/read-all socket)))

(defn- await-refusal
  "Milliseconds until connecting to `port` is refused, polling for up to 10 s; nil if never."
  [port]
  (let [start (System/currentTimeMillis)]
    (loop []
      (cond
        (ts/refused? port) (- (System/currentTimeMillis) start)
        (> (- (System/currentTimeMillis) start) 10000) nil
        :else (do (Thread/sleep 20) (recur))))))

(defn- drain-test [handler opts started]
  (let [n 200
        s (ts/start handler (merge {:shutdown-timeout-ms 60000} opts))
        port (server/port s)
        sockets (mapv (fn [_] (send-request port)) (range n))
        readers (mapv #(future (read-to-end %)) sockets)]
    (is (.await ^CountDownLatch started 30 TimeUnit/SECONDS) "all 200 handlers are running")
    (let [stopping (future (server/stop s))
          refused-after (await-refusal port)]
      (testing "new connections are refused at once, while the requests in flight still run"
        (is (some? refused-after))
        (is (not-any? realized? readers)))
      (let [results (mapv deref readers)]
        (testing "every request in flight completes with 200 and its whole body"
          (is (= (repeat n [200]) (map (comp ts/statuses :text) results)))
          (is (every? #(str/ends-with? (:text %) (str "\r\n\r\n" (apply str (repeat body-size "d")))) results)))
        (testing "each response tells the client to close, then the server closes: never a reset"
          (is (every? #(re-find #"(?i)\r\nconnection: close\r\n" (:text %)) results))
          (is (not-any? :reset? results))))
      (is (nil? (deref stopping 30000 :timeout)) "stop returns once they are done")
      (is (ts/refused? port)))))

(deftest stop-drains-200-slow-requests
  (let [started (CountDownLatch. 200)]
    (drain-test (fn [_] (.countDown started) (Thread/sleep handler-ms) (answer)) {} started)))

(deftest stop-drains-200-slow-async-requests
  (let [started (CountDownLatch. 200)
        timer (Executors/newSingleThreadScheduledExecutor)]
    (try
      (drain-test (fn [_ respond _]
                    (.countDown started)
                    (.schedule ^ScheduledExecutorService timer ^Runnable #(respond (answer))
                               (long handler-ms) TimeUnit/MILLISECONDS))
                  {:async? true} started)
      (finally (.shutdownNow timer)))))

(deftest idle-keep-alive-connections-close-at-stop
  (let [s (ts/start (fn [_] (answer)) {:shutdown-timeout-ms 10000})
        socket (send-request (server/port s))
        in (.getInputStream socket)]
    (testing "a connection that finished its request and waits for the next"
      (Thread/sleep 300)
      (is (pos? (.available in))))
    (let [start (System/currentTimeMillis)]
      (server/stop s)
      (testing "is closed by stop without waiting for the shutdown timeout"
        (is (< (- (System/currentTimeMillis) start) 5000))
        (let [{:keys [text reset?]} (read-to-end socket)]
          (is (= [200] (ts/statuses text)))
          (is (not reset?)))))))

(deftest a-handler-that-outlives-the-stop-ends-quietly
  ;; Past :shutdown-timeout-ms the loops close under a handler still running; its
  ;; answer has nowhere to go, and must not become an uncaught exception on its thread.
  (let [uncaught (atom [])
        previous (Thread/getDefaultUncaughtExceptionHandler)]
    (Thread/setDefaultUncaughtExceptionHandler
      (reify Thread$UncaughtExceptionHandler
        (uncaughtException [_ thread e] (swap! uncaught conj [(.getName thread) e]))))
    (try
      (doseq [[mode async?] [[:virtual false] [:worker false] [:virtual true]]
              :let [what (str mode (when async? " async"))]]
        (let [release (promise)
              finished (promise)
              answer (fn [] (try (deref release 10000 nil) {:status 200 :body "late"}
                                 (finally (deliver finished true))))
              s (ts/start (if async? (fn [_ respond _] (future (respond (answer)))) (fn [_] (answer)))
                          {:handler-mode mode :async? async? :shutdown-timeout-ms 200})]
          (with-open [socket (send-request (server/port s))]
            (Thread/sleep 200)
            (server/stop s)
            (deliver release true)
            (is (deref finished 10000 false) (str what ": the handler ran to its end"))
            (Thread/sleep 300)
            (is (:closed? (ts/read-all socket)) (str what ": the connection was closed")))))
      (is (= [] @uncaught) "no uncaught exception on any thread")
      (finally (Thread/setDefaultUncaughtExceptionHandler previous)))))

(defn- request-on
  "Sends a keep-alive GET of `path` on `socket` and reads one response: its text."
  [^Socket socket path]
  (ts/send! socket (str "GET " path " HTTP/1.1\r\nHost: x\r\n\r\n"))
  (let [in (.getInputStream socket)
        buf (byte-array 65536)]
    (loop [text ""]
      (let [n (.read in buf)
            text (str text (when (pos? n) (String. buf 0 n "ISO-8859-1")))]
        (if (or (neg? n) (str/includes? text "\r\n\r\nok")) text (recur text))))))

(deftest an-idle-connection-answers-a-request-that-comes-while-the-server-stops
  ;; A load balancer may send a request down a kept-alive connection at the moment the
  ;; server decides to close it: kept open for :shutdown-idle-ms, the connection answers it.
  (let [s (ts/start (fn [_] {:status 200 :headers {"Content-Type" "text/plain"} :body "ok"})
                    {:shutdown-idle-ms 3000})
        busy (ts/connect s)
        idle (ts/connect s)]
    (is (re-find #"^HTTP/1.1 200 " (request-on busy "/first")))
    (is (re-find #"^HTTP/1.1 200 " (request-on idle "/first")))
    (let [stopping (future (server/stop s))]
      (testing "new connections are refused at once"
        (is (some? (await-refusal (server/port s)))))
      (testing "a request on a kept-alive connection is answered, telling the client to go"
        (let [text (request-on busy "/second")]
          (is (= [200] (ts/statuses text)))
          (is (re-find #"(?i)\r\nconnection: close\r\n" text))
          (is (not (:reset? (read-to-end busy))) "then the server closes it cleanly")))
      (testing "a connection no request came on closes after :shutdown-idle-ms, never reset"
        (is (not (realized? stopping)))
        (let [{:keys [text closed? reset?]} (read-to-end idle)]
          (is (= "" text))
          (is closed?)
          (is (not reset?))))
      (is (nil? (deref stopping 10000 :timeout))))))

(deftest shutdown-idle-ms-0-closes-idle-connections-at-once
  (let [s (ts/start (fn [_] {:status 200 :body "ok"}) {:shutdown-idle-ms 0 :shutdown-timeout-ms 20000})
        idle (ts/connect s)]
    (is (re-find #"^HTTP/1.1 200 " (request-on idle "/")))
    (server/stop s)
    (let [{:keys [closed? reset?]} (read-to-end idle)]
      (is closed?)
      (is (not reset?)))))
