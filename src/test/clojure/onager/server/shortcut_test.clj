(ns onager.server.shortcut-test
  "The kernel's shortcut past Vert.x's request and response objects: which
  requests take it, that what they get is what the Vert.x path gives, byte for
  byte, and that answers it cannot write itself go on to Vert.x in order; for
  handlers on virtual threads, that one read's requests run in order on one
  thread, and what ends such a run early."
  (:require [clojure.edn :as edn]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.router :as router]
            [onager.test-support :as ts])
  (:import [java.nio ByteBuffer]
           [java.nio.charset StandardCharsets]))

(defn- via-shortcut?
  "True when the handler was called by the shortcut's run of queued requests, not
  by Vert.x's request handler (which a run on the loop may have led to)."
  []
  (= "onager.kernel.server.QueuedRun"
     (some #(let [c (.getClassName ^StackTraceElement %)] (when (str/starts-with? c "onager.kernel.server.") c))
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
  (doseq [mode [:event-loop :virtual]]
   (ts/with-server [s flagging {:handler-mode mode}]
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
        ;; On the loop, Vert.x answers the POST within the read, and the last request finds
        ;; nothing owed; on virtual threads the POST is still being answered when it comes.
        (is (= ["true" "true" "false" (str (= mode :event-loop))] (flags s text)) (name mode))))))
  (testing "only where sync handlers run on the event loop or on virtual threads (the default)"
    (doseq [[opts taken] [[{} "true"] [{:handler-mode :worker} "false"]]]
      (ts/with-server [s flagging opts]
        (is (= [taken] (flags s (get-req "/"))) (pr-str opts))))
    (doseq [mode [:event-loop :virtual]]
      (ts/with-server [s (fn [request respond _raise] (respond (flagging request))) {:handler-mode mode :async? true}]
        (is (= ["false"] (flags s (get-req "/"))) "async handlers answer through Vert.x"))))
  (testing "routes whose sync handlers run on the loop or on virtual threads take it, the others do not"
    (let [app (router/router [["/loop" {:get flagging}]
                              ["/virtual" {:get flagging :handler-mode :virtual}]
                              ["/worker" {:get flagging :handler-mode :worker}]])]
      (ts/with-server [s app {:handler-mode :event-loop}]
        ;; The last one waits in Vert.x behind the worker's answer.
        (is (= ["true" "true" "false" "false"]
               (flags s (str (get-req "/loop") (get-req "/virtual") (get-req "/worker") (get-req "/loop"))))))
      (ts/with-server [s (router/router [["/loop" {:get flagging :handler-mode :event-loop}] ["/v" {:get flagging}]
                                         ["/w" {:get flagging :handler-mode :worker}]]) {}]
        (is (= ["true" "true" "false"] (flags s (str (get-req "/v") (get-req "/loop") (get-req "/w")))))))))

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
  (doseq [mode [:event-loop :virtual]]
   (ts/with-server [s shape-handler {:handler-mode mode}]
    (doseq [method ["GET" "HEAD"]
            i (range (count shapes))
            :let [req (fn [& headers] (str method " /" i " HTTP/1.1\r\nHost: x\r\n" (str/join (map #(str % "\r\n") headers)) "\r\n"))
                  shortcut (:text (ts/raw s (req) {:quiet-ms 300}))
                  through-vertx (:text (ts/raw s (req not-plain) {:quiet-ms 300}))]]
      (testing (str (name mode) " " method " " (pr-str (shapes i)))
        (is (str/starts-with? shortcut "HTTP/1.1 "))
        (is (= (without-date through-vertx) (without-date shortcut))))))))

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
  (doseq [mode [:event-loop :virtual]]
   (ts/with-server [s echo-request {:handler-mode mode}]
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
      (testing (str (name mode) " " target)
        (is (= :get (:request-method shortcut)))
        (is (= through-vertx shortcut)))))))

(defn- mixed [request]
  (case (:uri request)
    "/stream" {:status 200 :body (map str ["s" "e" "q"])}
    "/throw" (throw (ex-info "boom" {}))
    "/bad" {:status "two hundred"}
    {:status 200 :body (str (:uri request) (when-let [b (:body request)] (slurp b)))}))

(deftest what-the-shortcut-cannot-write-goes-on-in-order
  (doseq [mode [:event-loop :virtual]]
   (ts/with-server [s mixed {:handler-mode mode}]
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
      (is (= 2 (count (ts/logged logs :level :error)))
          "the throwing handler and the invalid response are logged, as on the Vert.x path")))))

