(ns onager.client.errors-test
  "Every way a request fails, each with its :onager/error, promptly, against
  servers that misbehave on purpose; and that no failure loses a pooled
  connection."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.client :as client]
            [onager.client-support :refer [error-of free-port raw-url read-head with-client with-raw-server write!]]
            [onager.test-support :as support :refer [with-server url]])
  (:import [java.io File]
           [java.net InetAddress ServerSocket Socket]
           [java.util.concurrent.atomic AtomicInteger]))

(set! *warn-on-reflection* true)

(deftest invalid-requests-name-the-key
  (doseq [[req k] [[{} :url]
                   [{:url "ftp://127.0.0.1/"} :url]
                   [{:url "http://127.0.0.1/a b"} :url]
                   [{:url "http://127.0.0.1:99999/"} :url]
                   [{:url "http://127.0.0.1/" :method "GE T"} :method]
                   [{:url "http://127.0.0.1/" :headers {"x" "a\r\nInjected: 1"}} :headers]
                   [{:url "http://127.0.0.1/" :headers {"bad name" "v"}} :headers]
                   [{:url "http://127.0.0.1/" :body 42} :body]
                   [{:url "http://127.0.0.1/" :body "a" :form-params {:a 1}} :body]
                   [{:url "http://127.0.0.1/" :body (File. "/no/such/file")} :body]
                   [{:url "http://127.0.0.1/" :form-params {:a {:nested 1}}} :form-params]
                   [{:url "http://127.0.0.1/" :as :xml} :as]
                   [{:url "http://127.0.0.1/" :redirects :sometimes} :redirects]
                   [{:url "http://127.0.0.1/" :max-body 0} :max-body]
                   [{:url "http://127.0.0.1/" :idle-timeout-ms -1} :idle-timeout-ms]
                   [{:url "http://127.0.0.1/" :basic-auth ["only-user"]} :basic-auth]
                   [{:url "http://127.0.0.1/" :throw-exceptions? "yes"} :throw-exceptions?]]]
    (testing (pr-str req)
      (let [e (error-of #(client/request (assoc req :async? true)))]
        (is (= :invalid-request (:onager/error e)) "thrown at once, even for an async request")
        (is (= k (:key e)))
        (is (str/includes? (:message e) (str k " must be")))))))

(deftest invalid-client-options-name-the-key
  (let [e (error-of #(client/client {:max-conections 3}))]
    (is (= :unknown-option (:onager/error e)))
    (is (str/includes? (:message e) "Did you mean :max-connections?")))
  (let [e (error-of #(client/client {:redirects :always}))]
    (is (= :invalid-option (:onager/error e)))
    (is (str/includes? (:message e) ":none, :same-origin, :normal or :all")))
  (let [e (error-of #(client/client {:ssl-cert "cert.pem"}))]
    (is (= :ssl-key (:key e))))
  (let [e (error-of #(client/client {:ssl-ca "/no/such/ca.pem"}))]
    (is (= :invalid-tls (:onager/error e)))
    (is (str/includes? (:message e) ":ssl-ca /no/such/ca.pem: no such file"))))

(deftest no-connection
  (testing "nothing listens"
    (let [e (error-of #(client/get (str "http://127.0.0.1:" (free-port) "/")))]
      (is (= :connect-failed (:onager/error e)))
      (is (str/includes? (:message e) "cannot connect: connection refused"))))
  (testing "nobody accepts: the connect times out"
    ;; A backlog of one, never accepted: once it is full the SYNs go unanswered.
    (with-open [ss (ServerSocket. 0 1 (InetAddress/getByName "127.0.0.1"))]
      (let [fillers (doall (for [_ (range 3)]
                             (try (doto (Socket.) (.connect (.getLocalSocketAddress ss) 300))
                                  (catch Exception _ nil))))
            start (System/currentTimeMillis)
            e (error-of #(client/get (str "http://127.0.0.1:" (.getLocalPort ss) "/") {:connect-timeout-ms 500}))]
        (try
          (is (= :connect-timeout (:onager/error e)))
          (is (< (- (System/currentTimeMillis) start) 5000) "promptly")
          (finally (run! #(some-> ^Socket % .close) fillers)))))))

(defn- serve-once
  "A raw server's connection handler: reads one head and calls `(answer out)`."
  [answer]
  (fn [^Socket socket _]
    (when (read-head (.getInputStream socket))
      (answer (.getOutputStream socket)))))

(deftest hostile-servers
  (testing "a server that never answers: :idle-timeout-ms"
    (with-raw-server [rs (serve-once (fn [_] (Thread/sleep 10000)))]
      (let [start (System/currentTimeMillis)
            e (error-of #(client/get (raw-url rs "/") {:idle-timeout-ms 300}))]
        (is (= [:timeout :idle] [(:onager/error e) (:timeout e)]))
        (is (< (- (System/currentTimeMillis) start) 5000)))))
  (testing "a server that stalls mid-body, read as a stream: :idle-timeout-ms fails the stream"
    (with-raw-server [rs (serve-once (fn [out]
                                       (write! out "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten.\n")
                                       (Thread/sleep 10000)))]
      (let [start (System/currentTimeMillis)
            in ^java.io.InputStream (:body (client/get (raw-url rs "/") {:as :stream :idle-timeout-ms 300}))
            buf (byte-array 100)
            first-read (.read in buf)
            e (try (while (pos? (.read in buf))) nil (catch java.io.IOException e e))]
        (is (= 10 first-read))
        (is (str/includes? (str (ex-message e)) "no bytes from the server for 300 ms (:idle-timeout-ms)"))
        (is (< (- (System/currentTimeMillis) start) 5000)))))
  (testing "a server that sends a byte every 100 ms: each byte starts :idle-timeout-ms anew"
    (with-raw-server [rs (serve-once (fn [out]
                                       (write! out "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                                       (dotimes [_ 10] (write! out "1\r\nx\r\n") (Thread/sleep 100))
                                       (write! out "0\r\n\r\n")))]
      (is (= "xxxxxxxxxx" (:body (client/get (raw-url rs "/") {:idle-timeout-ms 300}))))))
  (testing "a server that dribbles: :request-timeout-ms"
    (with-raw-server [rs (serve-once (fn [out]
                                       (write! out "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                                       (dotimes [_ 100] (write! out "1\r\nx\r\n") (Thread/sleep 100))))]
      (let [e (error-of #(client/get (raw-url rs "/") {:request-timeout-ms 500}))]
        (is (= [:timeout :request] [(:onager/error e) (:timeout e)])))))
  (testing "an endless header"
    (with-raw-server [rs (serve-once (fn [out]
                                       (write! out "HTTP/1.1 200 OK\r\nX-Endless: ")
                                       (dotimes [_ 10000] (write! out (apply str (repeat 1000 "a"))))))]
      (let [e (error-of #(client/get (raw-url rs "/")))]
        (is (= :invalid-response (:onager/error e)))
        (is (str/includes? (:message e) ":max-header-size")))))
  (testing "a server that closes mid-body"
    (with-raw-server [rs (serve-once (fn [out] (write! out "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten.")))]
      (let [e (error-of #(client/get (raw-url rs "/")))]
        (is (= :connection-closed (:onager/error e))))))
  (testing "not HTTP"
    (with-raw-server [rs (serve-once (fn [out] (write! out "SSH-2.0-OpenSSH_9.2\r\n\r\n")))]
      (let [e (error-of #(client/get (raw-url rs "/")))]
        (is (contains? #{:invalid-response :connection-closed} (:onager/error e)))))))

(deftest refused-statuses
  (with-server [s (fn [_] {:status 503 :body "busy"}) {}]
    (let [e (error-of #(client/get (url s "/") {:as :stream}))]
      (is (= :status (:onager/error e)))
      (is (= 503 (:status e)))
      (is (= "busy" (get-in e [:response :body])) "a stream's body as a string")
      (is (= (url s "/") (:url e))))
    (is (= 503 (:status (client/get (url s "/") {:throw-exceptions? false}))))))

(deftest bodies-over-the-limit
  (with-server [s (fn [_] {:status 200 :body (apply str (repeat 100000 "x"))}) {}]
    (let [e (error-of #(client/get (url s "/") {:max-body 1000}))]
      (is (= :too-large (:onager/error e)))
      (is (str/includes? (:message e) ":max-body (1000 bytes)")))
    (testing "a stream reads up to the limit it was given"
      (let [in ^java.io.InputStream (:body (client/get (url s "/") {:as :stream :max-body 1000}))
            e (try (slurp in) nil (catch java.io.IOException e e))]
        (is (some? e))
        (is (str/includes? (str (.getMessage ^Exception e)) ":max-body"))))))

(deftest the-pool-has-limits
  (with-raw-server [rs (serve-once (fn [_] (Thread/sleep 3000)))]
    (with-client [c {:max-connections 1 :max-waiting 0 :idle-timeout-ms 2000}]
      (let [first-request (client/get (raw-url rs "/") {:client c :async? true})]
        (Thread/sleep 200)
        (let [e (error-of #(client/get (raw-url rs "/") {:client c}))]
          (is (= :pool-full (:onager/error e))))
        (is (= :timeout (:onager/error (error-of #(.get ^java.util.concurrent.Future first-request)))))))))

(defn- hostile-app [req]
  (case (:uri req)
    "/ok" {:status 200 :body "ok"}
    "/big" {:status 200 :body (apply str (repeat 200000 "x"))}
    "/status" {:status 500 :body "boom"}
    "/slow" (do (Thread/sleep 1500) {:status 200 :body "late"})
    "/not-json" {:status 200 :headers {"content-type" "application/json"} :body "{oops"}
    "/redirect-loop" {:status 302 :headers {"location" "/redirect-loop"} :body ""}))

(deftest no-failure-loses-a-pooled-connection
  ;; One connection per origin: a failure that kept it would leave the next request
  ;; waiting for it until :connect-timeout-ms.
  (with-server [s hostile-app {}]
    (with-client [c {:max-connections 1 :connect-timeout-ms 3000}]
      (let [ok #(:body (client/get (url s "/ok") {:client c}))]
        (doseq [[label req kind] [["too large" {:url (url s "/big") :max-body 100} :too-large]
                                  ["status" {:url (url s "/status")} :status]
                                  ["idle timeout" {:url (url s "/slow") :idle-timeout-ms 200} :timeout]
                                  ["request timeout" {:url (url s "/slow") :request-timeout-ms 200} :timeout]
                                  ["not JSON" {:url (url s "/not-json") :as :json} :body]
                                  ["redirects" {:url (url s "/redirect-loop") :max-redirects 3} :too-many-redirects]]]
          (testing label
            (is (= kind (:onager/error (error-of #(client/request (assoc req :client c))))))
            (is (= "ok" (ok)) "the pool is whole")))
        (testing "a stream closed early"
          (let [in ^java.io.InputStream (:body (client/get (url s "/big") {:client c :as :stream}))]
            (.read in)
            (.close in))
          (is (= "ok" (ok))))
        (testing "a stream read to its end"
          (is (= 200000 (count (slurp (:body (client/get (url s "/big") {:client c :as :stream}))))))
          (is (= "ok" (ok))))))))

(deftest a-stale-pooled-connection-is-retried-once
  ;; The first connection answers once, then closes as the next request arrives, as a
  ;; server does with a connection it has just timed out; later ones answer every request.
  (let [serve (fn [^Socket socket n]
                (let [in (.getInputStream socket) out (.getOutputStream socket)]
                  (loop [k 1]
                    (when (read-head in)
                      (when (or (> (long n) 1) (= k 1))
                        (write! out "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                        (recur (inc k)))))))]
    (with-raw-server [rs serve]
      (with-client [c {:max-connections 1}]
        (is (= "ok" (:body (client/get (raw-url rs "/") {:client c}))))
        (let [records (support/capture-logs #(is (= "ok" (:body (client/get (raw-url rs "/") {:client c})))))]
          (is (= 2 (.get ^AtomicInteger (:connections rs))) "retried on a new connection")
          (is (seq (support/logged records :level :debug :logger "onager.client" :message #"retrying GET")))
          (is (empty? (support/loud records))))))
    (with-raw-server [rs serve]
      (with-client [c {:max-connections 1}]
        (is (= "ok" (:body (client/get (raw-url rs "/") {:client c}))))
        (is (= :connection-closed (:onager/error (error-of #(client/post (raw-url rs "/") {:client c :body "x"}))))
            "a POST is not retried")))))

(defn- keep-alive-server
  "A raw server's handler that answers every request on its connection and,
  when the client closes it, delivers the time to the promise `closed`."
  [closed]
  (fn [^Socket socket _]
    (let [in (.getInputStream socket) out (.getOutputStream socket)]
      (loop []
        (if (read-head in)
          (do (write! out "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok") (recur))
          (deliver closed (System/currentTimeMillis)))))))

(deftest idle-pooled-connections-are-closed
  (let [closed (promise)]
    (with-raw-server [rs (keep-alive-server closed)]
      (with-client [c {:keep-alive-timeout-ms 1000}]
        (is (= "ok" (:body (client/get (raw-url rs "/") {:client c}))))
        (let [done (System/currentTimeMillis)
              at (deref closed 10000 nil)]
          (is (some? at) "the client closed the idle connection")
          (is (<= 900 (- (long at) done)) "not before the timeout")))))
  (testing "kept while it may be used"
    (let [closed (promise)]
      (with-raw-server [rs (keep-alive-server closed)]
        (with-client [c {}]
          (client/get (raw-url rs "/") {:client c})
          (is (nil? (deref closed 2500 nil)))
          (client/get (raw-url rs "/") {:client c})
          (is (= 1 (.get ^AtomicInteger (:connections rs))) "the second request went on the same connection"))))))
