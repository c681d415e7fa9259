(ns onager.server.sse-test
  "Server-sent events on the wire: the stream's format, its end, a client that
  leaves, keep-alive comments, Last-Event-ID, HTTP/1.1 and HTTP/2."
  (:require [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.sse :as sse]
            [onager.test-support :as ts])
  (:import [java.io BufferedReader InputStreamReader]
           [java.net Socket]
           [java.nio.charset StandardCharsets]
           [java.util.concurrent CountDownLatch LinkedBlockingQueue TimeUnit]))

(set! *warn-on-reflection* true)

(defn- three-events
  "Sends three events, the middle one's data over three lines, then closes."
  [request]
  (sse/event-stream
   {:on-open (fn [stream]
               (sse/send stream {:id "1" :event "greeting" :data "hello" :retry 2000})
               (sse/send stream {:data "line one\nline two\r\nline three"})
               (sse/send stream (str "last-event-id " (sse/last-event-id request)))
               (sse/close stream))}))

(def ^:private expected
  (str "id: 1\nevent: greeting\nretry: 2000\ndata: hello\n\n"
       "data: line one\ndata: line two\ndata: line three\n\n"
       "data: last-event-id 41\n\n"))

(defn- dechunk
  "The body of an HTTP/1.1 response in `text` whose body is chunked."
  [^String text]
  (let [body (subs text (+ 4 (str/index-of text "\r\n\r\n")))]
    (loop [rest body out (StringBuilder.)]
      (let [eol (str/index-of rest "\r\n")
            n (Long/parseLong (subs rest 0 eol) 16)]
        (if (zero? n)
          (str out)
          (recur (subs rest (+ eol 2 n 2)) (.append out (subs rest (+ eol 2) (+ eol 2 n)))))))))

(deftest events-and-their-end-in-every-handler-mode
  (ts/each-combo [s three-events {}]
    (let [{:keys [text closed?]} (ts/raw s "GET / HTTP/1.1\r\nHost: x\r\nLast-Event-ID: 41\r\nConnection: close\r\n\r\n")]
      (is (re-find #"(?i)\r\ncontent-type: text/event-stream; charset=utf-8\r\n" text))
      (is (re-find #"(?i)\r\ncache-control: no-cache\r\n" text))
      (is (re-find #"(?i)\r\ntransfer-encoding: chunked\r\n" text))
      (is (= expected (dechunk text)))
      (is closed? "close ends the response"))))

(deftest each-event-is-flushed-as-it-is-sent
  (let [go-on (CountDownLatch. 1)]
    (ts/with-server [s (fn [_] (sse/event-stream {:on-open (fn [stream]
                                                             (sse/send stream "first")
                                                             (.await go-on 10 TimeUnit/SECONDS)
                                                             (sse/close stream))}))
                     {}]
      (with-open [socket (ts/connect s)]
        (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        (let [in (BufferedReader. (InputStreamReader. (.getInputStream socket) StandardCharsets/UTF_8))]
          (testing "the first event arrives while the handler still holds the stream"
            (is (some #(= "data: first" %) (take 20 (repeatedly #(.readLine in))))))
          (.countDown go-on))))))

(deftest a-client-that-leaves-closes-the-stream
  (let [closed (promise)
        sends (LinkedBlockingQueue.)]
    (ts/with-server [s (fn [_] (sse/event-stream
                                {:on-open (fn [stream]
                                            (future
                                              (loop []
                                                (let [ok (sse/send stream "tick")]
                                                  (.put sends ok)
                                                  (when ok (Thread/sleep 50) (recur))))))
                                 :on-close (fn [stream] (deliver closed (sse/open? stream)))
                                 :keep-alive-ms 0}))
                     {}]
      (with-open [socket (ts/connect s)]
        (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        (is (true? (.poll sends 5 TimeUnit/SECONDS))))
      (testing "on-close runs, and send says the stream is gone"
        (is (false? (deref closed 5000 :timeout)))
        (is (false? (loop [] (let [ok (.poll sends 5 TimeUnit/SECONDS)] (if (true? ok) (recur) ok)))))))))

(deftest keep-alive-comments
  (ts/with-server [s (fn [_] (sse/event-stream {:keep-alive-ms 100})) {}]
    (with-open [socket (ts/connect s)]
      (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
      (let [in (BufferedReader. (InputStreamReader. (.getInputStream socket) StandardCharsets/UTF_8))]
        (is (some #(= ":" %) (take 30 (repeatedly #(.readLine in)))) "a comment line comes while nothing else does")))))

(deftest bad-fields-are-refused
  (let [result (promise)]
    (ts/with-server [s (fn [_] (sse/event-stream
                                {:on-open (fn [stream]
                                            (deliver result
                                                     (try (sse/send stream {:id "a\nb" :data "x"}) :sent
                                                          (catch IllegalArgumentException e (.getMessage e))))
                                            (sse/close stream))}))
                     {}]
      (ts/raw s "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      (is (re-find #"line break" (str (deref result 5000 :timeout))))))
  (is (thrown-with-msg? clojure.lang.ExceptionInfo #":keep-alive-ms" (sse/event-stream {:keep-alive-ms -1}))))

(deftest over-http-2
  (ts/with-server [s three-events {}]
    (let [{:keys [out exit]} (shell/sh "curl" "-s" "-N" "--http2-prior-knowledge" "--max-time" "10"
                                       "-H" "Last-Event-ID: 41" (ts/url s "/"))]
      (is (zero? exit))
      (is (= expected out)))))
