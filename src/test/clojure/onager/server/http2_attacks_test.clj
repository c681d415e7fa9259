(ns onager.server.http2-attacks-test
  "Hostile HTTP/2 clients against the demo app over h2c (prior knowledge, RFC 9113
  §3.3): each attack is src/test/python/h2_attack.py, which writes the frames with
  Python h2's own libraries over a raw connection (scripts/python-h2 installs them)
  and, halfway through, makes a well-behaved request on a connection of its own.
  Each test asserts that the server cut the attacking connection (a GOAWAY, or a
  close) or refused the stream, that the well-behaved client was served, and that
  the server logged nothing at error level. Every attack is bounded in frames and
  seconds, and talks to 127.0.0.1 only."
  (:require [clojure.java.io :as io]
            [clojure.test :refer [deftest is testing]]
            [onager.demo :as demo]
            [onager.test-support :as ts]))

(def ^:private app (demo/handler (io/file "examples/static")))

(defn- run-attack
  "Starts the demo app with `opts`, runs the attack, stops the server: returns
  [report log-records]."
  [opts name & args]
  (let [report (atom nil)
        records (ts/capture-logs
                 #(ts/with-server [s app opts]
                    (reset! report (apply ts/h2-attack s name args))))]
    [@report records]))

(defn- served-others [report records]
  (testing "a well-behaved client on another connection is served meanwhile"
    (is (= 200 (:good report)) (pr-str report)))
  (testing "nothing logged at error level"
    (is (empty? (ts/logged records :level :error)) (ts/messages records))))

(defn- cut
  "Asserts that the server closed the attacking connection, and that a GOAWAY it
  sent, if any, named one of `codes`."
  [report codes]
  (is (:closed report) (str "the connection stayed open: " (pr-str report)))
  (when-let [goaway (:goaway report)]
    (is (contains? codes (:error goaway)) (pr-str report))))

