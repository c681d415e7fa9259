(ns onager.client.streaming-test
  "Bodies that do not fit in memory, both ways: a response read as a stream
  holds the server back while it is not read and drops the exchange when
  closed early; 1 GiB goes down and up through a client in a JVM of 64 MiB."
  (:require [clojure.test :refer [deftest is testing]]
            [onager.client :as client]
            [onager.test-jvm :as jvm]
            [onager.test-support :as ts :refer [with-server url]])
  (:import [java.io InputStream]))

(set! *warn-on-reflection* true)

(def ^:private gib (* 1024 1024 1024))

(deftest a-stream-holds-the-server-back
  (let [produced (atom 0)
        closed (promise)]
    (with-server [s (fn [_] {:status 200 :body (ts/counting-stream gib produced closed)}) {}]
      (let [^InputStream in (:body (client/get (url s "/") {:as :stream}))]
        (is (<= 0 (.read in)))
        (Thread/sleep 1500)
        (let [held @produced]
          (is (< held (* 64 1024 1024)) "what the server made is what the buffers on the way hold")
          (Thread/sleep 500)
          (is (< (- @produced held) (* 8 1024 1024)) "and it stops there"))
        (testing "closing it early ends the exchange"
          (.close in)
          (is (true? (deref closed 10000 false)) "the server's body was closed: the connection went")
          (is (< @produced (* 128 1024 1024))))))))

(deftest a-gibibyte-through-a-small-heap
  (with-server [s (fn [req]
                    (if (= :post (:request-method req))
                      {:status 200 :body (str (let [^InputStream in (:body req) buf (byte-array 65536)]
                                                (loop [total 0]
                                                  (let [n (.read in buf)]
                                                    (if (neg? n) total (recur (+ total n)))))))}
                      {:status 200 :body (ts/zeros gib)}))
               {:max-body (* 2 gib)}]
    (testing "down"
      (let [{:keys [exit out]} (jvm/run 120000 ["-Xmx64m"] 'onager.client.transfer-main "download" (url s "/"))]
        (is (= 0 exit) out)
        (is (re-find (re-pattern (str "downloaded " gib " bytes")) out) out)))
    (testing "up"
      (let [{:keys [exit out]} (jvm/run 120000 ["-Xmx64m"] 'onager.client.transfer-main "upload" (url s "/") (str gib))]
        (is (= 0 exit) out)
        (is (re-find (re-pattern (str "uploaded: " gib)) out) out)))))
