(ns onager.server.timeouts-test
  "The four clocks: a handler that never answers (:request-timeout-ms), a head
  that never ends (:header-timeout-ms), a body that stops (:body-timeout-ms),
  and a connection that waits for nothing, or for a client that does not read
  (:idle-timeout-ms). Each fires for what it is about, and only for that."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.server :as server]
            [onager.test-support :as ts])
  (:import [java.io ByteArrayInputStream InputStream IOException]
           [java.net Socket]
           [java.nio.charset StandardCharsets]
           [onager.kernel.request ClientAbortException]))

(defn- closing-stream
  "An InputStream of `text` that delivers true to `closed` when closed."
  ^InputStream [^String text closed]
  (proxy [ByteArrayInputStream] [(.getBytes text StandardCharsets/UTF_8)]
    (close [] (deliver closed true))))

;; ---- :request-timeout-ms ----

(deftest a-handler-that-answers-nothing-gets-503
  (doseq [[mode async? opts] [[:virtual false {}] [:worker false {:handler-mode :worker}]
                              [:event-loop true {:async? true}] [:virtual true {:async? true :handler-mode :virtual}]]]
    (testing (str (name mode) (when async? " async"))
      (let [release (promise)
            late-body-closed (promise)
            late (fn [] {:status 200 :body (closing-stream "late" late-body-closed)})
            handler (if async?
                      (fn [_ respond _] (future (deref release 10000 nil) (respond (late))))
                      (fn [_] (deref release 10000 nil) (late)))]
        (ts/with-server [s handler (merge {:request-timeout-ms 300} opts)]
          (let [result (atom nil)
                logs (ts/capture-logs #(reset! result (ts/raw s "GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n" {:quiet-ms 5000})))
                {:keys [text closed?]} @result]
            (is (= [503] (ts/statuses text)))
            (is (re-find #"(?i)\r\nconnection: close\r\n" text))
            (is closed? "the connection is not left hanging")
            (testing "logged as a warning that names the request"
              (is (seq (ts/logged logs :level :warn :logger "onager.server.handler"
                                  :message #"GET /stuck answered nothing within :request-timeout-ms"))
                  (ts/messages logs)))
            (testing "the late answer is dropped, and its body closed"
              (deliver release true)
              (is (deref late-body-closed 5000 false)))
            (is (= 200 (:status (ts/request (ts/url s "/")))))))))))

(deftest the-request-timeout-never-fires-early
  (doseq [[label opts] [["virtual" {}] ["event-loop async" {:async? true}]]]
    (testing label
      (let [release (promise)
            answer (fn [r] (if (= "/quick" (:uri r))
                             (do (Thread/sleep 250) {:status 200 :body "in time"})
                             (do (deref release 10000 nil) {:status 200 :body "late"})))
            handler (if (:async? opts)
                      (fn [r respond _] (future (respond (answer r))))
                      answer)]
        (ts/with-server [s handler (merge {:request-timeout-ms 600} opts)]
          (testing "an answer inside the timeout is sent, on every request of a connection"
            (dotimes [_ 3]
              (is (= [200 "in time"] ((juxt :status :body) (ts/request (ts/url s "/quick")))))))
          (testing "a handler that never answers gets its 503 no sooner than the timeout"
            (let [result (atom nil)
                  start (System/nanoTime)
                  _ (ts/capture-logs #(reset! result (ts/raw s "GET /stuck HTTP/1.1\r\nHost: x\r\n\r\n" {:quiet-ms 5000})))
                  elapsed-ms (/ (- (System/nanoTime) start) 1e6)
                  {:keys [text]} @result]
              (deliver release true)
              (is (= [503] (ts/statuses text)))
              (is (>= elapsed-ms 600) (str "expired after " elapsed-ms " ms")))))))))

(deftest time-spent-receiving-the-body-is-not-the-handlers
  (testing "a body sent slowly, over longer than :request-timeout-ms, is read and answered"
    (doseq [opts [{} {:handler-mode :worker} {:handler-mode :event-loop}]]
      (testing (pr-str opts)
        (ts/with-server [s (fn [r] {:status 200 :body (str (count (slurp (:body r))) " bytes")})
                         (merge {:request-timeout-ms 500 :body-timeout-ms 5000} opts)]
          (with-open [socket (ts/connect s)]
            (ts/send! socket "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nConnection: close\r\n\r\n")
            (dotimes [_ 5]
              (Thread/sleep 250)
              (ts/send! socket (apply str (repeat 1000 "b"))))
            (let [{:keys [text]} (ts/read-all socket)]
              (is (= [200] (ts/statuses text)) text)
              (is (str/ends-with? text "5000 bytes")))))))))

(deftest streaming-an-answered-body-takes-as-long-as-it-takes
  (ts/with-server [s (fn [_] {:status 200 :body (map (fn [i] (Thread/sleep 200) (str i)) (range 5))})
                   {:request-timeout-ms 300}]
    (let [r (ts/request (ts/url s "/"))]
      (is (= [200 "01234"] ((juxt :status :body) r))))))

;; ---- :header-timeout-ms ----

(deftest a-head-trickled-in-gets-408-even-while-bytes-arrive
  (ts/with-server [s (fn [_] {:status 200 :body "never"}) {:header-timeout-ms 500}]
    (with-open [socket (ts/connect s)]
      (let [start (System/currentTimeMillis)
            sender (future
                     (try (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n")
                          (dotimes [i 100]
                            (Thread/sleep 100)
                            (ts/send! socket (str "X-" i ": slow\r\n")))
                          (catch IOException _ :cut-off)))
            {:keys [text closed?]} (ts/read-all socket)
            elapsed (- (System/currentTimeMillis) start)]
        (is (= [408] (ts/statuses text)))
        (is (re-find #"(?i)\r\nconnection: close\r\n" text))
        (is closed?)
        (is (>= elapsed 500) "not before the timeout")
        (is (< elapsed 8000) "and well before the slow client would have finished")
        (is (= :cut-off (deref sender 15000 :still-sending)))))
    (testing "a whole head that merely arrives in pieces, within the time, is fine"
      (with-open [socket (ts/connect s)]
        (ts/send! socket "GET / HT")
        (Thread/sleep 100)
        (ts/send! socket "TP/1.1\r\nHost: x\r\n")
        (Thread/sleep 100)
        (ts/send! socket "Connection: close\r\n\r\n")
        (is (= [200] (ts/statuses (:text (ts/read-all socket)))))))))

;; ---- :body-timeout-ms ----

(deftest a-body-that-stops-gets-408-and-the-reader-an-ioexception
  (doseq [mode [:virtual :worker :event-loop]]
    (testing (name mode)
      (let [thrown (promise)]
        (ts/with-server [s (fn [r]
                             (try (slurp (:body r)) {:status 200 :body "read it all"}
                                  (catch IOException e (deliver thrown e) (throw e))))
                         {:handler-mode mode :body-timeout-ms 400}]
          (with-open [socket (ts/connect s)]
            (ts/send! socket "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\nthe first part")
            (let [{:keys [text closed?]} (ts/read-all socket)]
              (is (= [408] (ts/statuses text)))
              (is closed?)))
          (if (= mode :event-loop)
            (testing "the handler never ran: its body never arrived in full"
              (is (not (realized? thrown))))
            (testing "the handler's read threw, telling why"
              (is (instance? ClientAbortException (deref thrown 5000 nil)))
              (is (= 408 (.status ^ClientAbortException (deref thrown 5000 nil))))))
          (is (= 200 (:status (ts/request (ts/url s "/") {:method :post :body "x"})))))))))

(deftest a-body-held-back-by-a-slow-handler-is-not-a-stalled-body
  (testing "the server pauses a client whose handler reads slowly: that is not the client stalling"
    (ts/with-server [s (fn [r]
                         (let [in ^InputStream (:body r)
                               first-byte (.read in)]
                           ;; Meanwhile the body fills the server's buffer and the client is paused.
                           (Thread/sleep 1500)
                           {:status 200 :body (str (inc (count (.readAllBytes in))) (when (neg? first-byte) "?"))}))
                     {:body-timeout-ms 300 :max-body (* 4 1024 1024)}]
      (let [body (byte-array (* 2 1024 1024))]
        (is (= [200 (str (alength body))] ((juxt :status :body) (ts/request (ts/url s "/") {:method :post :body body}))))))))

(deftest a-client-waiting-for-100-continue-is-not-stalling
  (ts/with-server [s (fn [r] (Thread/sleep 1000) {:status 200 :body (slurp (:body r))}) {:body-timeout-ms 300}]
    (with-open [socket (ts/connect s)]
      (ts/send! socket "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
      (let [in (.getInputStream socket)
            line (String. (.readNBytes in 25) StandardCharsets/ISO_8859_1)]
        (is (= "HTTP/1.1 100 Continue\r\n\r\n" line) "the continue comes when the handler first reads")
        (ts/send! socket "hello")
        (let [{:keys [text]} (ts/read-all socket)]
          (is (= [200] (ts/statuses text)))
          (is (str/ends-with? text "hello")))))))

;; ---- :idle-timeout-ms ----

(deftest idle-connections-close-but-slow-handlers-do-not-count
  (ts/with-server [s (fn [r] (when (= "/slow" (:uri r)) (Thread/sleep 1200)) {:status 200 :body "ok"})
                   {:idle-timeout-ms 400}]
    (testing "a keep-alive connection with no next request is closed"
      (with-open [socket (ts/connect s)]
        (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        (let [{:keys [text closed? ms]} (ts/read-all socket)]
          (is (= [200] (ts/statuses text)))
          (is closed?)
          (is (>= ms 300)))))
    (testing "a handler slower than the idle timeout is not cut off"
      (is (= [200 "ok"] ((juxt :status :body) (ts/request (ts/url s "/slow"))))))))

(deftest a-client-that-stops-reading-holds-nothing-for-long
  (let [produced (atom 0)
        closed (promise)
        size (* 256 1024 1024)]
    (ts/with-server [s (fn [_] {:status 200 :body (ts/counting-stream size produced closed)}) {:idle-timeout-ms 500}]
      (with-open [socket (Socket.)]
        (.setReceiveBufferSize socket 4096)
        (.connect socket (java.net.InetSocketAddress. "127.0.0.1" (int (server/port s))))
        (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        (testing "the body's source is held back: the server buffers a bounded amount, not the body"
          (Thread/sleep 1000)
          (is (< @produced (* 32 1024 1024)) (str @produced " bytes produced")))
        (testing "once the client has taken nothing for :idle-timeout-ms, the connection closes and the body with it"
          (is (deref closed 10000 false))
          (is (< @produced size)))))))