(deftest rapid-reset
  (testing "CVE-2023-44487: 10000 HEADERS, each cancelled at once by RST_STREAM"
    (let [[r logs] (run-attack {} "rapid-reset" "--count" "10000" "--wait" "5")]
      (cut r #{"ENHANCE_YOUR_CALM"})
      (is (< (long (:sent r)) 10000) (str "the server took every pair: " (pr-str r)))
      (served-others r logs))))

(deftest made-you-reset
  (testing (str "CVE-2025-55163: 10000 requests, each made to be reset by the server with a bad frame of the "
                "client's (WINDOW_UPDATE of 0, DATA after END_STREAM); :http2-max-resets 50")
    (let [[r logs] (run-attack {:http2-max-resets 50} "made-you-reset" "--path" "/sleep?ms=2000"
                               "--count" "10000" "--wait" "5")]
      (cut r #{"ENHANCE_YOUR_CALM"})
      (is (< (long (:sent r)) 10000) (str "the server took every pair: " (pr-str r)))
      (testing "the server's own resets count against :http2-max-resets"
        (is (<= 1 (long (reduce + (vals (:resets r)))) 51) (pr-str r)))
      (served-others r logs))))

(deftest continuation-flood
  (testing "a header block that never ends"
    (testing "in empty CONTINUATION frames"
      (let [[r logs] (run-attack {} "continuation-flood" "--count" "100000" "--wait" "5")]
        (cut r #{"ENHANCE_YOUR_CALM" "PROTOCOL_ERROR"})
        (is (< (long (:sent r)) 100000) (pr-str r))
        (served-others r logs)))
    (testing "in CONTINUATION frames of 16 KB of header fields"
      (let [[r logs] (run-attack {} "continuation-flood" "--count" "1000" "--size" "16000" "--wait" "5")]
        (cut r #{"ENHANCE_YOUR_CALM" "PROTOCOL_ERROR"})
        (is (< (long (:sent r)) 1000) (pr-str r))
        (is (empty? (:statuses r)) (pr-str r))
        (served-others r logs)))))

(deftest settings-flood
  (testing "a million SETTINGS frames whose acknowledgements the client never reads"
    (let [[r logs] (run-attack {} "settings-flood" "--count" "1000000" "--wait" "5")]
      (cut r #{"ENHANCE_YOUR_CALM"})
      (is (< (long (:sent r)) 1000000) (pr-str r))
      (served-others r logs))))

(deftest ping-flood
  (testing "a million PINGs whose acknowledgements the client never reads"
    (let [[r logs] (run-attack {} "ping-flood" "--count" "1000000" "--wait" "5")]
      (cut r #{"ENHANCE_YOUR_CALM"})
      (is (< (long (:sent r)) 1000000) (pr-str r))
      (served-others r logs))))

(deftest priority-flood
  (testing "PRIORITY frames for 200000 idle streams, which need no answer"
    (let [[r logs] (run-attack {} "priority-flood" "--count" "200000" "--wait" "5")]
      (cut r #{"ENHANCE_YOUR_CALM"})
      (is (< (long (:sent r)) 200000) (pr-str r))
      (served-others r logs))))

(deftest empty-data-flood
  (testing "a request body sent as 100000 DATA frames of no bytes"
    (let [[r logs] (run-attack {} "empty-data-flood" "--path" "/upload" "--count" "100000" "--wait" "5")]
      (cut r #{"ENHANCE_YOUR_CALM" "PROTOCOL_ERROR"})
      (is (< (long (:sent r)) 100000) (pr-str r))
      (served-others r logs))))

(deftest hpack-bomb
  (testing "a 4000-byte header field put in the HPACK table, then named 10000 times by index: 40 MB decoded"
    (let [[r logs] (run-attack {} "hpack-bomb" "--size" "4000" "--count" "10000" "--wait" "3")
          bomb (get-in r [:streams (keyword "3")])]
      (testing "the request that fills the table is within the limits and served"
        (is (= 200 (get-in r [:streams (keyword "1") :status])) (pr-str r)))
      (testing "the bomb is refused: 431, a reset, or the connection cut"
        (is (not= 200 (:status bomb)) (pr-str r))
        (is (or (= 431 (:status bomb)) (:reset bomb) (:goaway r)) (pr-str r)))
      (served-others r logs))))

(deftest header-list-size
  (testing "one request with 100 header fields of 1000 bytes each, over :max-header-size (8192)"
    (let [[r logs] (run-attack {} "header-list" "--count" "100" "--size" "1000" "--wait" "3")
          stream (get-in r [:streams (keyword "1")])]
      (is (not= 200 (:status stream)) (pr-str r))
      (is (or (= 431 (:status stream)) (:reset stream) (:goaway r)) (pr-str r))
      (served-others r logs))))

(deftest zero-window-stall
  (testing "a client that sets its stream window to 0 and never opens it"
    (let [[r logs] (run-attack {:idle-timeout-ms 2000} "zero-window"
                               "--path" "/download?size=1048576" "--wait" "10")]
      (testing "gets the response head, then no byte of the body"
        (is (= 200 (get-in r [:streams (keyword "1") :status])) (pr-str r))
        (is (zero? (long (get-in r [:streams (keyword "1") :data] 0))) (pr-str r)))
      (testing "and its stream is reset (or the connection cut) once :idle-timeout-ms has passed"
        (is (some? (:stalled_ms r)) (pr-str r))
        (when-let [ms (:stalled_ms r)]
          (is (<= 1900 (long ms) 9000) (pr-str r))))
      (served-others r logs))))

(deftest too-many-streams
  (testing "10 streams more than SETTINGS_MAX_CONCURRENT_STREAMS, each a request that takes 2 s"
    (let [[r logs] (run-attack {} "concurrent-streams" "--path" "/sleep?ms=2000" "--count" "10" "--wait" "10")
          limit (:limit r)]
      (is (some? limit) (pr-str r))
      (testing "the ones beyond the limit are refused with REFUSED_STREAM (RFC 9113 §5.1.2)"
        (is (= {:REFUSED_STREAM 10} (:resets r)) (pr-str r)))
      (testing "the others are served, on a connection left open"
        (is (= limit (get-in r [:statuses (keyword "200")])) (pr-str r))
        (is (nil? (:goaway r)) (pr-str r))
        (is (not (:closed r)) (pr-str r)))
      (served-others r logs))))