;; ---- handlers on virtual threads: a read's requests run together ----

(defn- threads
  "A handler that answers its URI and the id of the thread it ran on, after
  sleeping the milliseconds a `sleep` query asks for."
  [request]
  (when-let [ms (some->> (:query-string request) (re-find #"sleep=(\d+)") second parse-long)]
    (Thread/sleep (long ms)))
  {:status 200 :headers {"X-Thread" (str (.threadId (Thread/currentThread)))} :body (:uri request)})

(defn- answered
  "[uri thread-id] of each response in `text`, in order."
  [text]
  (mapv (fn [[_ id uri]] [uri id])
        (re-seq #"(?s)X-Thread: (\d+)\r\n.*?\r\n\r\n(/[a-z0-9]+)" text)))

(defn- best-of
  "Runs `attempt` up to five times and returns the first result `ok?` accepts,
  else the last. A run ends after a handler that took over a millisecond, which
  a handler preempted on a loaded machine can; one run in five is enough to show
  that runs happen, and none would be if they did not."
  [ok? attempt]
  (loop [n 1]
    (let [got (attempt)]
      (if (or (ok? got) (= n 5)) got (recur (inc n))))))

(deftest a-reads-requests-run-in-order-on-one-virtual-thread
  (ts/with-server [s threads {}]
    (let [paths (mapv #(str "/r" %) (range 12))
          got (best-of #(= 1 (count (set (map second %))))
                       #(answered (:text (ts/raw s (str/join (map get-req paths)) {:quiet-ms 500}))))]
      (is (= paths (mapv first got)) "every request answered, in order")
      (is (= 1 (count (set (map second got)))) "by one thread, not one thread each"))
    (testing "a slow handler ends its run: the answers made go out, the requests after it run anew"
      (let [got (best-of (fn [got] (let [[a b c d] (map second got)] (and (= a b) (= c d))))
                         #(answered (:text (ts/raw s (str (get-req "/a") (get-req "/b?sleep=20") (get-req "/c") (get-req "/d"))
                                                   {:quiet-ms 500}))))
            [a b c d] (map second got)]
        (is (= ["/a" "/b" "/c" "/d"] (mapv first got)))
        (is (= a b) "the slow one ran in the first run")
        (is (not= b c) "the ones after it in another")
        (is (= c d))))))

(deftest requests-sent-while-a-run-is-running-wait-their-turn
  (ts/with-server [s threads {}]
    (with-open [socket (ts/connect s)]
      (ts/send! socket (get-req "/first?sleep=300"))
      (Thread/sleep 100)
      (ts/send! socket (str (get-req "/second") "POST /third HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nz"
                            (get-req "/fourth")))
      (.setSoTimeout socket 1000)
      (let [{:keys [text closed?]} (ts/read-all socket)]
        (is (= [200 200 200 200] (ts/statuses text)))
        (is (= ["/first" "/second" "/third" "/fourth"] (mapv first (answered text))) "answered in the order they came")
        (is (not closed?))))))

(deftest a-run-that-runs-out-of-time-answers-what-it-made-then-503
  (let [release (promise)
        handler (fn [request]
                  (when (= "/stuck" (:uri request)) (deref release 10000 nil))
                  {:status 200 :body (:uri request)})]
    (ts/with-server [s handler {:request-timeout-ms 300}]
      (let [result (atom nil)
            logs (ts/capture-logs #(reset! result (ts/raw s (str (get-req "/done") (get-req "/stuck") (get-req "/never"))
                                                          {:quiet-ms 3000})))
            {:keys [text closed?]} @result]
        (deliver release true)
        (is (= [200 503] (ts/statuses text)))
        (is (str/includes? text "/done"))
        (is (re-find #"(?i)\r\nconnection: close\r\n" text))
        (is closed? "the connection closes after the 503")
        (is (seq (ts/logged logs :level :warn :message #"/stuck"))
            "the warning names the request that was late")
        (is (= 200 (:status (ts/request (ts/url s "/")))) "the server goes on")))))
