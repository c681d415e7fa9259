(ns onager.server.lifecycle-test
  "Starting and stopping: options checked at start with messages that name the
  key, the value and what is allowed; ports; graceful stop; shared Vert.x."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.server :as server]
            [onager.server.options :as server-options]
            [onager.test-support :as ts])
  (:import [io.vertx.core Vertx]
           [java.io Closeable]
           [java.net ServerSocket]
           [java.lang ProcessHandle]
           [java.util.concurrent TimeUnit]))

(defn- ok [_] {:status 200 :body "ok"})

(defn- start-error
  "The ex-info `start` throws for `opts` (and `handler`), or nil."
  ([opts] (start-error ok opts))
  ([handler opts]
   (try (server/stop (server/start handler opts)) nil
        (catch clojure.lang.ExceptionInfo e e))))

(def ^:private bad-options
  "Each option with a value it must refuse, and what the message must say is allowed."
  [[:host "" "non-empty host name"]
   [:host 127 "non-empty host name"]
   [:port -1 "integer from 0 to 65535"]
   [:port 65536 "integer from 0 to 65535"]
   [:port "8080" "integer from 0 to 65535"]
   [:unix-socket "" "a file path string"]
   [:unix-socket 1 "a file path string"]
   [:reuse-port? "yes" "true or false"]
   [:event-loops 0 "integer from 1 to 1024"]
   [:handler-mode :threads "one of :virtual, :event-loop, :worker"]
   [:handler-mode "virtual" "one of :virtual, :event-loop, :worker"]
   [:worker-threads 0 "integer from 1 to 10000"]
   [:async? "yes" "true or false"]
   [:async? nil "true or false"]
   [:max-body 0 "positive integer"]
   [:max-body 1.5 "positive integer"]
   [:decompress-requests? 1 "true or false"]
   [:max-header-size 10 "integer from 256"]
   [:max-uri-length 1 "integer from 16"]
   [:max-header-count 0 "integer from 1 to 10000"]
   [:low-memory-percent 101 "integer from 0 to 100"]
   [:idle-timeout-ms -5 "integer from 0"]
   [:header-timeout-ms -1 "integer from 0"]
   [:body-timeout-ms 1.5 "integer from 0"]
   [:request-timeout-ms "60s" "integer from 0"]
   [:shutdown-timeout-ms :soon "integer from 0"]
   [:shutdown-delay-ms -1 "integer from 0"]
   [:shutdown-idle-ms "1s" "integer from 0"]
   [:health {:checks {}} "a health object made by onager.health/health"]
   [:shutdown-hook? "yes" "true or false"]
   [:access-log :apache "nil, :common, :combined, :json, or a map"]
   [:request-id-header "cookie" "nil or a header name (a token) other than authorization"]
   [:server-header "bad\r\nheader" "printable ASCII"]
   [:server-header "" "printable ASCII"]
   [:transport :kqueue ":auto, :epoll, :io-uring or :nio"]
   [:transport "epoll" ":auto, :epoll, :io-uring or :nio"]
   [:metrics "registry" "an io.micrometer.core.instrument.MeterRegistry (io.micrometer/micrometer-core), or nil"]
   [:metrics {} "an io.micrometer.core.instrument.MeterRegistry"]
   [:metrics-histogram? "yes" "true or false"]
   [:metrics-jvm? 1 "true or false"]
   [:vertx "a vertx" "io.vertx.core.Vertx instance"]
   [:route-modes :router "a router made by onager.router/router"]
   [:ssl-port 65536 "integer from 0 to 65535, or nil"]
   [:ssl-cert 7 "a file path"]
   [:ssl-key "" "a file path"]
   [:key-password "" "non-empty string"]
   [:keystore 1 "a file path (string or java.io.File), a java.security.KeyStore"]
   [:keystore-type :pkcs12 "a keystore type"]
   [:ssl-context "tls" "a javax.net.ssl.SSLContext"]
   [:client-auth :want ":none, :request or :require (ring-jetty's :want is :request"]
   [:ssl-ca 1 "a file path"]
   [:truststore 1 "a java.security.KeyStore"]
   [:trust-password 1 "non-empty string"]
   [:ssl-protocols ["SSLv3"] "\"TLSv1.3\", \"TLSv1.2\""]
   [:ssl-protocols [] "a non-empty vector"]
   [:ssl-ciphers [""] "cipher suite names"]
   [:sni {"a.test" {:ssl-cert "c.pem"}} "a map of server names"]
   [:sni {"bad name" {:ssl-cert "c.pem" :ssl-key "k.pem"}} "a map of server names"]
   [:sni {"a.test" {:port 1 :ssl-cert "c.pem" :ssl-key "k.pem"}} "a map of server names"]
   [:ssl-provider :boringssl ":jdk or :openssl"]
   [:ssl-reload-on-change? "yes" "true or false"]
   [:h2c? "yes" "true or false"]
   [:h2c-upgrade? 1 "true or false"]
   [:http2-max-concurrent-streams 0 "integer from 1 to 10000"]
   [:http2-max-concurrent-streams 10001 "integer from 1 to 10000"]
   [:http2-initial-window-size 1023 "integer from 1024 to 2147483647"]
   [:http2-connection-window-size 65534 "integer from 65535 to 2147483647"]
   [:http2-max-frame-size 16383 "integer from 16384 to 16777215"]
   [:http2-max-frame-size 16777216 "integer from 16384 to 16777215"]
   [:http2-header-table-size -1 "integer from 0 to 2147483647"]
   [:http2-max-resets 0 "integer from 1 to 2147483647"]
   [:http2-reset-window-seconds 86401 "integer from 1 to 86400"]
   [:http2-max-small-continuations 0 "integer from 1 to 10000"]
   [:http2-max-empty-data-frames 10001 "integer from 1 to 10000"]
   [:http2-max-queued-control-frames 0 "integer from 1 to 2147483647"]
   [:http2-max-control-frames-per-second "100" "integer from 1 to 2147483647"]
   [:trusted-proxies ["10.0.0.0/33"] "collection of IP address and CIDR range strings"]
   [:trusted-proxies "127.0.0.1" "collection of IP address and CIDR range strings"]
   [:proxy-protocol? "yes" "true or false"]
   [:ws-max-frame-size 124 "integer from 125 to 2147483647"]
   [:ws-max-message-size "4m" "integer from 125 to 2147483647"]
   [:ws-idle-timeout-ms -1 "0 disables it"]
   [:ws-ping-interval-ms 1.5 "0 disables it"]
   [:ws-write-timeout-ms nil "0 disables it"]
   [:ws-high-water-mark 1023 "integer from 1024 to 2147483647"]
   [:ws-compression? "yes" "true or false"]
   [:ws-compression-level 10 "integer from 1 to 9"]
   [:ws-compression-window-bits 8 "integer from 9 to 15"]
   [:ws-allowed-origins "https://a.example" "collection of origin strings"]
   [:ws-allowed-origins [""] "collection of origin strings"]])

