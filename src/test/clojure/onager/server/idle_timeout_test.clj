(ns onager.server.idle-timeout-test
  ":idle-timeout-ms: a connection that reads and writes nothing for that long is
  closed; one that is busy, even slowly, is not; 0 turns it off."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.server :as server]
            [onager.test-support :as ts])
  (:import [java.io InputStream]
           [java.net Socket SocketTimeoutException]
           [java.nio.charset StandardCharsets]))

(defn- ok [_] {:status 200 :headers {"Content-Type" "text/plain"} :body "ok"})

(defn- read-until
  "Reads from `in` until `done?` holds for the text so far, the stream ends, or
  `timeout-ms` of silence; returns {:text :eof?}."
  [^InputStream in ^Socket socket done? timeout-ms]
  (.setSoTimeout socket (int timeout-ms))
  (let [buf (byte-array 4096)
        sb (StringBuilder.)]
    (loop []
      (if (done? (str sb))
        {:text (str sb) :eof? false}
        (let [n (try (.read in buf) (catch SocketTimeoutException _ -2))]
          (case (long n)
            -1 {:text (str sb) :eof? true}
            -2 {:text (str sb) :eof? false}
            (do (.append sb (String. buf 0 (int n) StandardCharsets/ISO_8859_1)) (recur))))))))

(defn- get-then-wait
  "Sends a keep-alive GET on a new connection, reads its response, then waits up
  to `wait-ms` for the server to close the connection. Returns {:response
  text :closed? bool :after-ms ms from the response to the close}."
  [s wait-ms]
  (with-open [socket (Socket. "127.0.0.1" (int (server/port s)))]
    (let [out (.getOutputStream socket)
          in (.getInputStream socket)]
      (.write out (.getBytes "GET / HTTP/1.1\r\nHost: x\r\n\r\n" StandardCharsets/ISO_8859_1))
      (.flush out)
      (let [response (read-until in socket #(str/ends-with? % "ok") 10000)
            t0 (System/nanoTime)
            after (read-until in socket (constantly false) wait-ms)]
        {:response (:text response)
         :closed? (:eof? after)
         :after-ms (/ (- (System/nanoTime) t0) 1e6)}))))

(deftest an-idle-connection-is-closed
  (ts/with-server [s ok {:idle-timeout-ms 500}]
    (let [{:keys [response closed? after-ms]} (get-then-wait s 15000)]
      (is (str/starts-with? response "HTTP/1.1 200"))
      (is closed? "the server closed the idle connection")
      (testing "not before the timeout"
        (is (>= after-ms 450.0) (str "closed after " after-ms " ms"))))))

(deftest zero-turns-the-idle-timeout-off
  (ts/with-server [s ok {:idle-timeout-ms 0}]
    (let [{:keys [response closed?]} (get-then-wait s 1500)]
      (is (str/starts-with? response "HTTP/1.1 200"))
      (is (not closed?) "the connection stays open"))))

(deftest a-slow-but-steady-response-is-not-idle
  (testing "a body sent a piece every 300 ms over 1.8 s, with a 1 s idle timeout, arrives whole"
    ;; Not (map f (range 7)): a chunked seq would make every piece before sending the first.
    (let [pieces (fn pieces [i]
                   (lazy-seq
                    (when (< i 7)
                      (when (pos? i) (Thread/sleep 300))
                      (cons (str "piece " i "\n") (pieces (inc i))))))
          handler (fn [_] {:status 200 :body (pieces 0)})]
      (ts/with-server [s handler {:idle-timeout-ms 1000}]
        (let [r (ts/request (ts/url s "/"))]
          (is (= 200 (:status r)))
          (is (= (apply str (map #(str "piece " % "\n") (range 7))) (:body r))))))))

(defn- answers
  "How many whole responses with the body ok are in `text`."
  [text]
  (count (re-seq #"\r\n\r\nok" text)))

(deftest the-idle-clock-starts-when-the-response-is-out
  ;; The handler takes longer than the idle timeout: the connection was busy, not idle,
  ;; and a client that reuses it soon after the response finds it open, whichever path
  ;; the response takes (the loop's or a virtual thread's shortcut, Vert.x's), one request
  ;; at a time or pipelined.
  (let [slow (fn [_] (Thread/sleep 800) (ok nil))]
    (doseq [mode [:virtual :event-loop :worker]]
      (testing (name mode)
        (ts/with-server [s slow {:idle-timeout-ms 500 :handler-mode mode :vertx @ts/shared-vertx}]
          (with-open [socket (Socket. "127.0.0.1" (int (server/port s)))]
            (let [in (.getInputStream socket)
                  get-line "GET / HTTP/1.1\r\nHost: x\r\n\r\n"]
              (ts/send! socket get-line)
              (is (= 1 (answers (:text (read-until in socket #(= 1 (answers %)) 10000)))))
              (Thread/sleep 250)
              (testing "a request half the idle timeout after a slow response is answered"
                (ts/send! socket (str get-line get-line))
                (is (= 2 (answers (:text (read-until in socket #(= 2 (answers %)) 10000))))))
              (testing "after pipelined slow responses, the connection closes once idle for the timeout"
                (let [t0 (System/nanoTime)
                      after (read-until in socket (constantly false) 10000)
                      ms (/ (- (System/nanoTime) t0) 1e6)]
                  (is (:eof? after))
                  (is (<= 450.0 ms 3000.0) (str "closed " ms " ms after the response")))))))))))
