(ns onager.server.metrics-test
  "The :metrics option and onager.metrics, on real servers on 127.0.0.1: the
  JDK's HttpClient and WebSocket client, raw sockets for refused requests,
  curl for HTTP/2; the meters read from Micrometer's own registries."
  (:require [clojure.edn :as edn]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.metrics :as metrics]
            [onager.router :as router]
            [onager.server :as server]
            [onager.tls :as tls]
            [onager.test-jvm :as jvm]
            [onager.test-support :as ts]
            [onager.ws-support :as ws])
  (:import [io.micrometer.core.instrument Counter FunctionCounter FunctionTimer Meter MeterRegistry Timer]
           [io.micrometer.core.instrument.distribution.pause ClockDriftPauseDetector]
           [io.micrometer.core.instrument.search Search]
           [io.micrometer.core.instrument.simple SimpleMeterRegistry]
           [java.io File]
           [java.time Duration]
           [java.nio.file Path]
           [java.security.cert X509Certificate]
           [onager.kernel.tls Pem]
           [java.util.concurrent CountDownLatch TimeUnit]))

(set! *warn-on-reflection* true)

;; ---- reading the registry ----

(defn- search
  "The registry's meters named `name` with the tags `tags` (a map)."
  ^Search [^MeterRegistry r name tags]
  (reduce (fn [^Search s [k v]] (.tag s (clojure.core/name k) (str v))) (.find r name) tags))

(defn- request-meters
  "The meters of http.server.requests with `tags`: Micrometer timers with a
  histogram, function timers without."
  [r tags]
  (let [s (search r "http.server.requests" tags)]
    (concat (.timers s) (.functionTimers s))))

(defn- timer-count
  "How many requests http.server.requests with `tags` counted; 0 when it does not exist."
  [r tags]
  (let [s (search r "http.server.requests" tags)]
    (if-let [t (.timer s)]
      (.count ^Timer t)
      (if-let [f (.functionTimer s)] (long (.count ^FunctionTimer f)) 0))))

(defn- counter
  "The count of the counter (or function counter) `name` with `tags`; 0 when it does not exist."
  [r name tags]
  (let [s (search r name tags)]
    (if-let [c (.counter s)]
      (.count ^Counter c)
      (if-let [f (.functionCounter s)] (.count ^FunctionCounter f) 0.0))))

(defn- gauge
  "The value of the gauge `name`; nil when it does not exist."
  [r name]
  (some-> (.gauge (search r name {})) (.value)))

(defn- eventually
  "Polls `f` until it returns a truthy value or 5 s pass; returns its last value."
  [f]
  (let [deadline (+ (System/currentTimeMillis) 5000)]
    (loop []
      (let [v (f)]
        (if (or v (> (System/currentTimeMillis) deadline))
          v
          (do (Thread/sleep 20) (recur)))))))

