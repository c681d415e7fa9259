(ns onager.server.access-log-test
  "The access log (:access-log) and request ids (:request-id-header): each
  format's line exactly, chosen fields, credentials never logged, ids taken and
  made, HTTP/2 and refused requests logged, aborted responses noted, the lines
  logged off the event loop, and bad options refused."
  (:require [clojure.data.json :as json]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.server.access-log :as access-log]
            [onager.test-support :as ts]
            [onager.ws-support :as ws])
  (:import [ch.qos.logback.classic Logger]
           [ch.qos.logback.core AppenderBase]
           [java.time ZonedDateTime]
           [java.time.format DateTimeFormatter]
           [java.util Locale]
           [org.slf4j LoggerFactory]))

(set! *warn-on-reflection* true)

(defn- access-lines
  "The lines the onager.access logger (or `logger`) logged while `f` ran,
  waiting until `n` have come."
  ([n f] (access-lines n "onager.access" f))
  ([n logger f]
   (let [records (ts/capture-logs {:until #(<= n (count (ts/logged % :logger logger)))} f)]
     (vec (ts/logged records :logger logger)))))

(defn- hello [_] {:status 200 :headers {"content-type" "text/plain"} :body "hello"})

(def ^:private clf-time
  "Apache's %t, which the time of a :common line has."
  #"\[(\d{2}/\w{3}/\d{4}:\d{2}:\d{2}:\d{2} [+-]\d{4})\]")

(defn- clf-instant
  "The time of a :common or :combined line."
  ^ZonedDateTime [line]
  (ZonedDateTime/parse (second (re-find clf-time line))
                       (DateTimeFormatter/ofPattern "dd/MMM/yyyy:HH:mm:ss Z" Locale/US)))

(defn- without-time [line]
  (str/replace line clf-time "[T]"))

(deftest common-log-format
  (ts/with-server [s (fn [r] (if (= "/empty" (:uri r)) {:status 204} (hello r))) {:access-log :common}]
    (let [before (System/currentTimeMillis)
          [ok empty :as lines] (access-lines 2 #(do (ts/request (ts/url s "/hello?x=1&y=%22"))
                                                     (ts/request (ts/url s "/empty"))))]
      (is (= "127.0.0.1 - - [T] \"GET /hello?x=1&y=%22 HTTP/1.1\" 200 5" (without-time (:message ok))))
      (testing "a response without a body has - for its bytes"
        (is (= "127.0.0.1 - - [T] \"GET /empty HTTP/1.1\" 204 -" (without-time (:message empty)))))
      (testing "the time is when the request came, to the second"
        (let [t (.toEpochSecond (clf-instant (:message ok)))]
          (is (<= (quot before 1000) t (quot (System/currentTimeMillis) 1000)))))
      (testing "at INFO, on the log's own thread, never an event loop"
        (doseq [l lines]
          (is (= :info (:level l)))
          (is (= "onager-access-log" (:thread l))))))))

(deftest combined-log-format
  (ts/with-server [s hello {:access-log :combined}]
    (let [[with without] (access-lines 2 #(do (ts/request (ts/url s "/a")
                                                          {:headers {"Referer" "http://example.org/\"x\""
                                                                     "User-Agent" "probe/1.0"}})
                                              (ts/raw s "GET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")))]
      (testing "Referer and User-Agent quoted, a quote in them escaped as nginx does"
        (is (= "127.0.0.1 - - [T] \"GET /a HTTP/1.1\" 200 5 \"http://example.org/\\x22x\\x22\" \"probe/1.0\""
               (without-time (:message with)))))
      (testing "absent ones are \"-\""
        (is (= "127.0.0.1 - - [T] \"GET /b HTTP/1.1\" 200 5 \"-\" \"-\"" (without-time (:message without))))))))

(deftest json-lines
  (ts/with-server [s hello {:access-log :json}]
    (let [[line] (access-lines 1 #(ts/request (ts/url s "/j?q=1") {:headers {"User-Agent" "probe/2"}}))
          text (:message line)
          m (json/read-str text)]
      (testing "every field, in order"
        (is (= ["time" "remote-addr" "method" "uri" "protocol" "status" "bytes-sent" "duration-ms" "user-agent"
                "referer" "request-id" "aborted"]
               (map second (re-seq #"\"([a-z-]+)\":" text)))))
      (is (= {"remote-addr" "127.0.0.1" "method" "GET" "uri" "/j?q=1" "protocol" "HTTP/1.1" "status" 200
              "bytes-sent" 5 "user-agent" "probe/2" "referer" nil "aborted" false}
             (dissoc m "time" "duration-ms" "request-id")))
      (is (re-matches #"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z" (get m "time")))
      (is (re-find #"\"duration-ms\":\d+\.\d{3}," text))
      (is (re-matches #"[0-9a-z]{10}-[0-9a-z]+" (get m "request-id"))))))

(deftest chosen-fields
  (testing ":json with the fields asked for, request headers among them"
    (ts/with-server [s hello {:access-log {:format :json :fields [:method :status "X-Forwarded-For" "x-absent"]}}]
      (let [[line] (access-lines 1 #(ts/request (ts/url s "/") {:headers {"X-Forwarded-For" "10.1.2.3"}}))]
        (is (= "{\"method\":\"GET\",\"status\":200,\"x-forwarded-for\":\"10.1.2.3\",\"x-absent\":null}"
               (:message line))))))
  (testing ":combined followed by more fields, under another logger"
    (ts/with-server [s hello {:access-log {:format :combined :fields [:request-id :bytes-sent :aborted]
                                           :logger "my.access"}
                              :request-id-header "x-request-id"}]
      (let [[line] (access-lines 1 "my.access" #(ts/request (ts/url s "/") {:headers {"X-Request-Id" "r-1"}}))]
        (is (re-matches #"127\.0\.0\.1 - - \[T\] \"GET / HTTP/1\.1\" 200 5 \"-\" \"Java-http-client/[0-9.]+\" \"r-1\" 5 false"
                        (without-time (:message line))))))))

(deftest credentials-are-never-logged
  (ts/with-server [s hello {:access-log {:format :combined :fields (conj access-log/fields "x-other")}}]
    (let [lines (access-lines 2 #(do (ts/request (ts/url s "/s") {:headers {"Authorization" "Bearer SECRET-TOKEN"
                                                                             "Cookie" "session=SECRET-COOKIE"
                                                                             "X-Other" "visible"}})
                                     (ts/raw s (str "GET /t HTTP/1.1\r\nHost: x\r\nAuthorization: Basic SECRET-B\r\n"
                                                    "Proxy-Authorization: Basic SECRET-P\r\n"
                                                    "Cookie: c=SECRET-C\r\nConnection: close\r\n\r\n"))))
          text (str/join "\n" (map :message lines))]
      (is (= 2 (count lines)))
      (is (str/includes? text "\"visible\""))
      (is (not (re-find #"SECRET" text)) text))))

(deftest request-ids
  (let [echo (fn [r] {:status 200 :body (pr-str [(contains? r :onager/request-id) (:onager/request-id r)])})]
    (testing "neither option: the request map has no :onager/request-id"
      (ts/with-server [s echo {}]
        (is (= "[false nil]" (:body (ts/request (ts/url s "/")))))))
    (testing "taken from :request-id-header when sane, else made"
      (ts/with-server [s echo {:request-id-header "x-request-id"}]
        (is (= "[true \"abc-123\"]" (:body (ts/request (ts/url s "/") {:headers {"X-Request-Id" "abc-123"}}))))
        (doseq [insane ["has space" (apply str (repeat 201 "a"))]]
          (let [[present id] (read-string (:body (ts/request (ts/url s "/") {:headers {"X-Request-Id" insane}})))]
            (is present)
            (is (re-matches #"[0-9a-z]{10}-[0-9a-z]+" id) insane)))
        (let [ids (repeatedly 3 #(second (read-string (:body (ts/request (ts/url s "/"))))))]
          (is (= 3 (count (set ids))) "made ids differ"))))
    (testing "with the access log alone ids are made, and the log has the handler's"
      (ts/with-server [s echo {:access-log {:format :json :fields [:request-id]}}]
        (let [body (atom nil)
              [line] (access-lines 1 #(reset! body (:body (ts/request (ts/url s "/")
                                                                      {:headers {"X-Request-Id" "ignored"}}))))
              [present id] (read-string @body)]
          (is present)
          (is (not= "ignored" id))
          (is (= (str "{\"request-id\":\"" id "\"}") (:message line))))))))

(deftest http2-requests
  (ts/with-server [s hello {:access-log {:format :common :fields [:protocol]}}]
    (let [[line] (access-lines 1 #(shell/sh "curl" "-s" "--http2-prior-knowledge" "--max-time" "30"
                                            (ts/url s "/h2?a=b")))]
      (is (= "127.0.0.1 - - [T] \"GET /h2?a=b HTTP/2.0\" 200 5 \"HTTP/2.0\"" (without-time (:message line))))
      (is (= "onager-access-log" (:thread line)))))
  (testing "an HTTP/2 stream whose client leaves mid-response: the status sent, aborted"
    (ts/with-server [s (fn [_] {:status 200 :body (lazy-cat ["first"] (do (Thread/sleep 3000) ["late"]))})
                     {:access-log {:format :json :fields [:protocol :status :aborted]}}]
      (let [[line] (access-lines 1 #(shell/sh "curl" "-s" "--http2-prior-knowledge" "--max-time" "1"
                                              (ts/url s "/slow")))]
        (is (= "{\"protocol\":\"HTTP/2.0\",\"status\":200,\"aborted\":true}" (:message line)))))))

(deftest refused-requests
  (ts/with-server [s hello {:access-log :common :max-body 10 :max-header-count 5}]
    (let [[big many garbage] (access-lines 3 #(do (ts/raw s "POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: 11\r\n\r\n")
                                                  (ts/raw s (str "GET /h HTTP/1.1\r\nHost: x\r\n"
                                                                 (apply str (for [i (range 6)] (str "X-" i ": v\r\n")))
                                                                 "\r\n"))
                                                  (ts/raw s "NOT A\"REQUEST\r\n\r\n")))]
      (is (re-matches #"127\.0\.0\.1 - - \[T\] \"POST /up HTTP/1\.1\" 413 \d+" (without-time (:message big))))
      (is (re-matches #"127\.0\.0\.1 - - \[T\] \"GET /h HTTP/1\.1\" 431 \d+" (without-time (:message many))))
      (testing "a request line that could not be read is \"-\", as httpd shows it"
        (is (re-matches #"127\.0\.0\.1 - - \[T\] \"-\" 400 \d+" (without-time (:message garbage))))))))

(deftest aborted-responses
  (testing "a body that fails after the head went out: the status sent, noted aborted"
    (ts/with-server [s (fn [_] {:status 200 :body (lazy-cat ["part"] (throw (ex-info "body failure" {})))})
                     {:access-log {:format :json :fields [:status :bytes-sent :aborted]}}]
      (let [[line] (access-lines 1 #(ts/raw s "GET / HTTP/1.1\r\nHost: x\r\n\r\n"))]
        (is (re-matches #"\{\"status\":200,\"bytes-sent\":\d+,\"aborted\":true\}" (:message line))))))
  (testing "a client gone before its answer: status 0"
    (let [release (promise)]
      (ts/with-server [s (fn [_] @release (hello nil))
                       {:access-log {:format :json :fields [:status :bytes-sent :aborted]}}]
        (let [[line] (access-lines 1 #(with-open [socket (ts/connect s)]
                                        (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                                        (Thread/sleep 200)))]
          (deliver release true)
          (is (= "{\"status\":0,\"bytes-sent\":0,\"aborted\":true}" (:message line))))))))

(deftest other-ends
  (ts/with-server [s (fn [_] {:ring.websocket/listener {}}) {:access-log :common}]
    (testing "a WebSocket handshake: its 101, when the connection switches"
      (let [[line] (access-lines 1 #(ws/with-raw [c (ws/handshake s "/ws")]
                                      (is (str/starts-with? (:response c) "HTTP/1.1 101"))))]
        (is (= "127.0.0.1 - - [T] \"GET /ws HTTP/1.1\" 101 -" (without-time (:message line))))))
    (testing "a connection closed in the middle of a request head: what was read, status 0"
      (let [[line] (access-lines 1 #(with-open [socket (ts/connect s)]
                                      (ts/send! socket "GET /half HTTP/1.1\r\nHost: x\r\nX-A: 1")))]
        (is (= "127.0.0.1 - - [T] \"GET /half HTTP/1.1\" 0 -" (without-time (:message line))))))))

(deftest every-handler-mode
  (ts/each-combo [s hello {:access-log {:format :json :fields [:method :uri :status :bytes-sent]}}]
    (let [[line] (access-lines 1 #(ts/request (ts/url s "/m")))]
      (is (= "{\"method\":\"GET\",\"uri\":\"/m\",\"status\":200,\"bytes-sent\":5}" (:message line))))))

(deftest bad-options
  (doseq [[opts re] [[{:access-log :apache} #"Invalid option :access-log :apache: expected nil, :common"]
                     [{:access-log {:format :json :fields [:method "Authorization"]}}
                      #"Invalid option :access-log \{:format :json, :fields \[:method \"Authorization\"\]\}: .*never authorization, cookie, proxy-authorization, set-cookie"]
                     [{:access-log {:format :json :fields ["cookie"]}} #"Invalid option :access-log"]
                     [{:access-log {:format :json :fields [:nope]}} #"Invalid option :access-log"]
                     [{:access-log {:fields [:method]}} #"Invalid option :access-log"]
                     [{:access-log {:format :json :queue-size 1}} #"Invalid option :access-log"]
                     [{:access-log {:format :json :colour :red}} #"Invalid option :access-log"]
                     [{:request-id-header "Authorization"}
                      #"Invalid option :request-id-header \"Authorization\": expected nil or a header name \(a token\) other than authorization"]
                     [{:request-id-header "x id"} #"Invalid option :request-id-header \"x id\""]]]
    (let [e (is (thrown? clojure.lang.ExceptionInfo (ts/start hello opts)))]
      (is (re-find re (ex-message e)) (ex-message e))
      (is (= :invalid-option (:onager/error (ex-data e)))))))

(deftest a-full-queue-drops-and-counts
  (testing "a log that cannot keep up never holds the event loop: records over :queue-size are dropped and counted"
    (let [release (promise)
          ^Logger logger (LoggerFactory/getLogger "blocked.access")
          blocker (doto (proxy [AppenderBase] [] (append [_] @release))
                    (.setContext (.getLoggerContext logger))
                    (.start))
          n 40
          statuses (atom [])]
      (.addAppender logger blocker)
      (try
        (ts/with-server [s hello {:access-log {:format :common :logger "blocked.access" :queue-size 16}}]
          (let [records (ts/capture-logs
                         {:until #(= n (+ (count (ts/logged % :logger "blocked.access"))
                                          (reduce + (for [r (ts/logged % :logger "onager.server"
                                                                       :message #"access log records dropped")]
                                                      (parse-long (re-find #"^\d+" (:message r)))))))}
                         (fn []
                           (dotimes [_ n] (swap! statuses conj (:status (ts/request (ts/url s "/") {:timeout-ms 5000}))))
                           (deliver release true)))
                logged (count (ts/logged records :logger "blocked.access"))
                [warn :as warns] (ts/logged records :logger "onager.server" :message #"access log records dropped")
                dropped (reduce + (map #(parse-long (re-find #"^\d+" (:message %))) warns))]
            (is (= (repeat n 200) @statuses))
            (is (pos? dropped) (ts/messages records))
            (is (= n (+ logged dropped)) (ts/messages records))
            (is (= :warn (:level warn)))
            (is (re-find #"were waiting to be written \(the :access-log :queue-size\)" (:message warn)))))
        (finally
          (deliver release true)
          (.detachAppender logger blocker))))))
