(ns onager.server.response-test
  "The response writer: every body type Ring knows (and ours), headers, HEAD and
  bodiless statuses, in every handler mode and arity."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.protocols :as protocols]
            [onager.test-support :as ts]
            [ring.core.protocols :as ring-protocols])
  (:import [java.io ByteArrayInputStream File OutputStream]
           [java.nio ByteBuffer]
           [java.nio.charset StandardCharsets]
           [java.nio.file Files]
           [java.nio.file.attribute FileAttribute]
           [java.time Instant]
           [java.time.format DateTimeFormatter]))

(defn- ok [body & {:as headers}]
  {:status 200 :headers (merge {"Content-Type" "text/plain; charset=utf-8"} headers) :body body})

(defn- temp-file ^File [^String content]
  (doto (File/createTempFile "onager-body" ".txt")
    (.deleteOnExit)
    (spit content)))

(defn- content-length [response] (some-> (ts/header response "content-length") parse-long))
(defn- chunked? [response] (= "chunked" (ts/header response "transfer-encoding")))

(defmacro ^:private body-test
  "Checks that `body-fn` (called per request) gives `expected` text on the wire in
  every combination, with a Content-Length when `known-length?`, chunked otherwise."
  [body-fn expected known-length?]
  `(ts/each-combo [s# (fn [_#] (ok (~body-fn)))]
     (let [r# (ts/request (ts/url s# "/"))]
       (is (= 200 (:status r#)))
       (is (= ~expected (:body r#)))
       (if ~known-length?
         (do (is (= (count (.getBytes ^String ~expected StandardCharsets/UTF_8)) (content-length r#)))
             (is (not (chunked? r#))))
         (do (is (chunked? r#))
             (is (nil? (content-length r#))))))))

(deftest nil-body
  (body-test (constantly nil) "" true))

(deftest string-body
  (body-test (constantly "héllo, wörld") "héllo, wörld" true))

(deftest string-body-beyond-latin-1
  ;; Characters beyond Latin-1 (a two-char emoji among them): the string is stored as UTF-16.
  (body-test (constantly "5 € — 日本 😀") "5 € — 日本 😀" true))

(deftest byte-array-body
  (body-test #(.getBytes "bytes €" StandardCharsets/UTF_8) "bytes €" true))

(deftest seq-body
  (testing "strings, byte arrays and other values (as str), one chunk per element"
    (body-test #(map identity ["a" (.getBytes "b" StandardCharsets/UTF_8) 1 :k nil "€"]) "ab1:k€" false))
  (testing "a lazy seq is realised while it is sent"
    (body-test #(map (fn [i] (str i ",")) (range 5)) "0,1,2,3,4," false)))

(deftest input-stream-body
  (body-test #(ByteArrayInputStream. (.getBytes "from a stream" StandardCharsets/UTF_8)) "from a stream" false))

(deftest file-body
  (let [f (temp-file "file contents\n")]
    (body-test (constantly f) "file contents\n" true)))

(deftest path-body
  (let [p (.toPath (temp-file "path contents\n"))]
    (body-test (constantly p) "path contents\n" true)))

(deftest byte-buffer-body
  (body-test #(ByteBuffer/wrap (.getBytes "buffer" StandardCharsets/UTF_8)) "buffer" true)
  (testing "only the remaining bytes, without moving the caller's position"
    (let [bb (doto (ByteBuffer/wrap (.getBytes "xxbuffer" StandardCharsets/UTF_8)) (.position 2))]
      (body-test (constantly bb) "buffer" true)
      (is (= 2 (.position bb))))))

(defrecord Shout [text]
  protocols/ResponseBody
  (write-body-to-stream [_ _ out]
    (with-open [^OutputStream out out]
      (.write out (.getBytes (str/upper-case text) StandardCharsets/UTF_8)))))

(deftest protocol-body
  (testing "a type extending onager.protocols/ResponseBody"
    (body-test #(->Shout "quiet") "QUIET" false)))

(defrecord RingBody [text])

(extend-protocol ring-protocols/StreamableResponseBody
  RingBody
  (write-body-to-stream [body _ ^OutputStream out]
    (.write out (.getBytes (str "ring:" (:text body)) StandardCharsets/UTF_8))
    (.close out)))

(deftest ring-protocol-body
  (testing "a type extending ring.core.protocols/StreamableResponseBody works unchanged"
    (body-test #(->RingBody "x") "ring:x" false)))

(deftest unwritable-body
  (testing "a body of no known type gives 500, and the server goes on"
    (ts/each-combo [s (fn [r] (if (= "/ok" (:uri r)) (ok "fine") (ok {:a 1})))]
      (is (= 500 (:status (ts/request (ts/url s "/")))))
      (is (= "fine" (:body (ts/request (ts/url s "/ok"))))))))

(deftest async-protocol-body-written-later
  (testing "with an async handler the body may be written from another thread; the close ends it"
    (ts/with-server [s (fn [_ respond _]
                         (respond {:status 200
                                   :body (reify protocols/ResponseBody
                                           (write-body-to-stream [_ _ out]
                                             (Thread/startVirtualThread
                                              (fn []
                                                (with-open [^OutputStream out out]
                                                  (doseq [part ["one " "two " "three"]]
                                                    (Thread/sleep 20)
                                                    (.write out (.getBytes ^String part))
                                                    (.flush out)))))))}))
                     {:async? true}]
      (is (= "one two three" (:body (ts/request (ts/url s "/"))))))))

(deftest input-stream-is-closed
  (ts/each-combo [s (let [closed (promise)]
                      (fn [r]
                        (if (= "/closed" (:uri r))
                          (ok (pr-str (deref closed 5000 :timeout)))
                          (ok (proxy [ByteArrayInputStream] [(.getBytes "data")]
                                (close [] (deliver closed true)))))))]
    (is (= "data" (:body (ts/request (ts/url s "/")))))
    (is (= "true" (:body (ts/request (ts/url s "/closed")))))))

(deftest charset-from-content-type
  (ts/each-combo [s (fn [r]
                      (let [text "déjà"]
                        (if (= "/seq" (:uri r))
                          {:status 200 :headers {"content-type" "text/plain;charset=ISO-8859-1"} :body (list text)}
                          {:status 200 :headers {"Content-Type" "text/plain; charset=\"iso-8859-1\""} :body text})))]
    (doseq [path ["/" "/seq"]]
      (let [r (ts/request (ts/url s path) {:as :bytes})]
        (is (= [100 -23 106 -32] (vec (:body r))) path)))))

(deftest multi-value-headers
  (ts/each-combo [s (fn [_] {:status 200
                             :headers {"Set-Cookie" ["a=1; Path=/" "b=2; HttpOnly"]
                                       "X-List" (list "x" "y")
                                       "X-Number" 42
                                       "X-Nil" nil}
                             :body "ok"})]
    (let [r (ts/raw s "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
          text (:text r)]
      (testing "each value of a collection is its own header line"
        (is (re-find #"(?i)\r\nSet-Cookie: a=1; Path=/\r\n" text))
        (is (re-find #"(?i)\r\nSet-Cookie: b=2; HttpOnly\r\n" text))
        (is (re-find #"(?i)\r\nX-List: x\r\n" text))
        (is (re-find #"(?i)\r\nX-List: y\r\n" text)))
      (testing "other values are sent as their str; nil values are left out"
        (is (re-find #"(?i)\r\nX-Number: 42\r\n" text))
        (is (not (re-find #"(?i)X-Nil" text)))))))

(deftest head-requests
  (let [f (temp-file "0123456789")]
    (ts/each-combo [s (fn [r]
                        (case (:uri r)
                          "/string" (ok "twelve bytes")
                          "/file" (ok f)
                          "/stream" (ok (ByteArrayInputStream. (.getBytes "streamed")))))]
      (doseq [[path length] [["/string" "12"] ["/file" "10"] ["/stream" nil]]]
        (testing path
          (let [{:keys [text closed?]} (ts/raw s (str "HEAD " path " HTTP/1.1\r\nHost: x\r\n\r\n"
                                                      "GET /string HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                [head-part get-part] (str/split text #"(?=HTTP/1.1 )" 2)]
            (is (= [200 200] (ts/statuses text)) text)
            (if length
              (is (re-find (re-pattern (str "(?i)content-length: " length "\r\n")) head-part))
              (is (not (re-find #"(?i)transfer-encoding" head-part))))
            (testing "no body follows the head: the next response comes right after it"
              (is (str/ends-with? head-part "\r\n\r\n"))
              (is (str/ends-with? get-part "\r\n\r\ntwelve bytes")))
            (is closed?)))))))

(deftest bodiless-statuses
  (ts/each-combo [s (fn [r] {:status (parse-long (subs (:uri r) 1)) :body "must not be sent"})]
    (doseq [status [204 304]]
      (let [{:keys [text]} (ts/raw s (str "GET /" status " HTTP/1.1\r\nHost: x\r\n\r\n"
                                          "GET /200 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
            [first-part] (str/split text #"(?=HTTP/1.1 200)" 2)]
        (is (= [status 200] (ts/statuses text)) text)
        (is (not (str/includes? first-part "must not be sent")))
        (is (not (re-find #"(?i)transfer-encoding" first-part)))
        (when (= 204 status)
          (is (not (re-find #"(?i)content-length" first-part)) first-part))))))

(deftest handler-content-length-is-kept
  (testing "a stream body with its own Content-Length is sent with it, not chunked"
    (ts/each-combo [s (fn [_] {:status 200 :headers {"Content-Length" "6"}
                               :body (ByteArrayInputStream. (.getBytes "sized!"))})]
      (let [r (ts/request (ts/url s "/"))]
        (is (= "sized!" (:body r)))
        (is (= 6 (content-length r)))
        (is (not (chunked? r)))))))

(deftest declared-content-length-must-match
  (ts/each-combo [s (fn [r]
                      (let [h {"Content-Length" (case (:uri r) "/short-stream" "10" "3")}]
                        (case (:uri r)
                          "/string" {:status 200 :headers {"Content-Length" "10"} :body "short"}
                          "/nan" {:status 200 :headers {"Content-Length" "ten"} :body "short"}
                          "/head-only" {:status 200 :headers {"Content-Length" "1234"} :body nil}
                          "/long-stream" {:status 200 :headers h :body (ByteArrayInputStream. (.getBytes "abcdef"))}
                          "/long-seq" {:status 200 :headers h :body (list "abc" "def")}
                          "/short-stream" {:status 200 :headers h :body (list "abc")}
                          "/ok" (ok "fine"))))]
    (testing "a direct body whose Content-Length is wrong is refused"
      (is (= 500 (:status (ts/request (ts/url s "/string")))))
      (is (= 500 (:status (ts/request (ts/url s "/nan"))))))
    (testing "HEAD may declare the length its GET would have"
      (let [{:keys [text]} (ts/raw s "HEAD /head-only HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")]
        (is (= [200] (ts/statuses text)))
        (is (re-find #"(?i)content-length: 1234\r\n" text))))
    (testing "a stream longer than its Content-Length never sends the extra bytes"
      (is (= 500 (:status (ts/request (ts/url s "/long-stream")))))
      (let [{:keys [text closed?]} (ts/raw s "GET /long-seq HTTP/1.1\r\nHost: x\r\n\r\nGET /ok HTTP/1.1\r\nHost: x\r\n\r\n")]
        (is (str/ends-with? text "\r\n\r\nabc"))
        (is (not (str/includes? text "def")))
        (is closed?)))
    (testing "a stream shorter than its Content-Length cuts the connection"
      (let [{:keys [text closed?]} (ts/raw s "GET /short-stream HTTP/1.1\r\nHost: x\r\n\r\n")]
        (is (str/ends-with? text "\r\n\r\nabc"))
        (is closed?)))
    (is (= "fine" (:body (ts/request (ts/url s "/ok")))))))

(deftest date-and-server-headers
  (ts/with-server [s (fn [_] (ok "x")) {}]
    (let [r (ts/request (ts/url s "/"))]
      (is (re-matches #"[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT" (ts/header r "date")))
      (is (= "Onager" (ts/header r "server"))))
    (testing "the Date is the time of the response, and moves on with the clock"
      (let [date (fn [] (let [before (quot (System/currentTimeMillis) 1000)
                              d (.getEpochSecond (Instant/from (.parse DateTimeFormatter/RFC_1123_DATE_TIME
                                                                       (ts/header (ts/request (ts/url s "/")) "date"))))
                              after (quot (System/currentTimeMillis) 1000)]
                          ;; A second behind at most: the value changes just after the second does.
                          (is (<= (dec before) d after) (str before " <= " d " <= " after))
                          d))
            first-date (date)]
        (Thread/sleep 1100)
        (is (> (date) first-date)))))
  (testing ":server-header sets it"
    (ts/with-server [s (fn [_] (ok "x")) {:server-header "Acme/1.0"}]
      (is (= "Acme/1.0" (ts/header (ts/request (ts/url s "/")) "server")))))
  (testing ":server-header nil or false leaves it out"
    (doseq [off [nil false]]
      (ts/with-server [s (fn [_] (ok "x")) {:server-header off}]
        (is (nil? (ts/header (ts/request (ts/url s "/")) "server"))))))
  (testing "a handler's own Server and Date headers win"
    (ts/with-server [s (fn [_] (ok "x" "Server" "mine" "Date" "Thu, 01 Jan 1970 00:00:00 GMT")) {}]
      (let [r (ts/request (ts/url s "/"))]
        (is (= ["mine"] (get-in r [:headers "server"])))
        (is (= ["Thu, 01 Jan 1970 00:00:00 GMT"] (get-in r [:headers "date"])))))))

(deftest header-injection-is-refused
  (ts/each-combo [s (fn [r]
                      (case (:uri r)
                        "/cr" {:status 200 :headers {"X-Evil" "a\r\nInjected: yes"} :body "x"}
                        "/lf" {:status 200 :headers {"X-Evil" ["ok" "b\nInjected: yes"]} :body "x"}
                        "/nul" {:status 200 :headers {"X-Evil" "a\u0000b"} :body "x"}
                        "/name" {:status 200 :headers {"X-Evil\r\nInjected" "yes"} :body "x"}
                        "/stream" {:status 200 :headers {"X-Evil" "a\r\nInjected: yes"} :body (list "x")}
                        (ok "fine")))]
    (doseq [path ["/cr" "/lf" "/nul" "/name" "/stream"]]
      (testing path
        (let [{:keys [text]} (ts/raw s (str "GET " path " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))]
          (is (= [500] (ts/statuses text)) text)
          (is (not (str/includes? text "Injected")))
          (is (not (str/includes? text "X-Evil"))))))
    (is (= "fine" (:body (ts/request (ts/url s "/ok")))))))

(deftest invalid-status
  (ts/each-combo [s (fn [r] (case (:uri r)
                              "/big" {:status 600 :body "x"}
                              "/string" {:status "200" :body "x"}
                              "/none" {:body "no status means 200"}))]
    (is (= 500 (:status (ts/request (ts/url s "/big")))))
    (is (= 500 (:status (ts/request (ts/url s "/string")))))
    (is (= [200 "no status means 200"] ((juxt :status :body) (ts/request (ts/url s "/none")))))))

(deftest failure-mid-stream-cuts-the-connection
  (testing "once part of a body is sent, a failure closes the connection without the chunked terminator"
    (ts/each-combo [s (fn [_] (ok (lazy-cat ["first part\n"] (throw (ex-info "boom" {})))))]
      (let [{:keys [text closed?]} (ts/raw s "GET / HTTP/1.1\r\nHost: x\r\n\r\n")]
        (is (= [200] (ts/statuses text)))
        (is (str/includes? text "first part"))
        (is (not (str/ends-with? text "0\r\n\r\n")))
        (is closed?)))))

(deftest failure-before-any-output-gives-500
  (ts/each-combo [s (fn [_] (ok (lazy-seq (throw (ex-info "secret detail" {})))))]
    (let [r (ts/request (ts/url s "/"))]
      (is (= 500 (:status r)))
      (is (not (str/includes? (:body r) "secret detail"))))))