(defn- timed
  "Polls the timer with `tags` until it counted `n` requests or 5 s pass; returns its last count.
  The count is 0, which is truthy, until the exchange is timed, so `eventually` alone would not wait."
  [n r tags]
  (let [c (eventually #(let [c (timer-count r tags)] (when (= n c) c)))]
    (or c (timer-count r tags))))

(defn- ok [body] (fn [_] {:status 200 :headers {"content-type" "text/plain"} :body body}))

;; ---- requests ----

(defn- both
  "The 1-arity handler `f` with a 3-arity too, which responds with what `f` returns."
  [f]
  (fn ([r] (f r)) ([r respond _raise] (respond (f r)))))

(def ^:private app
  (router/router
   [["/users/:id" {:get (both (fn [r] {:status 200 :body (str "user " (get-in r [:path-params :id]))}))}]
    ["/plain" {:get (both (ok "plain"))}]
    ["/api" {:mount (router/router [["/items/:id" {:get (both (ok "item"))}]])}]
    ["/legacy" {:mount (both (fn [r] (when (= "/x" (:path-info r)) {:status 200 :body "legacy"})))}]]))

(deftest requests-are-timed-by-route-template
  (doseq [opts [{} {:handler-mode :event-loop :async? true}]]
    (testing (pr-str opts)
      (let [r (SimpleMeterRegistry.)
            handler (if (:async? opts) (fn [req respond raise] (app req respond raise)) app)]
        (ts/with-server [s handler (assoc opts :metrics r)]
          (is (= "user 1" (:body (ts/request (ts/url s "/users/1")))))
          (is (= "user 2" (:body (ts/request (ts/url s "/users/2")))))
          (is (= 404 (:status (ts/request (ts/url s "/nothing/here")))))
          (is (= 405 (:status (ts/request (ts/url s "/users/1") {:method :delete}))))
          (is (= "item" (:body (ts/request (ts/url s "/api/items/7")))))
          (is (= "legacy" (:body (ts/request (ts/url s "/legacy/x")))))
          (is (= 200 (:status (ts/request (ts/url s "/plain") {:method :head}))))
          (testing "two ids on one template: one time series, counted twice"
            (is (= 2 (timed 2 r {:route "/users/:id" :method "GET" :status 200})))
            (is (= 1 (count (request-meters r {:route "/users/:id"}))))
            (is (= "SUCCESS" (.getTag (.getId ^Meter (first (request-meters r {:route "/users/:id"}))) "outcome"))))
          (testing "no route took it: UNMATCHED, with its status"
            (is (= 1 (timed 1 r {:route "UNMATCHED" :method "GET" :status 404})))
            (is (= 1 (timed 1 r {:route "UNMATCHED" :method "DELETE" :status 405}))))
          (testing "a mounted router's route, under its mount; a mounted handler's, the mount and /*"
            (is (= 1 (timed 1 r {:route "/api/items/:id" :method "GET" :status 200})))
            (is (= 1 (timed 1 r {:route "/legacy/*" :method "GET" :status 200}))))
          (is (= 1 (timed 1 r {:route "/plain" :method "HEAD" :status 200})))
          (testing "no raw URI becomes a tag"
            (is (empty? (filter #(re-find #"/users/\d|/nothing" (str (.getTag (.getId ^Meter %) "route")))
                                (.meters (search r "http.server.requests" {})))))))))))

(deftest a-handler-that-is-no-router-is-unmatched
  (let [r (SimpleMeterRegistry.)]
    (ts/with-server [s (fn [_] {:status 201 :body "made"}) {:metrics r}]
      (dotimes [i 3] (ts/request (ts/url s (str "/anything/" i)) {:method :post :body "x"}))
      (is (= 3 (timed 3 r {:route "UNMATCHED" :method "POST" :status 201})))
      (testing "a request refused before any handler: UNMATCHED, a CLIENT_ERROR"
        (is (str/starts-with? (:text (ts/raw s "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")) "HTTP/1.1 400"))
        (is (= 1 (timed 1 r {:route "UNMATCHED" :status 400 :outcome "CLIENT_ERROR"})))))))

(deftest a-pause-of-the-jvm-makes-no-requests
  ;; Micrometer's pause detector, the registry's default, would have a timer record made-up
  ;; samples after the JVM paused, as many as the pause held up at the rate requests came:
  ;; here it hears of every pause over 1 ms, full collections make some, and eight clients
  ;; keep the rate high.
  (let [r (SimpleMeterRegistry.)
        n 160]
    (.pauseDetector (.config r) (ClockDriftPauseDetector. (Duration/ofMillis 1) (Duration/ofMillis 1)))
    (ts/with-server [s (fn [_] {:status 200 :body "ok"}) {:metrics r}]
      (let [clients (doall (for [_ (range 8)]
                             (future (dotimes [_ (/ n 8)] (ts/request (ts/url s "/"))))))]
        (while (not-every? realized? clients)
          (System/gc)
          (Thread/sleep 20))
        (run! deref clients))
      (is (= n (timed n r {:route "UNMATCHED" :method "GET" :status 200})))
      (Thread/sleep 200)
      (is (= n (timer-count r {:route "UNMATCHED" :method "GET" :status 200}))))))

(deftest requests-active-while-they-run
  (let [r (SimpleMeterRegistry.)
        entered (CountDownLatch. 1)
        release (CountDownLatch. 1)
        handler (fn [_] (.countDown entered) (.await release 10 TimeUnit/SECONDS) {:status 200 :body "late"})]
    (ts/with-server [s handler {:metrics r}]
      (is (= 0.0 (gauge r "http.server.requests.active")))
      (let [response (future (ts/request (ts/url s "/slow")))]
        (is (.await entered 10 TimeUnit/SECONDS))
        (is (= 1.0 (gauge r "http.server.requests.active")))
        (.countDown release)
        (is (= "late" (:body @response)))
        (is (eventually #(= 0.0 (gauge r "http.server.requests.active"))))))))

(deftest a-client-that-leaves
  (let [r (SimpleMeterRegistry.)
        entered (CountDownLatch. 1)
        release (CountDownLatch. 1)
        handler (fn [_] (.countDown entered) (.await release 10 TimeUnit/SECONDS) {:status 200 :body "late"})]
    (ts/with-server [s handler {:metrics r}]
      (with-open [socket (ts/connect s)]
        (ts/send! socket "GET /leaving HTTP/1.1\r\nHost: a\r\n\r\n")
        (is (.await entered 10 TimeUnit/SECONDS))
        (is (= 1.0 (gauge r "http.server.requests.active"))))
      (testing "its request is no longer active, and is timed with no status"
        (is (eventually #(= 0.0 (gauge r "http.server.requests.active"))))
        (is (= 1 (timed 1 r {:route "UNMATCHED" :status "UNKNOWN" :outcome "UNKNOWN"}))))
      (.countDown release)
      (testing "the handler's late answer changes nothing"
        (Thread/sleep 200)
        (is (= 0.0 (gauge r "http.server.requests.active")))
        (is (= 1 (count (request-meters r {}))))))))

(deftest methods-outside-the-standard-ones-are-other
  (let [r (SimpleMeterRegistry.)]
    (ts/with-server [s (ok "any") {:metrics r}]
      (doseq [m ["BREW" "PROPFIND" "M-SEARCH"]]
        (is (str/starts-with? (:text (ts/raw s (str m " / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")))
                              "HTTP/1.1 200")
            m))
      (is (= 3 (timed 3 r {:method "OTHER" :status 200}))))))

(deftest connections-and-bytes
  (let [r (SimpleMeterRegistry.)]
    (ts/with-server [s (ok (apply str (repeat 1000 "x"))) {:metrics r}]
      (is (= 0.0 (gauge r "http.server.connections.active")))
      (let [request "GET /bytes HTTP/1.1\r\nHost: localhost\r\nX-Pad: 0123456789\r\n\r\n"]
        (with-open [socket (ts/connect s)]
          (ts/send! socket request)
          (let [in (.getInputStream socket)
                buf (byte-array 4096)
                ;; The whole response: its head and 1000 bytes of body.
                got (loop [got ""]
                      (if (str/ends-with? got (apply str (repeat 10 "x")))
                        got
                        (let [n (.read in buf)]
                          (if (pos? n) (recur (str got (String. buf 0 n "ISO-8859-1"))) got))))]
            (is (= 1.0 (gauge r "http.server.connections.active")))
            (is (= 1.0 (counter r "http.server.connections.opened" {})))
            (is (= (double (count request)) (counter r "http.server.data.received" {})))
            (is (= (double (count got)) (counter r "http.server.data.sent" {})))))
        (is (eventually #(= 0.0 (gauge r "http.server.connections.active"))))
        (is (= "bytes" (.getBaseUnit (.getId ^Meter (.functionCounter (search r "http.server.data.sent" {}))))))))))

(deftest bytes-are-counted-once-however-they-are-written
  (let [file (doto (File/createTempFile "onager-metrics" ".bin") (.deleteOnExit))
        _ (spit file (apply str (repeat 100000 "f")))
        handler (fn [{:keys [uri]}]
                  {:status 200
                   :body (case uri
                           ;; Written by the handler's virtual thread, in pieces, off the event loop.
                           "/stream" (java.io.ByteArrayInputStream. (byte-array 300000 (byte 65)))
                           ;; Sent by sendfile, as a file region.
                           "/file" file
                           "short")})]
    (doseq [mode [:virtual :event-loop]
            [uri least] [["/stream" 300000] ["/file" 100000] ["/short" 5]]]
      (testing (str mode " " uri)
        (let [r (SimpleMeterRegistry.)]
          (ts/with-server [s handler {:metrics r :handler-mode mode}]
            (let [request (str "GET " uri " HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                  {:keys [text closed?]} (ts/raw s request)
                  got (count text)]
              (is closed? "the whole response came, up to the close")
              (is (< least got))
              (is (= (double got) (eventually #(let [n (counter r "http.server.data.sent" {})]
                                                   (when (= n (double got)) n)))))
              (is (= (double (count request)) (counter r "http.server.data.received" {}))))))))))

(deftest bytes-over-tls-are-the-records-on-the-wire
  (let [r (SimpleMeterRegistry.)
        files (tls/self-signed {})]
    (ts/with-server [s (ok (apply str (repeat 1000 "x"))) (merge {:metrics r :port nil :ssl-port 0} files)]
      (let [out (shell/sh "curl" "-sk" "--http1.1" "-o" "/dev/null" "-w" "%{size_header} %{size_download}"
                          (str "https://127.0.0.1:" (server/ssl-port s) "/"))
            [head body] (map parse-long (str/split (:out out) #" "))
            cert-der (count (.getEncoded ^X509Certificate (first (Pem/certificates (Path/of (:ssl-cert files) (make-array String 0))))))]
        (is (= 1000 body))
        (is (eventually #(= 0.0 (gauge r "http.server.connections.active"))))
        (testing "the server's handshake, its certificate in it, counts among the bytes sent"
          (is (< (+ head body cert-der) (counter r "http.server.data.sent" {}))))
        (testing "the client's hello and its encrypted request count among the bytes received"
          (is (< 300.0 (counter r "http.server.data.received" {}))))))))

;; ---- refusals ----

(defn- refused [r reason status]
  (counter r "http.server.requests.refused" {:reason reason :status status}))

(deftest refusals-by-limit
  (let [r (SimpleMeterRegistry.)
        records (ts/capture-logs
                 (fn []
                   (ts/with-server [s (ok "fine") {:metrics r :max-body 10 :max-uri-length 100 :max-header-size 1024
                                                   :header-timeout-ms 300}]
                     (is (str/starts-with? (:text (ts/raw s (str "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 11"
                                                                  "\r\n\r\n01234567890")))
                                           "HTTP/1.1 413"))
                     (is (str/starts-with? (:text (ts/raw s (str "GET /" (apply str (repeat 200 "u"))
                                                                  " HTTP/1.1\r\nHost: a\r\n\r\n")))
                                           "HTTP/1.1 414"))
                     (is (str/starts-with? (:text (ts/raw s (str "GET / HTTP/1.1\r\nHost: a\r\nX-Big: "
                                                                  (apply str (repeat 2000 "h")) "\r\n\r\n")))
                                           "HTTP/1.1 431"))
                     (is (str/starts-with? (:text (ts/raw s "GET / HTTP/1.1\r\nHost: a\r\n" {:quiet-ms 3000}))
                                           "HTTP/1.1 408"))
                     (is (str/starts-with? (:text (ts/raw s "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: x\r\n\r\n"))
                                           "HTTP/1.1 400"))
                     (is (eventually #(= 1.0 (refused r "body-too-large" 413))))
                     (is (= 1.0 (refused r "uri-too-long" 414)))
                     (is (= 1.0 (refused r "headers-too-large" 431)))
                     (is (= 1.0 (refused r "header-timeout" 408)))
                     (is (= 1.0 (refused r "malformed" 400)))
                     (is (= 0.0 (refused r "request-timeout" 503)))
                     (is (= 1 (timed 1 r {:route "UNMATCHED" :method "POST" :status 413}))))))]
    (is (empty? (ts/loud records)) (ts/messages records))))

(deftest refusal-of-a-handler-out-of-time
  (let [r (SimpleMeterRegistry.)
        release (CountDownLatch. 1)
        records (ts/capture-logs
                 (fn []
                   (ts/with-server [s (fn [_] (.await release 10 TimeUnit/SECONDS) {:status 200})
                                    {:metrics r :request-timeout-ms 200}]
                     (is (= 503 (:status (ts/request (ts/url s "/stuck")))))
                     (.countDown release)
                     (is (eventually #(= 1.0 (refused r "request-timeout" 503)))))))]
    (is (= 1 (count (ts/logged records :level :warn :message #":request-timeout-ms")))
        (ts/messages records))))

;; ---- WebSockets ----

(defn- echo-socket [_]
  {:ring.websocket/listener
   {:on-message (fn [socket message]
                  ((requiring-resolve 'onager.websocket/send) socket message))}})

(deftest websockets
  (let [r (SimpleMeterRegistry.)]
    (ts/with-server [s echo-socket {:metrics r}]
      (is (= 0.0 (gauge r "websocket.server.connections.active")))
      (let [c (ws/connect (ws/ws-url s "/echo"))]
        (ws/send-text! c "hello")
        (is (= [:text "hello"] (ws/next-event c)))
        (ws/send-binary! c (byte-array [1 2 3]))
        (is (= :binary (first (ws/next-event c))))
        (ws/send-text! c "again")
        (is (= [:text "again"] (ws/next-event c)))
        (is (= 1.0 (gauge r "websocket.server.connections.active")))
        (is (= 2.0 (counter r "websocket.server.messages.received" {:type "text"})))
        (is (= 1.0 (counter r "websocket.server.messages.received" {:type "binary"})))
        (is (= 2.0 (counter r "websocket.server.messages.sent" {:type "text"})))
        (is (= 1.0 (counter r "websocket.server.messages.sent" {:type "binary"})))
        (ws/close! c 1000 "bye")
        (is (eventually #(= 0.0 (gauge r "websocket.server.connections.active"))))
        (testing "the upgrade is a request too"
          (is (= 1 (timed 1 r {:route "UNMATCHED" :method "GET" :status 101}))))))))

;; ---- threads, loops, the JVM ----

(deftest virtual-threads-started
  (let [r (SimpleMeterRegistry.)]
    (ts/with-server [s (ok "v") {:metrics r :handler-mode :virtual}]
      (dotimes [_ 3] (ts/request (ts/url s "/")))
      (is (<= 3.0 (counter r "onager.virtual.threads.started" {}))))
    (testing "none in :event-loop mode"
      (let [r (SimpleMeterRegistry.)]
        (ts/with-server [s (ok "e") {:metrics r :handler-mode :event-loop}]
          (dotimes [_ 3] (ts/request (ts/url s "/")))
          (is (= 0.0 (counter r "onager.virtual.threads.started" {}))))))))

(deftest event-loop-delay
  (let [r (SimpleMeterRegistry.)]
    (ts/with-server [_ (ok "d") {:metrics r :event-loops 2}]
      (is (eventually #(when-let [t (.timer (search r "onager.event.loop.delay" {}))]
                         (<= 2 (.count ^Timer t))))))))

(deftest jvm-and-netty-meters
  (let [r (SimpleMeterRegistry.)]
    (ts/with-server [_ (ok "j") {:metrics r}]
      (doseq [name ["jvm.memory.used" "jvm.threads.live" "jvm.classes.loaded" "system.cpu.count"
                    "jvm.gc.memory.allocated" "netty.allocator.memory.used"]]
        (is (seq (.meters (search r name {}))) name))))
  (testing ":metrics-jvm? false leaves them out"
    (let [r (SimpleMeterRegistry.)]
      (ts/with-server [_ (ok "j") {:metrics r :metrics-jvm? false}]
        (is (empty? (.meters (search r "jvm.memory.used" {}))))
        (is (seq (.meters (search r "http.server.requests.active" {}))))))))

(defn- scraped
  "The value of the Prometheus series `series` (name and labels, as scraped) in `text`."
  [text series]
  (some->> (re-find (re-pattern (str "(?m)^" (java.util.regex.Pattern/quote series) " (\\S+)$")) text)
           second
           parse-double))

(deftest the-histogram-is-published-on-demand
  (doseq [[histogram? buckets?] [[false false] [true true]]]
    (testing (str ":metrics-histogram? " histogram?)
      (let [r (metrics/prometheus-registry)
            slow (fn [_] (Thread/sleep 60) {:status 200 :body "slow"})]
        (ts/with-server [s slow {:metrics r :metrics-histogram? histogram?}]
          (ts/request (ts/url s "/"))
          (ts/request (ts/url s "/"))
          (is (= 2 (timed 2 r {:route "UNMATCHED"})))
          (let [text (.scrape ^io.micrometer.prometheusmetrics.PrometheusMeterRegistry r)
                labels "{method=\"GET\",outcome=\"SUCCESS\",route=\"UNMATCHED\",status=\"200\"}"]
            (is (= buckets? (str/includes? text "http_server_requests_seconds_bucket{")))
            (testing "count, sum and max: the same series either way"
              (is (= 2.0 (scraped text (str "http_server_requests_seconds_count" labels))) text)
              (is (<= 0.12 (scraped text (str "http_server_requests_seconds_sum" labels)) 10.0) text)
              (is (<= 0.06 (scraped text (str "http_server_requests_seconds_max" labels)) 5.0) text))
            (testing "a histogram takes Micrometer's timer; without, the loops' own counts"
              (is (= (if histogram? 1 0) (count (.timers (search r "http.server.requests" {})))))
              (is (= (if histogram? 0 1) (count (.functionTimers (search r "http.server.requests" {}))))))))))))

(deftest stop-removes-the-servers-meters
  (let [r (SimpleMeterRegistry.)]
    (ts/with-server [s (ok "1") {:metrics r}]
      (ts/request (ts/url s "/"))
      (is (eventually #(= 1 (timer-count r {:route "UNMATCHED"})))))
    (is (empty? (.meters (search r "http.server.requests" {}))))
    (is (empty? (.meters (search r "http.server.requests.seconds.max" {}))))
    (is (empty? (.meters (search r "http.server.requests.active" {}))))
    (testing "a server started again on the registry counts afresh"
      (ts/with-server [s (ok "2") {:metrics r}]
        (ts/request (ts/url s "/"))
        (is (eventually #(= 1 (timer-count r {:route "UNMATCHED"}))))
        (is (= 0.0 (gauge r "http.server.requests.active")))))))

;; ---- HTTP/2 ----

(deftest http2-requests-are-counted
  (let [r (SimpleMeterRegistry.)]
    (ts/with-server [s app {:metrics r :h2c? true}]
      (doseq [id [9 10]]
        (let [{:keys [out exit err]} (shell/sh "curl" "-s" "--http2-prior-knowledge" "--max-time" "30"
                                               "-w" "\n%{http_version}" (ts/url s (str "/users/" id)))]
          (is (= 0 exit) err)
          (is (= (str "user " id "\n2") out))))
      (is (= 2 (timed 2 r {:route "/users/:id" :method "GET" :status 200}))))))

;; ---- the Prometheus handler ----

(deftest prometheus-handler
  (let [r (metrics/prometheus-registry)
        scrape (metrics/prometheus-handler r)
        table [["/metrics" {:get scrape}] ["/users/:id" {:get (both (ok "u"))}]]]
    (doseq [[opts handler] [[{} (router/router table)]
                            [{:async? true :handler-mode :event-loop}
                             (let [a (router/router table)] (fn [req respond raise] (a req respond raise)))]]]
      (testing (pr-str opts)
        (ts/with-server [s handler (assoc opts :metrics r)]
          (ts/request (ts/url s "/users/3"))
          (eventually #(pos? (timer-count r {:route "/users/:id"})))
          (let [{:keys [status body] :as response} (ts/request (ts/url s "/metrics"))]
            (is (= 200 status))
            (is (= "text/plain; version=0.0.4; charset=utf-8" (ts/header response "content-type")))
            (is (re-find #"(?m)^http_server_requests_seconds_count\{.*method=\"GET\".*route=\"/users/:id\".*\} \d"
                         body)
                body)
            (doseq [name ["http_server_requests_active " "http_server_connections_active "
                          "http_server_data_received_bytes_total " "http_server_requests_refused_total{"
                          "onager_event_loop_delay_seconds_count " "jvm_memory_used_bytes{"]]
              (is (str/includes? body name) name))))))
    (testing "another registry is refused at once"
      (let [e (try (metrics/prometheus-handler (SimpleMeterRegistry.)) nil
                   (catch clojure.lang.ExceptionInfo e e))]
        (is (= :invalid-registry (:onager/error (ex-data e))))
        (is (re-find #"PrometheusMeterRegistry, not a io.micrometer.core.instrument.simple.SimpleMeterRegistry"
                     (ex-message e)))))))

;; ---- options and optional dependencies ----

(deftest the-option-takes-a-registry
  (doseq [bad ["registry" {} true]]
    (let [e (try (server/start (ok "x") {:host "127.0.0.1" :port 0 :metrics bad}) nil
                 (catch clojure.lang.ExceptionInfo e e))]
      (is (some? e))
      (is (str/includes? (ex-message e) ":metrics"))
      (is (str/includes? (ex-message e) "io.micrometer.core.instrument.MeterRegistry (io.micrometer/micrometer-core)"))))
  (let [e (try (server/start (ok "x") {:host "127.0.0.1" :port 0 :metrics (SimpleMeterRegistry.)
                                       :metrics-histogram? "yes"}) nil
               (catch clojure.lang.ExceptionInfo e e))]
    (is (str/includes? (ex-message e) ":metrics-histogram?"))))

(deftest no-micrometer-class-loads-without-metrics
  (let [{:keys [exit out]} (jvm/run 120000 ["-Xlog:class+load=info"] 'onager.metrics-app "off-then-on")
        [before after] (str/split out #"=== metrics on ===" 2)]
    (is (= 0 exit) out)
    (is (str/includes? before "metrics off: ok") out)
    (is (str/includes? (str after) "metrics on: ok") out)
    (is (not (re-find #"io\.micrometer\.|onager\.kernel\.metrics\." before))
        (str/join "\n" (take 5 (filter #(re-find #"io\.micrometer\.|onager\.kernel\.metrics\." %)
                                        (str/split-lines before)))))
    (testing "the check sees Micrometer when it loads"
      (is (re-find #"io\.micrometer\.core\.instrument\.MeterRegistry " (str after)))
      (is (re-find #"onager\.kernel\.metrics\.ServerMetrics " (str after))))))

(deftest a-missing-micrometer-is-named
  (let [cp (->> (str/split (System/getProperty "java.class.path") (re-pattern File/pathSeparator))
                (remove #(re-find #"micrometer|prometheus" %))
                (str/join File/pathSeparator))
        {:keys [exit out]} (jvm/run 120000 ["-cp" cp] 'onager.metrics-app "missing")
        result (edn/read-string (last (str/split-lines out)))]
    (is (= 0 exit) out)
    (is (= {:onager/error :missing-dependency :artifact "io.micrometer/micrometer-core"
            :class "io.micrometer.core.instrument.MeterRegistry"}
           (:data result))
        out)
    (is (str/includes? (:message result) "needs io.micrometer/micrometer-core"))))