(deftest bad-options-are-rejected-with-their-message
  (doseq [[k v allowed] bad-options]
    (testing (str k " " (pr-str v))
      (let [e (start-error {k v})]
        (is (some? e))
        (when e
          (is (str/includes? (ex-message e) (str k)))
          (is (str/includes? (ex-message e) (pr-str v)))
          (is (str/includes? (ex-message e) allowed))
          (is (= {:onager/error :invalid-option :key k :value v}
                 (select-keys (ex-data e) [:onager/error :key :value]))))))))

(deftest every-option-has-a-rejection-test
  (is (= (set (map :key server-options/table)) (set (map first bad-options)))))

(deftest unknown-options-are-rejected
  (let [e (start-error {:prot 8080})]
    (is (= :unknown-option (:onager/error (ex-data e))))
    (is (str/includes? (ex-message e) ":prot"))
    (is (str/includes? (ex-message e) "8080"))
    (testing "with a suggestion and the list of known options"
      (is (str/includes? (ex-message e) "Did you mean :port?"))
      (is (str/includes? (ex-message e) ":max-body")))))

(deftest ring-jetty's-join?-gets-a-hint
  ;; A ring-jetty habit: (run-jetty app {:port 8080 :join? false}).
  (doseq [v [false true]]
    (let [e (start-error {:port 0 :join? v})]
      (is (= {:onager/error :unknown-option :key :join? :value v}
             (select-keys (ex-data e) [:onager/error :key :value])))
      (is (str/starts-with? (ex-message e)
                            (str "Unknown option :join? (value " v "). Onager's start never blocks"))
          (ex-message e))
      (is (str/includes? (ex-message e) "drop :join?, and keep the server")))))

(deftest options-must-be-a-map
  (let [e (start-error [:port 8080])]
    (is (= :invalid-options (:onager/error (ex-data e))))
    (is (str/includes? (ex-message e) "must be a map"))))

(deftest the-handler-must-be-a-function
  (let [e (start-error "not a handler" {})]
    (is (= :invalid-handler (:onager/error (ex-data e))))
    (is (str/includes? (ex-message e) "\"not a handler\""))))

(deftest port-zero-binds-a-free-port
  (ts/with-server [s ok {:port 0}]
    (is (pos? (server/port s)))
    (is (= "ok" (:body (ts/request (ts/url s "/")))))))

