(ns onager.server.client-aborts-test
  "Clients that leave mid-exchange: a request body cut short, a connection
  closed while the handler runs, a reset while the response is being sent.
  That is routine for a server: each is logged once, at DEBUG on
  onager.server.client, one line without a stack trace, and nothing is logged
  at WARN or ERROR, in every handler mode and for every kind of body."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.test-support :as ts])
  (:import [java.net Socket]))

(defn- app
  "The demo's /echo and /upload, and responses of each kind: a direct body, a
  stream, a lazy seq, each far larger than the socket's buffers."
  [request]
  (case (:uri request)
    "/echo" {:status 200 :headers {"Content-Type" "application/octet-stream"} :body (:body request)}
    "/upload" {:status 200 :body (str (count (slurp (:body request))))}
    "/slow" (do (Thread/sleep 300) {:status 200 :body "late"})
    "/bytes" {:status 200 :body (byte-array (* 32 1024 1024))}
    "/stream" {:status 200 :body (ts/counting-stream (* 1024 1024 1024) (atom 0) (promise))}
    "/seq" {:status 200 :body (map (fn [i] (str i "\n")) (range))}))

(defn- cut-body!
  "Sends the head of a POST to `path` announcing 100 bytes, then 2 of them, and closes."
  [server path]
  (with-open [socket (ts/connect server)]
    (ts/send! socket (str "POST " path " HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab"))
    (Thread/sleep 200)))

(defn- leave-early!
  "Sends a GET of `path` and closes before the answer comes."
  [server path]
  (with-open [socket (ts/connect server)]
    (ts/send! socket (str "GET " path " HTTP/1.1\r\nHost: x\r\n\r\n"))))

(defn- reset-mid-response!
  "Sends a GET of `path`, reads the start of the response, and resets the connection."
  [server path]
  (let [socket (ts/connect server)]
    (ts/send! socket (str "GET " path " HTTP/1.1\r\nHost: x\r\n\r\n"))
    (.readNBytes (.getInputStream socket) 10000)
    (.setSoLinger socket true 0)
    (.close socket)))

(defn- client-records [records]
  (ts/logged records :logger "onager.server.client"))

(defn- check-abort
  "Runs `abort!` against `server`, and checks that it logged `expected` (a regex)
  once at DEBUG, in one line, and nothing loud."
  [server abort! expected]
  (let [records (ts/capture-logs {:until #(seq (ts/logged % :message expected))}
                                 #(abort! server))
        matching (ts/logged records :level :debug :logger "onager.server.client" :message expected)]
    (is (empty? (ts/loud records)) (ts/messages records))
    (is (= 1 (count matching)) (ts/messages records))
    (is (= 1 (count (client-records records))) (str "logged once\n" (ts/messages records)))
    (doseq [{:keys [message throwable]} matching]
      (is (not (str/includes? message "\n")) message)
      (is (nil? throwable)))
    (testing "and the server goes on"
      (is (= "late" (:body (ts/request (ts/url server "/slow"))))))))

(deftest a-request-body-cut-short
  (ts/each-combo [s app]
    (doseq [path ["/echo" "/upload"]]
      (testing path
        (check-abort s #(cut-body! % path)
                     (re-pattern (str "POST " path ": .* closed the connection before the request body ended")))))))

(deftest a-client-that-leaves-while-the-handler-runs
  (ts/each-combo [s app {} combo]
    ;; Not on the event loop: there the handler (the async one computes its answer there
    ;; too) holds up the loop until it has answered, and the close is only seen after.
    (when-not (= :event-loop (:handler-mode combo))
      (check-abort s #(leave-early! % "/slow")
                   #"GET /slow: .* closed the connection before the response was sent"))))

(deftest a-reset-while-the-response-is-sent
  (ts/each-combo [s app]
    (doseq [path ["/bytes" "/stream" "/seq"]]
      (testing path
        (check-abort s #(reset-mid-response! % path)
                     (re-pattern (str "GET " path ": .* closed the connection while the response was being sent")))))))
