(ns onager.server.body-buffers-test
  "A streamed request body is read from the decoder's own (pooled, direct)
  buffers, not from Vert.x's heap copies: the client is still held back by a
  slow handler, every buffer is released whatever the handler does with the
  body (the leak detector runs PARANOID over this namespace), and bodies that
  reach the handler another way (trailers, pipelined requests) arrive whole."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.test-support :as ts])
  (:import [java.io InputStream]))

(set! *warn-on-reflection* true)

(defn- read-count
  "Reads `in` to its end; returns the number of bytes."
  ^long [^InputStream in]
  (let [buf (byte-array 65536)]
    (loop [total 0]
      (let [n (.read in buf)]
        (if (neg? n) total (recur (+ total n)))))))

(deftest a-slow-handler-holds-back-the-client-at-the-direct-mark
  (testing "the decoder's buffers wait unread up to 256 KiB (and one 64 KiB piece), not the heap's 1 MiB mark"
    (let [held (promise)]
      (ts/with-server [s (fn [r]
                           (let [in ^InputStream (:body r)]
                             (.read in)
                             ;; Meanwhile the body fills what the server holds for it, and the client is paused.
                             (Thread/sleep 1000)
                             (deliver held (.available in))
                             {:status 200 :body (str (inc (read-count in)))}))
                       {:max-body (* 8 1024 1024)}]
        (let [body (byte-array (* 4 1024 1024))]
          (is (= [200 (str (alength body))] ((juxt :status :body) (ts/request (ts/url s "/") {:method :post :body body}))))
          (is (<= (* 192 1024) (deref held 5000 -1) (* 320 1024))
              "the server held back the client once about 256 KiB waited unread"))))))

(deftest a-handler-that-ignores-the-body-leaves-no-buffer-held
  (ts/with-server [s (fn [r] {:status 200 :body (str "ignored " (:uri r))})]
    (testing "a body that arrived whole, a body still arriving, then a request on the same connection"
      (with-open [socket (ts/connect s)]
        (ts/send! socket (str "POST /whole HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n"
                              (apply str (repeat 100000 "a"))))
        (ts/send! socket (str "POST /partial HTTP/1.1\r\nHost: x\r\nContent-Length: 3000000\r\n\r\n"
                              (apply str (repeat 200000 "b"))))
        (Thread/sleep 300)
        (ts/send! socket (str (apply str (repeat 2800000 "b"))
                              "GET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
        (let [{:keys [text]} (ts/read-all socket)]
          (is (= [200 200 200] (ts/statuses text)))
          (is (str/includes? text "ignored /next")))))))

(deftest a-chunked-body-with-trailers-arrives-whole
  (ts/with-server [s (fn [r] {:status 200 :body (str "read " (read-count (:body r)))})]
    (let [{:keys [text]} (ts/raw s (str "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                                        "5\r\nhello\r\n10000\r\n" (apply str (repeat 65536 "x")) "\r\n"
                                        "0\r\nX-Checksum: 1234\r\n\r\n"
                                        "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))]
      (is (= [200 200] (ts/statuses text)))
      (is (str/includes? text (str "read " (+ 5 65536))))
      (is (str/includes? text "read 0")))))

(deftest pipelined-bodies-arrive-whole
  (testing "the second body waits in Vert.x while the first response is owed, and reaches its handler all the same"
    (ts/with-server [s (fn [r]
                         (let [n (read-count (:body r))]
                           (Thread/sleep 200)
                           {:status 200 :body (str (:uri r) " read " n)}))]
      (let [{:keys [text]} (ts/raw s (str "POST /one HTTP/1.1\r\nHost: x\r\nContent-Length: 300000\r\n\r\n"
                                          (apply str (repeat 300000 "1"))
                                          "POST /two HTTP/1.1\r\nHost: x\r\nContent-Length: 200000\r\n\r\n"
                                          (apply str (repeat 200000 "2"))
                                          "GET /three HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                                   {:quiet-ms 5000})]
        (is (= [200 200 200] (ts/statuses text)))
        (is (str/includes? text "/one read 300000"))
        (is (str/includes? text "/two read 200000"))
        (is (str/includes? text "/three read 0"))))))

(deftest a-client-gone-mid-body-fails-the-read-and-frees-the-buffers
  (let [thrown (promise)]
    (ts/with-server [s (fn [r]
                         (try (read-count (:body r))
                              (catch java.io.IOException e (deliver thrown e)))
                         {:status 200 :body "x"})]
      (with-open [socket (ts/connect s)]
        (ts/send! socket (str "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000000\r\n\r\n"
                              (apply str (repeat 500000 "z")))))
      (is (instance? java.io.IOException (deref thrown 5000 nil))))))

(defn- sha-256 ^String [^bytes b]
  (format "%064x" (BigInteger. 1 (.digest (java.security.MessageDigest/getInstance "SHA-256") b))))

(deftest bytes-read-one-at-a-time-and-in-runs-arrive-in-order
  (testing "read(), read(byte[]) and available() in turn (read() takes bytes ahead) give the body as sent"
    (let [body (let [r (java.util.Random. 42) b (byte-array (+ (* 1024 1024) 77))] (.nextBytes r b) b)
          mixed-read (fn [^InputStream in]
                       ;; One byte, then a run of 1 to 5000, in turn, checking available() after each.
                       (let [out (java.io.ByteArrayOutputStream.)
                             buf (byte-array 5000)]
                         (loop [turn 0]
                           (let [n (if (even? turn)
                                     (let [b (.read in)]
                                       (if (neg? b) -1 (do (.write out b) 1)))
                                     (let [n (.read in buf 0 (inc (mod (* turn 997) (alength buf))))]
                                       (when (pos? n) (.write out buf 0 n))
                                       n))]
                             (when (neg? (.available in))
                               (throw (IllegalStateException. "available < 0")))
                             (if (neg? n) (.toByteArray out) (recur (inc turn)))))))]
      (ts/with-server [s (fn [r] {:status 200 :body (sha-256 (mixed-read (:body r)))})
                       {:max-body (* 8 1024 1024)}]
        (is (= [200 (sha-256 body)] ((juxt :status :body) (ts/request (ts/url s "/") {:method :post :body body}))))))))