(deftest a-busy-port-fails-start-clearly
  (with-open [taken (ServerSocket. 0 50 (java.net.InetAddress/getByName "127.0.0.1"))]
    (let [port (.getLocalPort taken)
          e (try (server/start ok {:host "127.0.0.1" :port port}) nil
                 (catch Exception e e))]
      (is (instance? clojure.lang.ExceptionInfo e))
      (is (= (str "cannot listen on 127.0.0.1:" port ": address already in use") (ex-message e)))
      (is (= {:onager/error :cannot-listen :host "127.0.0.1" :port port} (ex-data e)))
      (testing "the transport's own error comes along, suppressed"
        (is (nil? (ex-cause e)) "no cause, which clojure.main would report instead")
        (is (some #(str/includes? (str (ex-message %)) "in use") (.getSuppressed ^Throwable e)))))))

(deftest clojure-main-shows-which-port-is-busy
  ;; clojure.main reports an error's innermost cause: that must be Onager's ex-info.
  (with-open [taken (ServerSocket. 0)]
    (let [port (.getLocalPort taken)
          java (-> (ProcessHandle/current) .info .command .get)
          process (-> (ProcessBuilder. ^java.util.List [java "--enable-native-access=ALL-UNNAMED"
                                        "-cp" (System/getProperty "java.class.path")
                                        "clojure.main" "-m" "onager.demo" "--port" (str port)])
                      (.redirectErrorStream true)
                      (.start))
          exited? (.waitFor process 60 TimeUnit/SECONDS)
          output (slurp (.getInputStream process))]
      (when-not exited? (.destroyForcibly process))
      (is exited?)
      (is (= 1 (.exitValue process)) output)
      (is (str/includes? output "Execution error (ExceptionInfo)") output)
      (is (str/includes? output (str "cannot listen on 0.0.0.0:" port ": address already in use")) output))))

(deftest stop-closes-the-port-and-is-idempotent
  (let [s (ts/start ok {})
        port (server/port s)]
    (is (= 200 (:status (ts/request (ts/url s "/")))))
    (is (nil? (server/stop s)))
    (is (ts/refused? port))
    (testing "stopping again does nothing"
      (is (nil? (server/stop s))))))

(deftest servers-are-closeable
  (let [port (with-open [^Closeable s (ts/start ok {})]
               (is (= 200 (:status (ts/request (ts/url s "/")))))
               (server/port s))]
    (is (ts/refused? port))))

(deftest graceful-stop-lets-requests-in-flight-finish
  (let [started (java.util.concurrent.CountDownLatch. 10)
        s (ts/start (fn [_] (.countDown started) (Thread/sleep 700) {:status 200 :body "done"})
                    {:shutdown-timeout-ms 10000})
        port (server/port s)
        in-flight (mapv (fn [_] (future (ts/request (ts/url s "/")))) (range 10))]
    (is (.await started 10 java.util.concurrent.TimeUnit/SECONDS))
    (server/stop s)
    (testing "every request that was in flight completes with 200"
      (is (= (repeat 10 200) (map (comp :status deref) in-flight)))
      (is (= (repeat 10 "done") (map (comp :body deref) in-flight))))
    (testing "their responses tell the client to close the connection"
      (is (every? #(= "close" (ts/header @% "connection")) in-flight)))
    (testing "new connections are refused"
      (is (ts/refused? port)))))

(deftest graceful-stop-gives-up-after-the-timeout
  (let [handler-done (promise)
        s (ts/start (fn [_] (Thread/sleep 5000) (deliver handler-done true) {:status 200})
                    {:shutdown-timeout-ms 300})
        in-flight (future (try (ts/request (ts/url s "/")) (catch Exception e e)))]
    (Thread/sleep 200)
    (server/stop s)
    (testing "stop returns once the timeout has passed, before the handler ends"
      (is (not (realized? handler-done))))
    (testing "and the request that did not finish in time loses its connection"
      (is (instance? java.io.IOException @in-flight)))))

(deftest a-shared-vertx-stays-open
  (let [vertx (Vertx/vertx)]
    (try
      (let [s (ts/start ok {:vertx vertx})]
        (is (= 200 (:status (ts/request (ts/url s "/")))))
        (server/stop s))
      (testing "after stop the instance still runs: a new server starts on it"
        (ts/with-server [s ok {:vertx vertx}]
          (is (= 200 (:status (ts/request (ts/url s "/")))))))
      (finally (.close vertx)))))

(deftest start-docstring-lists-every-option
  (let [doc (:doc (meta #'server/start))]
    (doseq [{k :key} server-options/table]
      (is (str/includes? doc (str k)) (str k)))))
