(ns onager.server.faults-test
  "Clients that go away: in the middle of an upload, of a download, or while
  the handler runs. The handler's body read throws an IOException, response
  bodies are closed, nothing is logged as the server's failure, and (checked
  after the namespace, see ClojureSuiteTest) Netty reports no leaked buffer."
  (:require [clojure.test :refer [deftest is testing]]
            [onager.server :as server]
            [onager.test-support :as ts])
  (:import [java.io IOException]
           [onager.kernel LeakRecorder]
           [io.netty.buffer PooledByteBufAllocator]))


(deftest disconnect-mid-upload
  (doseq [mode [:virtual :worker :event-loop]]
    (testing (name mode)
      (let [thrown (promise)
            called (promise)
            logs (ts/capture-logs
                  (fn []
                    (ts/with-server [s (fn [r]
                                         (deliver called true)
                                         (try (slurp (:body r)) {:status 200}
                                              (catch IOException e (deliver thrown e) (throw e))))
                                     {:handler-mode mode :vertx @ts/shared-vertx}]
                      (with-open [socket (ts/connect s)]
                        (ts/send! socket "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n")
                        (ts/send! socket (apply str (repeat 100000 "u"))))
                      (if (= mode :event-loop)
                        (testing "the handler never runs: its body never arrived"
                          (Thread/sleep 300)
                          (is (not (realized? called))))
                        (testing "the handler's read throws an IOException"
                          (is (instance? IOException (deref thrown 5000 nil)))))
                      (is (= 200 (:status (ts/request (ts/url s "/") {:method :post :body "next"})))))))]
        (testing "and it is not logged as the server's failure"
          (is (empty? (ts/loud logs)) (ts/messages logs)))))))

(deftest disconnect-mid-download
  (doseq [mode [:virtual :worker :event-loop]
          async? [false true]]
    (testing (str (name mode) (when async? " async"))
      (let [produced (atom 0)
            closed (promise)
            size (* 1024 1024 1024)
            answer (fn [r] (if (= "/small" (:uri r))
                             {:status 200 :body "small"}
                             {:status 200 :body (ts/counting-stream size produced closed)}))
            handler (if async? (fn [r respond _] (respond (answer r))) answer)
            logs (ts/capture-logs
                  (fn []
                    (ts/with-server [s handler {:handler-mode mode :async? async? :vertx @ts/shared-vertx}]
                      (with-open [socket (ts/connect s)]
                        (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                        (.readNBytes (.getInputStream socket) 100000))
                      (testing "the body's stream is closed once the client has gone"
                        (is (deref closed 5000 false))
                        (is (< @produced size)))
                      (is (= [200 "small"] ((juxt :status :body) (ts/request (ts/url s "/small"))))))))]
        (is (empty? (ts/loud logs)) (ts/messages logs))))))

(deftest disconnect-mid-download-of-a-lazy-seq
  (let [made (atom 0)
        handler (fn [r] (if (= "/small" (:uri r))
                          {:status 200 :body "small"}
                          {:status 200 :body (map (fn [i] (swap! made inc) (str i "\n")) (range))}))]
    (ts/with-server [s handler {:vertx @ts/shared-vertx}]
      (with-open [socket (ts/connect s)]
        (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        (.readNBytes (.getInputStream socket) 10000))
      (testing "the seq is no longer walked once the client has gone"
        (Thread/sleep 500)
        (let [n @made]
          (Thread/sleep 500)
          (is (= n @made))))
      (is (= [200 "small"] ((juxt :status :body) (ts/request (ts/url s "/small"))))))))

(deftest disconnect-while-the-handler-runs
  (doseq [mode [:virtual :worker :event-loop]
          async? [false true]
          :when (not (and (= mode :event-loop) (not async?)))]
    (testing (str (name mode) (when async? " async"))
      (let [closed (promise)
            answer (fn [] (Thread/sleep 300) {:status 200 :body (ts/counting-stream 100000 (atom 0) closed)})
            handler (if async?
                      (fn [_ respond _] (Thread/startVirtualThread #(respond (answer))))
                      (fn [_] (answer)))
            logs (ts/capture-logs
                  (fn []
                    (ts/with-server [s handler {:handler-mode mode :async? async? :vertx @ts/shared-vertx}]
                      (with-open [socket (ts/connect s)]
                        (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
                      (testing "the answer made for a client that left has its body closed"
                        (is (deref closed 5000 false))))))]
        (is (empty? (ts/loud logs)) (ts/messages logs))))))

(deftest a-broken-off-response-lets-go-of-its-request
  (testing "once the client has gone, nothing (the request timeout's list included) keeps the request"
    (let [body-ref (promise)
          handler (fn [r]
                    (deliver body-ref (java.lang.ref.WeakReference. (:body r)))
                    (slurp (:body r))
                    {:status 200 :body (ts/counting-stream (* 1024 1024 1024) (atom 0) (promise))})]
      (ts/with-server [s handler {:request-timeout-ms 60000 :vertx @ts/shared-vertx}]
        (with-open [socket (ts/connect s)]
          (ts/send! socket "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
          (.readNBytes (.getInputStream socket) 100000))
        (let [^java.lang.ref.WeakReference ref (deref body-ref 5000 nil)]
          (is (some? ref))
          (is (loop [tries 0]
                (System/gc)
                (cond (nil? (.get ref)) true
                      (> tries 50) false
                      :else (do (Thread/sleep 100) (recur (inc tries)))))
              "the request's body was collected long before :request-timeout-ms"))))))

(defn- leak-a-buffer
  "Takes a pooled buffer and drops it unreleased."
  []
  (.writeLong (.buffer PooledByteBufAllocator/DEFAULT 64) 42)
  nil)

(deftest the-leak-detector-is-paranoid-and-fails-a-leak
  (is (LeakRecorder/active) "surefire runs the tests with LeakRecorder at PARANOID")
  (LeakRecorder/collect)
  (leak-a-buffer)
  (let [leaks (LeakRecorder/collect)]
    (is (seq leaks) "a buffer dropped unreleased is reported")
    (is (some #(re-find #"LEAK: ByteBuf" %) leaks))
    (testing "with where it was made, which PARANOID records"
      (is (some #(re-find #"leak_a_buffer" %) leaks)))))
