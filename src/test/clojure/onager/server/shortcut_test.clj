(ns onager.server.shortcut-test
  "The kernel's shortcut past Vert.x's request and response objects: which
  requests take it, that what they get is what the Vert.x path gives, byte for
  byte, and that answers it cannot write itself go on to Vert.x in order."
  (:require [clojure.edn :as edn]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.router :as router]
            [onager.test-support :as ts])
  (:import [java.nio ByteBuffer]
           [java.nio.charset StandardCharsets]))

(defn- via-shortcut?
  "True when the handler runs inside the shortcut (called from the connection's
  pipeline, not from Vert.x's request handler)."
  []
  (boolean (some #(= "onager.kernel.server.LoopShortcut" (.getClassName ^StackTraceElement %))
                 (.getStackTrace (Thread/currentThread)))))

(defn- flagging [_request]
  {:status 200 :headers {"X-Shortcut" (str (via-shortcut?))} :body "ok"})

(defn- flags
  "The X-Shortcut values of the responses to `text`, in order."
  [server text]
  (mapv second (re-seq #"(?i)x-shortcut: (\w+)" (:text (ts/raw server text {:quiet-ms 300})))))

(defn- get-req [path & headers]
  (str "GET " path " HTTP/1.1\r\nHost: x\r\n" (str/join (map #(str % "\r\n") headers)) "\r\n"))

;; "keep-alive" with another token: kept alive all the same, but not plain, so Vert.x answers.
(def ^:private not-plain "Connection: keep-alive, x")

(deftest plain-requests-take-the-shortcut
  (ts/with-server [s flagging {:handler-mode :event-loop}]
    (testing "HTTP/1.1 without a body, kept alive"
      (is (= ["true"] (flags s (get-req "/"))))
      (is (= ["true"] (flags s (get-req "/" "Content-Length: 0"))))
      (is (= ["true"] (flags s (get-req "/" "Connection: Keep-Alive"))))
      (is (= ["true"] (flags s "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n"))))
    (testing "anything else goes to Vert.x"
      (is (= ["false"] (flags s (get-req "/" not-plain))))
      (is (= ["false"] (flags s (get-req "/" "Connection: close"))))
      (is (= ["false"] (flags s "GET / HTTP/1.0\r\n\r\n")))
      (is (= ["false"] (flags s (get-req "/" "Expect: 100-continue" "Content-Length: 0"))))
      (is (= ["false"] (flags s (get-req "/" "Upgrade: something" "Connection: upgrade"))))
      (is (= ["false"] (flags s "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")))
      (is (= ["false"] (flags s "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")))
      (is (= [414] (ts/statuses (:text (ts/raw s (get-req (str "/" (apply str (repeat 9000 "a")))) {:quiet-ms 300}))))
          "a URI over :max-uri-length is refused by the Vert.x path"))
    (testing "a request behind one whose response is still owed waits its turn in Vert.x"
      (let [text (str (get-req "/") (get-req "/") "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nz" (get-req "/"))]
        (is (= ["true" "true" "false" "true"] (flags s text))))))
  (testing "only where sync handlers run on the event loop"
    (doseq [opts [{} {:handler-mode :virtual} {:handler-mode :worker}]]
      (ts/with-server [s flagging opts]
        (is (= ["false"] (flags s (get-req "/"))) (pr-str opts))))
    (ts/with-server [s (fn [request respond _raise] (respond (flagging request))) {:handler-mode :event-loop :async? true}]
      (is (= ["false"] (flags s (get-req "/"))) "async handlers answer through Vert.x")))
  (testing "routes that run on the event loop take it, the others do not"
    (let [app (router/router [["/loop" {:get flagging}]
                              ["/virtual" {:get flagging :handler-mode :virtual}]])]
      (ts/with-server [s app {:handler-mode :event-loop}]
        (is (= ["true" "false"] (flags s (str (get-req "/loop") (get-req "/virtual"))))))
      (ts/with-server [s (router/router [["/loop" {:get flagging :handler-mode :event-loop}] ["/v" {:get flagging}]]) {}]
        (is (= ["true" "false"] (flags s (str (get-req "/loop") (get-req "/v")))))))))

(def ^:private shapes
  "Responses with a body in memory, each at /N."
  [{:status 200 :headers {"Content-Type" "text/plain; charset=utf-8"} :body "héllo wörld"}
   {:status 201 :headers {"Content-Type" "text/plain; charset=ISO-8859-1" "X-A" ["1" "2"]} :body "façade"}
   {:status 200 :body (.getBytes "bytes" StandardCharsets/US_ASCII)}
   {:status 200 :body :buffer}
   {:status 200 :headers {"Content-Length" "4"} :body "four"}
   {:status 204 :body nil}
   {:status 204 :body "dropped"}
   {:status 304 :headers {"ETag" "\"x\""}}
   {:status 404 :headers {:x-keyword "v" "X-Number" 42}}
   {:status 200 :headers {"Date" "Thu, 01 Jan 1970 00:00:00 GMT" "Server" "mine"} :body ""}
   {:headers {} :body nil}
   {:status 200 :headers {"Set-Cookie" ["a=1" "b=2"]} :body "c"}
   {:status 599 :body "odd status"}])

(defn- shape-handler [request]
  (let [shape (shapes (parse-long (subs (:uri request) 1)))]
    ;; A fresh buffer each time: a ByteBuffer body is read from its position.
    (cond-> shape (= :buffer (:body shape)) (assoc :body (ByteBuffer/wrap (.getBytes "buffer" StandardCharsets/US_ASCII))))))

(defn- without-date
  "The response text without the Date header the server adds (the second may differ)."
  [text]
  (str/replace text #"\r\ndate: [^\r]*" ""))

(deftest the-same-bytes-as-through-vertx
  (ts/with-server [s shape-handler {:handler-mode :event-loop}]
    (doseq [method ["GET" "HEAD"]
            i (range (count shapes))
            :let [req (fn [& headers] (str method " /" i " HTTP/1.1\r\nHost: x\r\n" (str/join (map #(str % "\r\n") headers)) "\r\n"))
                  shortcut (:text (ts/raw s (req) {:quiet-ms 300}))
                  through-vertx (:text (ts/raw s (req not-plain) {:quiet-ms 300}))]]
      (testing (str method " " (pr-str (shapes i)))
        (is (str/starts-with? shortcut "HTTP/1.1 "))
        (is (= (without-date through-vertx) (without-date shortcut)))))))

(defn- echo-request [request]
  {:status 200
   :body (pr-str (-> (select-keys request [:server-port :server-name :remote-addr :uri :query-string :scheme
                                            :request-method :protocol :content-type :content-length
                                            :character-encoding :headers])
                     (update :headers dissoc "connection")
                     (assoc :body (slurp (:body request)))))})

(defn- request-map [server text]
  (edn/read-string (second (str/split (:text (ts/raw server text {:quiet-ms 300})) #"\r\n\r\n" 2))))

(deftest the-same-request-map-as-through-vertx
  (ts/with-server [s echo-request {:handler-mode :event-loop}]
    (doseq [[target & headers] [["/plain"]
                                ["/p/a%20b?x=1&y=2&x=3" "Host: example.com:8080" "X-Multi: 1" "X-Multi: 2"
                                 "Cookie: a=1" "Cookie: b=2" "Content-Type: text/plain; charset=ISO-8859-1"]
                                ["http://example.org/absolute?q" "Host: example.org"]
                                ["/ipv6" "Host: [::1]:99"]
                                ["/empty?" "Host: localhost"]]
            :let [head (str "GET " target " HTTP/1.1\r\n"
                            (str/join (map #(str % "\r\n") (if (some #(str/starts-with? % "Host:") headers)
                                                             headers
                                                             (cons "Host: x" headers)))))
                  shortcut (request-map s (str head "\r\n"))
                  through-vertx (request-map s (str head not-plain "\r\n\r\n"))]]
      (testing target
        (is (= :get (:request-method shortcut)))
        (is (= through-vertx shortcut))))))

(defn- mixed [request]
  (case (:uri request)
    "/stream" {:status 200 :body (map str ["s" "e" "q"])}
    "/throw" (throw (ex-info "boom" {}))
    "/bad" {:status "two hundred"}
    {:status 200 :body (str (:uri request) (when-let [b (:body request)] (slurp b)))}))

(deftest what-the-shortcut-cannot-write-goes-on-in-order
  (ts/with-server [s mixed {:handler-mode :event-loop}]
    (let [logs (ts/capture-logs
                #(let [{:keys [text closed?]}
                       (ts/raw s (str (get-req "/a")
                                      (get-req "/stream")
                                      "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\nbody"
                                      (get-req "/throw")
                                      (get-req "/c")
                                      (get-req "/bad")
                                      "HEAD /d HTTP/1.1\r\nHost: x\r\n\r\n"
                                      (get-req "/e"))
                               {:quiet-ms 500})]
                   (is (= [200 200 200 500 200 500 200 200] (ts/statuses text)))
                   (is (re-find #"(?s)\r\n\r\n/a.*\r\ns\r\n.*\r\nq\r\n.*/bbody.*/c.*/e$" text) "bodies in request order")
                   (is (not (str/includes? text "boom")) "no exception text on the wire")
                   (is (not closed?))))]
      (is (= 2 (count (filter #(= "SEVERE" (str (.getLevel ^java.util.logging.LogRecord %))) logs)))
          "the throwing handler and the invalid response are logged, as on the Vert.x path"))))
