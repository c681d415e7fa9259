(ns onager.server.http2-limits-test
  "The limits and timeouts of a request, per HTTP/2 stream (h2c by prior
  knowledge): a stream that meets one gets the server's answer or a reset,
  and the other streams of its connection go on. The clients are
  src/test/python/h2_attack.py's: \"beside\" (Python h2's H2Connection: stream
  1 meets the limit, stream 3 is asked for meanwhile and stream 5 after, on the
  same connection) and \"slow-headers\" (a header block that never ends, in raw
  frames); each also makes a request on a connection of its own. The logs the
  limits write are captured and checked."
  (:require [clojure.test :refer [deftest is testing]]
            [onager.test-support :as ts])
  (:import [java.io IOException]
           [onager.kernel.request ClientAbortException]))

(defn- run
  "Starts `handler` with `opts`, runs the script's case, delivers true to the
  promise `(::release opts)` if there is one (a handler waiting for it may then
  end), stops the server: returns [report log-records]."
  [handler opts name & args]
  (let [report (atom nil)
        records (ts/capture-logs
                 #(ts/with-server [s handler (dissoc opts ::release)]
                    (try (reset! report (apply ts/h2-attack s name "--good-path" "/ok" args))
                         (finally (some-> (::release opts) (deliver true))))))]
    [@report records]))

(defn- stream [report id]
  (get-in report [:streams (keyword (str id))]))

(defn- others-served
  "Asserts that streams 3 and 5 of the connection were served, on a connection
  left open, as was the request on a connection of its own, and that nothing
  was logged at error level."
  [report records]
  (testing "the other streams of the connection are served, before and after"
    (is (= 200 (:status (stream report 3))) (pr-str report))
    (is (= 200 (:status (stream report 5))) (pr-str report))
    (is (nil? (:reset (stream report 5))) (pr-str report)))
  (testing "the connection stays open"
    (is (nil? (:goaway report)) (pr-str report))
    (is (not (:closed report)) (pr-str report)))
  (testing "a client on another connection is served"
    (is (= 200 (:good report)) (pr-str report)))
  (testing "nothing logged at error level"
    (is (empty? (ts/logged records :level :error)) (ts/messages records))))

(defn- app
  "/upload reads the body (delivering the IOException a read throws to
  `thrown`), /slow answers once `release` is delivered, others at once."
  [thrown release]
  (fn [r]
    (case (:uri r)
      "/upload" (try {:status 200 :body (str (count (slurp (:body r))))}
                     (catch IOException e (deliver thrown e) (throw e)))
      "/slow" (do (deref release 10000 nil) {:status 200 :body "late"})
      {:status 200 :body "ok"})))

