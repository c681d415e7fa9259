(ns onager.server.http1-test
  "HTTP/1.x on the wire: keep-alive, pipelining, Connection: close, HTTP/1.0,
  the size limits, 100-continue, and many requests at once."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.test-support :as ts])
  (:import [java.net.http HttpRequest HttpResponse$BodyHandlers]
           [java.net URI]
           [java.util.concurrent CompletableFuture]))

(defn- ok [body] {:status 200 :headers {"Content-Type" "text/plain"} :body body})

(defn- get-req [path & {:keys [close? version] :or {version "1.1"}}]
  (str "GET " path " HTTP/" version "\r\nHost: x\r\n" (when close? "Connection: close\r\n") "\r\n"))

(deftest keep-alive
  (ts/each-combo [s (fn [r] (ok (:uri r)))]
    (let [{:keys [text closed?]} (ts/raw s (str (get-req "/one") (get-req "/two")) {:quiet-ms 500})]
      (is (= [200 200] (ts/statuses text)))
      (is (str/includes? text "/one"))
      (is (str/includes? text "/two"))
      (testing "the connection stays open after keep-alive requests"
        (is (not closed?))))))

(deftest connection-close
  (ts/each-combo [s (fn [r] (ok (:uri r)))]
    (let [{:keys [text closed?]} (ts/raw s (get-req "/bye" :close? true))]
      (is (= [200] (ts/statuses text)))
      (is (re-find #"(?i)\r\nconnection: close\r\n" text))
      (is closed?))))

(deftest connection-close-from-the-handler
  (testing "a response whose handler says Connection: close closes the connection once sent"
    (ts/each-combo [s (fn [r] (if (= "/stream" (:uri r))
                                {:status 200 :headers {"Connection" "close"} :body (list "s" "e" "q")}
                                {:status 200 :headers {"Connection" "Close"} :body "bye"}))]
      (doseq [path ["/" "/stream"]]
        (let [{:keys [text closed?]} (ts/raw s (get-req path))]
          (is (= [200] (ts/statuses text)) path)
          (is closed? path))))))

(defn- writes-after-close
  "Sends `request` on a raw socket, reads the answer to the server's close, then
  keeps writing for up to `ms` (under the 2 s a close lingers): :refused when a write fails (the server's socket
  is gone and its kernel answers with a reset), :accepted when every one went in
  (the server still reads, lingering, RFC 9112 §9.6)."
  [s request ms]
  (with-open [socket (ts/connect s)]
    (ts/send! socket request)
    (let [{:keys [text closed?]} (ts/read-all socket)
          deadline (+ (System/currentTimeMillis) ms)]
      (is (= [200] (ts/statuses text)))
      (is closed?)
      (loop []
        (cond
          (try (ts/send! socket "x") false (catch java.io.IOException _ true)) :refused
          (> (System/currentTimeMillis) deadline) :accepted
          :else (do (Thread/sleep 20) (recur)))))))

(deftest close-lingers-only-when-the-server-ends-the-connection
  (ts/with-server [s (fn [r] (if (= "/bye" (:uri r))
                               {:status 200 :headers {"Connection" "close"} :body "bye"}
                               (ok "ok")))]
    (testing "the client said close and sent its whole request: a plain close, nothing is read after it"
      (is (= :refused (writes-after-close s (get-req "/" :close? true) 1000))))
    (testing "the server ends a kept-alive connection: it goes on reading what the client still sends"
      (is (= :accepted (writes-after-close s (get-req "/bye") 500))))
    (testing "bytes after the client's last request: the close lingers, so they cannot cause a reset"
      (is (= :accepted (writes-after-close s (str (get-req "/" :close? true) "GET /more HTTP/1.1\r\n") 500))))))

(deftest http-1-0
  (ts/each-combo [s (fn [r] (if (= "/stream" (:uri r)) (ok (list "a" "b" "c")) (ok "ten bytes!")))]
    (testing "without keep-alive the connection closes after the response"
      (let [{:keys [text closed?]} (ts/raw s (get-req "/" :version "1.0"))]
        (is (str/starts-with? text "HTTP/1.0 200 "))
        (is (str/ends-with? text "ten bytes!"))
        (is closed?)))
    (testing "with keep-alive it stays open"
      (let [{:keys [text closed?]} (ts/raw s "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n" {:quiet-ms 500})]
        (is (re-find #"(?i)\r\nconnection: keep-alive\r\n" text))
        (is (not closed?))))
    (testing "a body of unknown length is not chunked: the close ends it"
      (doseq [request [(get-req "/stream" :version "1.0")
                       "GET /stream HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"]]
        (let [{:keys [text closed?]} (ts/raw s request)]
          (is (not (re-find #"(?i)transfer-encoding" text)))
          (is (str/ends-with? text "\r\n\r\nabc"))
          (is closed?))))))

(deftest pipelined-responses-keep-request-order
  (testing "20 pipelined requests, the first the slowest, come back in order"
    (ts/each-combo [s (fn [r]
                        (let [n (parse-long (subs (:uri r) 1))]
                          ;; The event loop must not block; its async combination answers from a thread anyway.
                          (when (and (zero? n) (not= :event-loop (:handler-mode combo)))
                            (Thread/sleep 300))
                          (ok (str "response " n "\n"))))
                    {} combo]
      (let [requests (apply str (for [i (range 20)] (get-req (str "/" i) :close? (= i 19))))
            {:keys [text closed?]} (ts/raw s requests {:quiet-ms 5000})]
        (is (= (repeat 20 200) (ts/statuses text)))
        (is (= (map #(str "response " %) (range 20)) (re-seq #"response \d+" text)))
        (is closed?)))))

(deftest pipelined-slow-async-response-keeps-order
  (testing "an async handler answering its first request last still answers in order"
    (ts/with-server [s (fn [r respond _]
                         (let [n (parse-long (subs (:uri r) 1))]
                           (future (Thread/sleep (if (zero? n) 300 0))
                                   (respond (ok (str "response " n "\n"))))))
                     {:async? true}]
      (let [{:keys [text]} (ts/raw s (apply str (for [i (range 5)] (get-req (str "/" i) :close? (= i 4))))
                                   {:quiet-ms 5000})]
        (is (= (map #(str "response " %) (range 5)) (re-seq #"response \d+" text)))))))

(defn- concurrently
  "Sends `n` requests to `server` at once with the JDK client; returns the bodies."
  [server n]
  (let [futures (mapv (fn [i]
                        (.sendAsync ts/client
                                    (.build (HttpRequest/newBuilder (URI. (ts/url server (str "/" i)))))
                                    (HttpResponse$BodyHandlers/ofString)))
                      (range n))]
    (CompletableFuture/allOf (into-array CompletableFuture futures))
    (mapv #(let [r (.join ^CompletableFuture %)] [(.statusCode r) (.body r)]) futures)))

(deftest a-thousand-concurrent-requests
  (ts/each-combo [s (fn [r]
                      (when (not= :event-loop (:handler-mode combo)) (Thread/sleep 20))
                      (ok (subs (:uri r) 1)))
                  {:worker-threads 16} combo]
    (let [results (concurrently s 1000)]
      (is (= (map (fn [i] [200 (str i)]) (range 1000)) results)))))

(deftest max-body-by-content-length
  (ts/each-combo [s (fn [r] (ok (str (count (slurp (:body r))))))
                  {:max-body 100}]
    (testing "a declared length over :max-body is refused before the handler runs"
      (let [{:keys [text closed?]} (ts/raw s (str "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n"
                                                  (apply str (repeat 101 "x"))))]
        (is (= [413] (ts/statuses text)))
        (is closed?)))
    (testing "up to :max-body is fine"
      (is (= "100" (:body (ts/request (ts/url s "/") {:method :post :body (apply str (repeat 100 "x"))})))))))

(deftest max-body-chunked
  (testing "a chunked body over :max-body fails the read, and the client gets 413"
    (ts/each-combo [s (fn [r] (ok (str (count (slurp (:body r))))))
                    {:max-body 1000}]
      (let [chunk (str "400\r\n" (apply str (repeat 1024 "y")) "\r\n")
            {:keys [text closed?]} (ts/raw s (str "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                                                  chunk chunk "0\r\n\r\n"))]
        (is (= [413] (ts/statuses text)) text)
        (is closed?)))))

(deftest unread-body-does-not-break-keep-alive
  (testing "a handler that ignores a body still leaves the connection usable"
    (ts/each-combo [s (fn [r] (ok (:uri r)))]
      (let [body (apply str (repeat 300000 "z"))
            {:keys [text]} (ts/raw s (str "POST /first HTTP/1.1\r\nHost: x\r\nContent-Length: " (count body) "\r\n\r\n"
                                          body (get-req "/second" :close? true))
                                   {:quiet-ms 5000})]
        (is (= [200 200] (ts/statuses text)))
        (is (str/includes? text "/second"))))))

(deftest uri-too-long
  (ts/with-server [s (fn [_] (ok "x")) {:max-uri-length 100}]
    (is (= [414] (ts/statuses (:text (ts/raw s (get-req (str "/" (apply str (repeat 100 "a")))))))))
    (is (= [414] (ts/statuses (:text (ts/raw s (get-req (str "/" (apply str (repeat 5000 "a")))))))))
    (is (= [200] (ts/statuses (:text (ts/raw s (get-req (str "/" (apply str (repeat 99 "a"))) :close? true))))))))

(deftest header-section-too-large
  (ts/with-server [s (fn [_] (ok "x")) {:max-header-size 1024}]
    (let [{:keys [text closed?]} (ts/raw s (str "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " (apply str (repeat 2000 "h")) "\r\n\r\n"))]
      (is (= [431] (ts/statuses text)))
      (is closed?))
    (is (= [200] (ts/statuses (:text (ts/raw s (get-req "/" :close? true))))))))

(deftest expect-100-continue
  (ts/each-combo [s (fn [r] (ok (slurp (:body r)))) {:max-body 1000}]
    (testing "the client is told to go on, then its body is read"
      (with-open [socket (java.net.Socket. "127.0.0.1" (int (onager.server/port s)))]
        (.setSoTimeout socket 5000)
        (let [out (.getOutputStream socket)
              in (java.io.BufferedReader. (java.io.InputStreamReader. (.getInputStream socket)))]
          (.write out (.getBytes "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n"))
          (.flush out)
          (is (= "HTTP/1.1 100 Continue" (.readLine in)))
          (.write out (.getBytes "hello"))
          (.flush out)
          (let [rest (slurp in)]
            (is (str/includes? rest "200 OK"))
            (is (str/ends-with? rest "hello"))))))
    (testing "a body over :max-body is refused without asking for it"
      (let [{:keys [text]} (ts/raw s "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5000\r\nExpect: 100-continue\r\n\r\n")]
        (is (= [413] (ts/statuses text)))))))
