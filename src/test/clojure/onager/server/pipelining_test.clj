(ns onager.server.pipelining-test
  "Pipelined requests (RFC 9112 §9.3.2): each runs where its handler mode says
  and is answered in the order it came, whatever its answer; a read's requests
  whose handlers run on virtual threads run in order on one thread, and what
  ends such a run early; and how a request is framed (kept alive by default or
  by a token list) changes neither the answer's bytes nor the request map."
  (:require [clojure.edn :as edn]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.router :as router]
            [onager.test-support :as ts])
  (:import [java.nio ByteBuffer]
           [java.nio.charset StandardCharsets]))

(defn- get-req [path & headers]
  (str "GET " path " HTTP/1.1\r\nHost: x\r\n" (str/join (map #(str % "\r\n") headers)) "\r\n"))

;; "keep-alive" with another token: kept alive all the same, but read token by token.
(def ^:private not-plain "Connection: keep-alive, x")

(defn- thread-kind
  "Where the handler runs, told by its thread."
  []
  (let [t (Thread/currentThread)]
    (cond (.isVirtual t) "virtual"
          (str/starts-with? (.getName t) "onager-worker-") "worker"
          (str/includes? (.getName t) "eventloop") "event-loop"
          :else (.getName t))))

(defn- where [request]
  {:status 200 :headers {"X-Ran-On" (thread-kind)} :body (:uri request)})

(defn- ran-on
  "[uri thread-kind] of each response in `text`, in order."
  [text]
  (mapv (fn [[_ kind uri]] [uri kind]) (re-seq #"(?s)X-Ran-On: ([\w-]+)\r\n.*?\r\n\r\n(/[a-z0-9]+)" text)))

(deftest one-reads-requests-run-where-their-routes-say-and-answer-in-order
  (let [app (router/router [["/loop" {:get where :handler-mode :event-loop}]
                            ["/v" {:get where :handler-mode :virtual}]
                            ["/w" {:get where :handler-mode :worker}]
                            ["/post" {:post where}]])]
    (doseq [mode [:event-loop :virtual :worker]]
      (ts/with-server [s app {:handler-mode mode}]
        (let [{:keys [text closed?]}
              (ts/raw s (str (get-req "/loop") (get-req "/v") (get-req "/v") (get-req "/w") (get-req "/loop")
                             "POST /post HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\n\r\nz" (get-req "/w"))
                      {:quiet-ms 500})]
          (is (= [["/loop" "event-loop"] ["/v" "virtual"] ["/v" "virtual"] ["/w" "worker"] ["/loop" "event-loop"]
                  ["/post" (name mode)] ["/w" "worker"]]
                 (ran-on text))
              (name mode))
          (is (not closed?)))))))

(deftest async-handlers-answer-pipelined-requests-in-order
  (doseq [mode [:event-loop :virtual]]
    (ts/with-server [s (fn [request respond _raise]
                         (future (Thread/sleep (if (= "/slow" (:uri request)) 100 0))
                                 (respond {:status 200 :body (:uri request)})))
                     {:handler-mode mode :async? true}]
      (let [{:keys [text]} (ts/raw s (str (get-req "/slow") (get-req "/fast") (get-req "/slow")) {:quiet-ms 500})]
        (is (re-find #"(?s)\r\n\r\n/slow.*\r\n\r\n/fast.*\r\n\r\n/slow$" text) (name mode))))))

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

(def ^:private last-request
  "Pipelined after a request under test, so that the server closes the
  connection once it has answered both, instead of the test waiting for quiet."
  (get-req "/0" "Connection: close"))

(defn- kept-alive
  "What the server sends back for the request `text`, then `last-request`, on
  one connection. Throws unless it answered both and then closed: it would
  have closed early, or not at all."
  [server text]
  (let [{received :text closed? :closed?} (ts/raw server (str text last-request) {:quiet-ms 5000})]
    (when-not (and closed? (= 2 (count (re-seq #"HTTP/1\.1 \d{3} " received))))
      (throw (ex-info (str "not two answers then a close: " (pr-str received)) {:request text})))
    received))

(deftest the-same-bytes-however-the-request-says-keep-alive
  (doseq [mode [:event-loop :virtual]]
   (ts/with-server [s shape-handler {:handler-mode mode}]
    (doseq [method ["GET" "HEAD"]
            i (range (count shapes))
            :let [req (fn [& headers] (str method " /" i " HTTP/1.1\r\nHost: x\r\n" (str/join (map #(str % "\r\n") headers)) "\r\n"))
                  plain (kept-alive s (req))
                  tokens (kept-alive s (req not-plain))]]
      (testing (str (name mode) " " method " " (pr-str (shapes i)))
        (is (str/starts-with? plain "HTTP/1.1 "))
        (is (= (without-date tokens) (without-date plain))))))))

(defn- echo-request [request]
  {:status 200
   :body (pr-str (-> (select-keys request [:server-port :server-name :remote-addr :uri :query-string :scheme
                                            :request-method :protocol :content-type :content-length
                                            :character-encoding :headers])
                     (update :headers dissoc "connection")
                     (assoc :body (slurp (:body request)))))})

(defn- request-map
  "The request map `echo-request` sent back for the request `text` (the reader
  stops after it, before the answer to `last-request`)."
  [server text]
  (edn/read-string (second (str/split (kept-alive server text) #"\r\n\r\n" 2))))

(deftest the-same-request-map-however-the-request-says-keep-alive
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
                  plain (request-map s (str head "\r\n"))
                  tokens (request-map s (str head not-plain "\r\n\r\n"))]]
      (testing (str (name mode) " " target)
        (is (= :get (:request-method plain)))
        (is (= tokens plain)))))))

(defn- mixed [request]
  (case (:uri request)
    "/stream" {:status 200 :body (map str ["s" "e" "q"])}
    "/throw" (throw (ex-info "boom" {}))
    "/bad" {:status "two hundred"}
    {:status 200 :body (str (:uri request) (when-let [b (:body request)] (slurp b)))}))

(deftest answers-of-every-kind-go-out-in-order
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
          "the throwing handler and the invalid response are logged")))))

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
