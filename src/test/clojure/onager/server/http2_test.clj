(ns onager.server.http2-test
  "HTTP/2 over clear text (h2c by prior knowledge), with real clients: curl
  --http2-prior-knowledge, nghttp and h2load. The Ring contract per stream in
  every handler mode and arity, every body type, flow control as the
  back-pressure of uploads, :max-body, many streams on one connection, the
  graceful stop, and h2c off."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.protocols :as protocols]
            [onager.server :as server]
            [onager.test-support :as ts]
            [onager.tls :as tls])
  (:import [java.io ByteArrayInputStream File InputStream OutputStream]
           [java.nio.charset StandardCharsets]
           [java.util.concurrent TimeUnit]
           [java.util.concurrent.atomic AtomicLong]))

(defn- curl
  "Runs curl over h2c by prior knowledge against `url` with extra `args`;
  returns {:status :version :body :exit}."
  [url & args]
  (let [{:keys [out exit err]} (apply shell/sh "curl" "-s" "--http2-prior-knowledge" "--max-time" "30"
                                      "-w" "\n%{http_code} %{http_version}" (concat args [url]))
        i (str/last-index-of out "\n")
        [status version] (str/split (subs out (inc i)) #" ")]
    {:status (parse-long status) :version version :body (subs out 0 i) :exit exit :err err}))

(defn- nghttp
  "Runs nghttp (h2c by prior knowledge: -n drops the bodies unless asked) with `args`."
  [& args]
  (apply shell/sh "nghttp" args))

(defn- request-keys [r]
  {:status 200
   :body (pr-str (-> (select-keys r [:protocol :server-name :server-port :scheme :request-method :uri :query-string
                              :remote-addr :content-length :content-type])
              (assoc :headers (dissoc (:headers r) "user-agent" "accept")
                     :body (slurp (:body r)))))})

(deftest request-map
  (ts/each-combo [s request-keys]
    (let [r (curl (ts/url s "/a/b?x=1") "-H" "Host: example.org:9" "-H" "Cookie: a=1" "-H" "Cookie: b=2"
                  "-H" "Content-Type: text/plain" "--data-binary" "hello")
          m (edn/read-string (:body r))]
      (is (= [200 "2"] [(:status r) (:version r)]) (:err r))
      (is (= {:protocol "HTTP/2.0" :server-name "example.org" :server-port (server/port s) :scheme :http
              :request-method :post :uri "/a/b" :query-string "x=1" :remote-addr "127.0.0.1"
              :content-length 5 :content-type "text/plain" :body "hello"}
             (dissoc m :headers)))
      (testing ":authority is the Host the request map shows; cookie crumbs are joined with \"; \""
        (is (= {"host" "example.org:9" "cookie" "a=1; b=2" "content-type" "text/plain" "content-length" "5"}
               (:headers m)))))))

(deftest cookie-crumbs
  (testing "RFC 9113 §8.2.3: cookie fields sent apart reach the handler as one"
    (ts/with-server [s (fn [r] {:status 200 :body (get-in r [:headers "cookie"])}) {}]
      (let [{:keys [out]} (nghttp "-d" "/dev/null" "-H" "cookie: a=1" "-H" "cookie: b=2" "-H" "cookie: c=3"
                                  (ts/url s "/"))]
        (is (= "a=1; b=2; c=3" out))))))

(defrecord Later [parts]
  protocols/ResponseBody
  (write-body-to-stream [_ _ out]
    (with-open [^OutputStream out out]
      (doseq [^String p parts]
        (.write out (.getBytes p StandardCharsets/UTF_8))
        (.flush out)))))

(defn- temp-file ^File [^String content]
  (doto (File/createTempFile "onager-h2" ".txt") (.deleteOnExit) (spit content)))

(deftest body-types
  (let [big (apply str (repeat 50000 "0123456789"))
        file (temp-file big)
        empty-file (temp-file "")
        bodies {"/string" ["hello" "hello"]
                "/bytes" [(.getBytes "bytes") "bytes"]
                "/nil" [nil ""]
                "/seq" [(list "a" "b" "c") "abc"]
                "/stream" [#(ByteArrayInputStream. (.getBytes big)) big]
                "/file" [file big]
                "/empty-file" [empty-file ""]
                "/streamed" [(->Later ["one " "two " "three"]) "one two three"]}]
    (ts/each-combo [s (fn [r] (let [[b] (bodies (:uri r))] {:status 200 :body (if (fn? b) (b) b)}))]
      (doseq [[path [_ expected]] bodies]
        (testing path
          (let [r (curl (ts/url s path))]
            (is (= [200 "2" expected] [(:status r) (:version r) (:body r)]))))))))

(deftest head-and-statuses
  (ts/with-server [s (fn [r] (if (= "/204" (:uri r)) {:status 204} {:status 200 :body "text"})) {}]
    (let [r (curl (ts/url s "/x") "-I")]
      (is (= 200 (:status r)))
      (is (re-find #"(?i)content-length: 4" (:body r)))
      (is (not (re-find #"(?i)connection|transfer-encoding" (:body r)))
          "no connection-specific field goes out (RFC 9113 §8.2.2)"))
    (is (= 204 (:status (curl (ts/url s "/204")))))))

(defn- nghttp-status
  "POSTs the file `f` with nghttp (and its `args`) to `url`: the response's status."
  [url f & args]
  (let [{:keys [out err]} (apply nghttp "-v" "-n" "-d" (str f) (concat args [url]))]
    (or (some->> (re-find #":status: (\d+)" out) second parse-long)
        [:no-status err])))

(deftest max-body
  (testing "a body over :max-body gets 413, declared or not"
    ;; nghttp, not curl: the 413 can go out while the body is still coming, and is then followed
    ;; by RST_STREAM NO_ERROR (RFC 9113 §8.1), which curl 7.88 at times takes for a failure.
    (ts/each-combo [s (fn [r] {:status 200 :body (str (count (slurp (:body r))))}) {:max-body 1000}]
      (let [f (temp-file (apply str (repeat 5000 "x")))]
        (is (= 413 (nghttp-status (ts/url s "/") f)))
        (is (= 413 (nghttp-status (ts/url s "/") f "--no-content-length")))
        (is (= "999" (:body (curl (ts/url s "/") "--data-binary" (apply str (repeat 999 "y"))))))))))

(deftest slow-reader-holds-the-window
  (testing "a handler that stops reading a large upload holds back the client, not the heap"
    (let [size (* 64 1024 1024)
          read-first (* 1024 1024)
          go-on (promise)
          produced (AtomicLong.)
          handler (fn [r]
                    (let [^InputStream in (:body r)
                          buf (byte-array 65536)]
                      (loop [n 0 waited false]
                        (cond
                          (and (>= n read-first) (not waited)) (do @go-on (recur n true))
                          :else (let [k (.read in buf)]
                                  (if (neg? k)
                                    {:status 200 :body (str n)}
                                    (recur (+ n k) waited)))))))]
      (ts/with-server [s handler {:max-body (* 2 size)}]
        (let [p (-> (ProcessBuilder. ^java.util.List ["curl" "-s" "--http2-prior-knowledge" "-T" "-"
                                                      (ts/url s "/")])
                    (.redirectErrorStream true)
                    (.start))
              writer (future
                       (with-open [out (.getOutputStream p)]
                         (let [chunk (byte-array 65536 (byte 7))]
                           (while (< (.get produced) size)
                             (.write out chunk)
                             (.addAndGet produced (alength chunk))))))]
          (Thread/sleep 1500)
          ;; curl -T - streams stdin: what it has taken is what it sent, or holds in a buffer of its own.
          (let [ahead (- (.get produced) read-first)]
            (is (< ahead (* 4 1024 1024))
                (str "the client got " ahead " bytes ahead of the reader")))
          (deliver go-on true)
          @writer
          (is (.waitFor p 60 TimeUnit/SECONDS))
          (is (= (str size) (slurp (.getInputStream p)))))))))

(deftest many-streams-on-one-connection
  (testing "h2load: a thousand requests over one connection, a hundred at a time"
    (ts/each-combo [s (fn [_] {:status 200 :body "ok"})]
      (let [{:keys [out]} (shell/sh "h2load" "-n" "1000" "-c" "1" "-m" "100" (ts/url s "/"))]
        (is (re-find #"1000 succeeded, 0 failed, 0 errored" out) out)))))

(deftest concurrency-limit
  (testing "streams beyond :http2-max-concurrent-streams are refused with REFUSED_STREAM, the others served"
    (ts/with-server [s (fn [_] (Thread/sleep 300) {:status 200 :body "ok"})
                     {:http2-max-concurrent-streams 2}]
      (let [{:keys [out]} (nghttp "-nv" "-m" "4" (ts/url s "/"))]
        (is (re-find #"SETTINGS_MAX_CONCURRENT_STREAMS\(0x03\):2" out))
        ;; nghttp sends its four before it reads the server's SETTINGS.
        (is (= 2 (count (re-seq #":status: 200" out))) out)
        (is (= 2 (count (re-seq #"recv RST_STREAM frame.*\n.*error_code=REFUSED_STREAM" out))) out)))))

(deftest graceful-stop
  (testing "stop sends GOAWAY; the streams open then finish"
    (let [started (promise)
          s (ts/start (fn [_] (deliver started true) (Thread/sleep 1000) {:status 200 :body "done"})
                      {:shutdown-timeout-ms 10000})
          client (future (nghttp "-v" "-m" "3" (ts/url s "/")))]
      (is (deref started 5000 false))
      (Thread/sleep 100)
      (server/stop s)
      (let [{:keys [out exit]} @client]
        (is (zero? exit) out)
        (is (re-find #"recv GOAWAY frame.*\n.*error_code=NO_ERROR" out))
        (is (= 3 (count (re-seq #":status: 200" out))))))))

(deftest idle-connection-closes
  (testing "a connection without streams for :idle-timeout-ms gets GOAWAY and closes"
    (ts/with-server [s (fn [_] {:status 200 :body "ok"}) {:idle-timeout-ms 300}]
      (with-open [socket (ts/connect s)]
        (.write (.getOutputStream socket) (.getBytes "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\000\000\000\004\000\000\000\000\000"
                                                     StandardCharsets/ISO_8859_1))
        (let [{:keys [closed? ms]} (ts/read-all socket)]
          (is closed?)
          (is (< ms 5000)))))))

(deftest h2c-off
  (testing "with :h2c? false the preface is no HTTP/1.1 request: no HTTP/2 is spoken"
    (ts/with-server [s (fn [_] {:status 200 :body "ok"}) {:h2c? false}]
      (is (not= 200 (:status (curl (ts/url s "/")))))
      (is (= "ok" (:body (ts/request (ts/url s "/"))))))))

(deftest http1-still-served
  (testing "with h2c on, HTTP/1.1 clients are served as before"
    (ts/with-server [s (fn [_] {:status 200 :body "ok"}) {}]
      (is (= "ok" (:body (ts/request (ts/url s "/")))))
      (is (= "ok" (:body (ts/request (ts/url s "/") {:method :post :body "P"})))
          "a request whose first bytes are those of the preface, up to where they differ")
      (is (= [200 "1.1"] ((juxt :status :version)
                          (let [{:keys [out]} (shell/sh "curl" "-s" "-w" "\n%{http_code} %{http_version}"
                                                        (ts/url s "/"))]
                            (zipmap [:status :version]
                                    (let [[c v] (str/split (last (str/split-lines out)) #" ")]
                                      [(parse-long c) v])))))))))

(deftest h2c-upgrade
  (testing "with :h2c-upgrade? true, Upgrade: h2c gets 101 and the request is answered on stream 1 in HTTP/2"
    (ts/with-server [s (fn [r] {:status 200 :body (str (:protocol r) " " (:uri r))}) {:h2c-upgrade? true}]
      (let [{:keys [out]} (nghttp "-uv" (ts/url s "/up"))]
        (is (re-find #"HTTP/1.1 101 Switching Protocols" out))
        (is (re-find #"recv \(stream_id=1\) :status: 200" out))
        (is (str/includes? out "HTTP/2.0 /up")))))
  (testing "by default Upgrade: h2c is ignored: the request is answered in HTTP/1.1"
    (ts/with-server [s (fn [r] {:status 200 :body (:protocol r)}) {}]
      (let [{:keys [out]} (shell/sh "curl" "-s" "--http2" "-w" " %{http_version}" (ts/url s "/"))]
        (is (= "HTTP/1.1 1.1" out))))))

(deftest h2-over-tls
  (testing "ALPN h2 on the TLS port: the same handler, :scheme :https; HTTP/1.1 for clients that ask for it"
    (ts/with-server [s (fn [r] {:status 200 :body (str (:protocol r) " " (name (:scheme r)))})
                     (merge {:port nil :ssl-port 0} (tls/self-signed))]
      (let [url (str "https://127.0.0.1:" (server/ssl-port s) "/")
            h2 (shell/sh "curl" "-sk" "--http2" "-w" " %{http_version}" url)
            h1 (shell/sh "curl" "-sk" "--http1.1" "-w" " %{http_version}" url)]
        (is (= "HTTP/2.0 https 2" (:out h2)))
        (is (= "HTTP/1.1 https 1.1" (:out h1)))))))