(deftest a-stalled-body-gets-408-on-its-stream
  (doseq [mode [:virtual :event-loop]]
    (testing (str (name mode) ": a POST whose body stops after 100 bytes, :body-timeout-ms 500")
      (let [thrown (promise)
            [r logs] (run (app thrown (promise)) {:handler-mode mode :body-timeout-ms 500 :idle-timeout-ms 30000}
                          "beside" "--path" "/upload" "--method" "POST" "--open-body" "100" "--wait" "5")]
        (testing "the stream gets 408, no sooner than the timeout"
          (is (= 408 (:status (stream r 1))) (pr-str r))
          (is (<= 500 (long (or (:ended_ms r) 0)) 5000) (pr-str r)))
        (if (= mode :event-loop)
          (testing "the handler never ran: its body never arrived in full"
            (is (not (realized? thrown))))
          (testing "the handler's read threw, telling why"
            (let [e (deref thrown 5000 nil)]
              (is (instance? ClientAbortException e))
              (is (= 408 (.status ^ClientAbortException e))))))
        (testing "logged at debug level, naming the request"
          (is (seq (ts/logged logs :level :debug :logger "onager.server.client"
                              :message #"408: the request body stalled for :body-timeout-ms \(POST /upload\)"))
              (ts/messages logs)))
        (others-served r logs)))))

(deftest a-handler-that-answers-nothing-gets-503-on-its-stream
  (doseq [[label opts] [["virtual" {}] ["event-loop async" {:handler-mode :event-loop :async? true}]]]
    (testing (str label ": a handler that answers nothing, :request-timeout-ms 500")
      (let [release (promise)
            sync-app (app (promise) release)
            handler (if (:async? opts)
                      (fn [r respond _] (future (respond (sync-app r))))
                      sync-app)
            [r logs] (run handler (assoc opts :request-timeout-ms 500 :idle-timeout-ms 30000 ::release release)
                          "beside" "--path" "/slow" "--wait" "5")]
        (testing "the stream gets 503, no sooner than the timeout"
          (is (= 503 (:status (stream r 1))) (pr-str r))
          (is (<= 500 (long (or (:ended_ms r) 0)) 5000) (pr-str r)))
        (testing "logged as a warning that names the request"
          (is (seq (ts/logged logs :level :warn :logger "onager.server.handler"
                              :message #"GET /slow answered nothing within :request-timeout-ms"))
              (ts/messages logs)))
        (others-served r logs)))))

(deftest too-many-header-fields-get-431-on-their-stream
  (let [[r logs] (run (app (promise) (promise)) {:max-header-count 10}
                      "beside" "--path" "/ok" "--extra-headers" "20" "--wait" "5")]
    (is (= 431 (:status (stream r 1))) (pr-str r))
    (is (seq (ts/logged logs :level :debug :message #"431: more header fields than :max-header-count"))
        (ts/messages logs))
    (others-served r logs)))

(deftest a-long-uri-gets-414-on-its-stream
  (let [[r logs] (run (app (promise) (promise)) {:max-uri-length 64}
                      "beside" "--path" (str "/ok?" (apply str (repeat 100 "a"))) "--wait" "5")]
    (is (= 414 (:status (stream r 1))) (pr-str r))
    (is (seq (ts/logged logs :level :debug :message #"414: URI longer than :max-uri-length"))
        (ts/messages logs))
    (others-served r logs)))

(deftest a-header-block-that-never-ends-is-cut-at-the-header-timeout
  (testing "HEADERS without END_HEADERS, then a CONTINUATION every 250 ms for 3 s; :header-timeout-ms 1000"
    (let [[r logs] (run (app (promise) (promise)) {:header-timeout-ms 1000 :idle-timeout-ms 30000}
                        "slow-headers" "--count" "12" "--interval" "0.25" "--wait" "3")]
      (testing "GOAWAY ENHANCE_YOUR_CALM and the connection closed, no sooner than the timeout"
        (is (= "ENHANCE_YOUR_CALM" (get-in r [:goaway :error])) (pr-str r))
        (is (:closed r) (pr-str r))
        (is (<= 1000 (long (or (:cut_ms r) 0)) 2900) (pr-str r))
        (is (< (long (:sent r)) 12) (pr-str r)))
      (testing "no request reached the handler"
        (is (empty? (:statuses r)) (pr-str r)))
      (testing "logged at debug level"
        (is (seq (ts/logged logs :level :debug :logger "onager.server.client"
                            :message #"a header block took longer than :header-timeout-ms"))
            (ts/messages logs)))
      (testing "a client on another connection is served"
        (is (= 200 (:good r)) (pr-str r)))
      (is (empty? (ts/logged logs :level :error)) (ts/messages logs)))))

(deftest a-connection-whose-streams-are-done-closes-at-the-idle-timeout
  (testing ":idle-timeout-ms 1000 counts from the last stream's end; the shorter header timeout is not for it"
    (let [[r logs] (run (app (promise) (promise)) {:idle-timeout-ms 1000 :header-timeout-ms 300}
                        "beside" "--path" "/ok" "--wait" "5" "--linger" "5")]
      (is (= [200 200 200] (map #(:status (stream r %)) [1 3 5])) (pr-str r))
      (testing "GOAWAY NO_ERROR, then the close"
        (is (= "NO_ERROR" (get-in r [:goaway :error])) (pr-str r))
        (is (<= 900 (long (or (:idle_ms r) 0)) 4500) (pr-str r)))
      (is (seq (ts/logged logs :level :debug :message #"idle for :idle-timeout-ms")) (ts/messages logs))
      (is (empty? (ts/logged logs :level :error)) (ts/messages logs)))))
