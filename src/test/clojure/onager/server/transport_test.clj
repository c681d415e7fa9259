(ns onager.server.transport-test
  "The :transport option (epoll, io_uring, NIO), :reuse-port? and :unix-socket,
  on real servers: TCP on 127.0.0.1, Unix domain sockets in a temporary folder,
  curl and the JDK's socket channels as clients."
  (:require [clojure.edn :as edn]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest do-report is testing]]
            [onager.client-support :refer [free-port]]
            [onager.nginx-support :as nginx-support]
            [onager.server :as server]
            [onager.test-jvm :as jvm]
            [onager.test-support :as ts])
  (:import [io.vertx.core Vertx VertxOptions]
           [io.vertx.core.transport Transport]
           [java.io File]
           [java.net StandardProtocolFamily UnixDomainSocketAddress]
           [java.nio ByteBuffer]
           [java.nio.channels ServerSocketChannel SocketChannel]
           [java.nio.charset StandardCharsets]
           [java.nio.file Files]
           [java.nio.file.attribute FileAttribute]))

(set! *warn-on-reflection* true)

(def ^:private linux? (= "Linux" (System/getProperty "os.name")))

(defn- io-uring?
  "True when Netty's io_uring transport loads here (its jar is a test
  dependency; the kernel may still refuse io_uring)."
  []
  (boolean (some-> Transport/IO_URING .available)))

(defn- transports
  "The transports a server can run on here."
  []
  (cond-> [:nio] linux? (conj :epoll) (io-uring?) (conj :io-uring)))

(defn- echo
  "A handler answering with the request's :remote-addr, :server-port and :server-name."
  [request]
  {:status 200 :headers {"content-type" "text/plain"}
   :body (str/join " " [(:remote-addr request) (:server-port request) (:server-name request)])})

(defn- thrown
  "The ex-info `f` throws, or nil."
  [f]
  (try (f) nil (catch clojure.lang.ExceptionInfo e e)))

(defn- temp-dir
  "A new temporary folder, short enough for a socket path (sun_path is 108 bytes)."
  ^File []
  (.toFile (Files/createTempDirectory (.toPath (File. "/tmp")) "onager-uds" (make-array FileAttribute 0))))

;; ---- :transport ----

(deftest the-default-transport-is-epoll-on-linux
  (if-not linux?
    (do-report {:type :skip :message "epoll is Linux's"})
    (let [records (ts/capture-logs
                   #(ts/with-server [s echo {}]
                      (is (= :epoll (server/transport s)))
                      (is (= 200 (:status (ts/request (ts/url s "/")))))))]
      (is (seq (ts/logged records :level :info :logger "onager.server"
                          :message #"^listening on 127\.0\.0\.1:\d+ \(epoll\)$"))
          (ts/messages records)))))

(deftest each-transport-serves-requests
  (doseq [t (transports)]
    (testing t
      (let [records (ts/capture-logs
                     #(ts/with-server [s echo {:transport t}]
                        (is (= t (server/transport s)))
                        (let [r (ts/request (ts/url s "/"))]
                          (is (= 200 (:status r)))
                          (is (= (str "127.0.0.1 " (server/port s) " 127.0.0.1") (:body r))))
                        (testing "a request body, and h2c"
                          (is (= 200 (:status (ts/request (ts/url s "/") {:method :post :body (apply str (repeat 100000 "x"))}))))
                          (let [{:keys [exit out]} (shell/sh "curl" "-s" "--http2-prior-knowledge" "-o" "/dev/null"
                                                             "-w" "%{http_version} %{http_code}" (ts/url s "/"))]
                            (is (= [0 "2 200"] [exit out]))))))]
        (is (seq (ts/logged records :level :info :message (re-pattern (str "\\(" (name t) "\\)$"))))
            (ts/messages records))))))

(deftest io-uring-runs-or-says-why-not
  (if (io-uring?)
    (ts/with-server [s echo {:transport :io-uring}]
      (is (= :io-uring (server/transport s)))
      (is (= 200 (:status (ts/request (ts/url s "/"))))))
    (let [e (thrown #(ts/start echo {:transport :io-uring}))]
      (is (= :transport-unavailable (:onager/error (ex-data e))))
      (is (re-find #"netty-transport-native-io_uring" (ex-message e))))))

(deftest a-transport-that-cannot-load-fails-start-saying-why
  ;; A JVM where Netty's native transports are switched off, as where they cannot load.
  (let [{:keys [exit out]} (jvm/run 120000 ["-Dio.netty.transport.noNative=true"] 'onager.transport-app
                                    "epoll" "io-uring" "auto" "nio")
        ;; Its one EDN line, among what its logging printed.
        outcomes (edn/read-string (last (filter #(str/starts-with? % "{") (str/split-lines out))))]
    (is (zero? exit) out)
    (testing ":epoll"
      (let [{:keys [message data]} (:epoll outcomes)]
        (is (= {:onager/error :transport-unavailable :key :transport :value :epoll
                :artifact "io.netty/netty-transport-native-epoll"}
               (dissoc data :cause)))
        (is (re-find #"noNative" (:cause data)) "Netty's unavailability cause")
        (is (str/starts-with? message "Option :transport :epoll cannot be used here: "))
        (is (re-find #"io\.netty/netty-transport-native-epoll 4\.2\.\d+\.Final" message) "the artifact, at Netty's version")))
    (testing ":io-uring"
      (let [{:keys [message data]} (:io-uring outcomes)]
        (is (= :transport-unavailable (:onager/error data)))
        (is (= :io-uring (:value data)))
        (is (re-find #"io\.netty/netty-transport-native-io_uring 4\.2\.\d+\.Final with the platform's classifier"
                     message))))
    (testing ":auto falls back to NIO, and :nio runs"
      (is (= {:transport :nio :body "ok"} (:auto outcomes)))
      (is (= {:transport :nio :body "ok"} (:nio outcomes))))))

(deftest a-shared-vertx-keeps-its-transport
  (let [vertx (-> (Vertx/builder) (.with (VertxOptions.)) (.withTransport Transport/NIO) (.build))]
    (try
      (ts/with-server [s echo {:vertx vertx}]
        (is (= :nio (server/transport s)))
        (is (= 200 (:status (ts/request (ts/url s "/"))))))
      (ts/with-server [s echo {:vertx vertx :transport :nio}]
        (is (= :nio (server/transport s))))
      (when linux?
        (let [e (thrown #(ts/start echo {:vertx vertx :transport :epoll}))]
          (is (= {:onager/error :transport-conflict :key :transport :value :epoll :vertx :nio} (ex-data e)))
          (is (re-find #"conflicts with :vertx, which runs on nio" (ex-message e)))))
      (finally (.close vertx)))))

(deftest transport-option-is-validated
  (let [e (thrown #(ts/start echo {:transport :kqueue2}))]
    (is (= {:onager/error :invalid-option :key :transport :value :kqueue2
            :allowed ":auto, :epoll, :io-uring or :nio"}
           (ex-data e)))))

;; ---- :reuse-port? ----

(defn- answers
  "The bodies of `n` requests to `port`, each on a connection of its own (a
  new source port, which SO_REUSEPORT hashes to one of the sockets)."
  [port n]
  (set (repeatedly n #(let [s (ts/connect port)]
                        (try (ts/send! s "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                             (last (str/split-lines (:text (ts/read-all s))))
                             (finally (.close s)))))))

(deftest reuse-port-lets-two-servers-share-a-port
  (if-not linux?
    (do-report {:type :skip :message "SO_REUSEPORT needs a native transport"})
    (let [a (ts/start (constantly {:status 200 :body "a"}) {:reuse-port? true})]
      (try
        (let [port (server/port a)]
          (testing "without the option the second server cannot listen"
            (let [e (thrown #(ts/start (constantly {:status 200 :body "b"}) {:port port}))]
              (is (= {:onager/error :cannot-listen :host "127.0.0.1" :port port} (ex-data e)))
              (is (re-find #"address already in use" (ex-message e)))))
          (let [b (ts/start (constantly {:status 200 :body "b"}) {:port port :reuse-port? true})]
            (try
              (is (= port (server/port b)))
              (testing "both answer, the kernel spreading the connections"
                (is (= #{"a" "b"} (answers port 200))))
              (testing "one stops, the other goes on (a rolling restart)"
                (server/stop a)
                (is (= #{"b"} (answers port 20))))
              (finally (server/stop b)))))
        (finally (server/stop a))))))

(deftest reuse-port-is-refused-on-nio
  (let [e (thrown #(ts/start echo {:transport :nio :reuse-port? true}))]
    (is (= {:onager/error :invalid-option :key :reuse-port? :value true :transport :nio} (ex-data e)))
    (is (re-find #":reuse-port\? true needs a native transport" (ex-message e)))))

;; ---- :unix-socket ----

(defn- curl-unix
  "curl's status and body for `path` over the Unix domain socket `socket`;
  `flags` go before the URL."
  [socket path & flags]
  (let [{:keys [exit out err]} (apply shell/sh "curl" "-s" "-S" "--unix-socket" socket
                                      (concat flags ["-w" "\n%{http_code}" (str "http://localhost" path)]))]
    (when-not (zero? (long exit)) (throw (ex-info (str "curl failed: " err) {:exit exit})))
    (let [i (str/last-index-of out "\n")]
      [(parse-long (subs out (inc i))) (subs out 0 i)])))

(defn- channel-request
  "Sends `text` over a JDK SocketChannel to the Unix domain socket `socket` and
  returns everything the server sends until it closes."
  [socket ^String text]
  (with-open [ch (SocketChannel/open StandardProtocolFamily/UNIX)]
    (.connect ch (UnixDomainSocketAddress/of ^String socket))
    (.write ch (ByteBuffer/wrap (.getBytes text StandardCharsets/ISO_8859_1)))
    (let [buf (ByteBuffer/allocate 65536)]
      (loop []
        (when (and (pos? (.read ch buf)) (.hasRemaining buf)) (recur)))
      (String. (.array buf) 0 (.position buf) StandardCharsets/ISO_8859_1))))

(deftest unix-socket-serves-on-every-transport
  (doseq [t (transports)]
    (testing t
      (let [dir (temp-dir)
            path (str dir "/app.sock")]
        (try
          (let [s (server/start echo {:unix-socket path :transport t})]
            (try
              (is (= -1 (server/port s)) "no TCP port unless :port is given")
              (is (.exists (File. path)))
              (testing "curl"
                (is (= [200 "unix: -1 localhost"] (curl-unix path "/"))))
              (testing "h2c by prior knowledge"
                (is (= [200 "unix: -1 localhost"] (curl-unix path "/" "--http2-prior-knowledge"))))
              (testing "a JDK SocketChannel, and :server-name without a Host"
                (let [text (channel-request path "GET / HTTP/1.0\r\n\r\n")]
                  (is (re-find #"^HTTP/1\.[01] 200 OK\r\n" text) text)
                  (is (str/ends-with? text (str "\r\n\r\nunix: -1 unix:" path)) text)))
              (finally (server/stop s))))
          (is (not (.exists (File. path))) "stop removes the socket file")
          (finally (.delete dir)))))))

(deftest unix-socket-beside-a-tcp-port
  (let [dir (temp-dir)
        path (str dir "/app.sock")]
    (try
      (ts/with-server [s echo {:unix-socket path}]
        (is (pos? (server/port s)) ":port given: TCP too")
        (is (= 200 (:status (ts/request (ts/url s "/")))))
        (is (= [200 "unix: -1 localhost"] (curl-unix path "/"))))
      (finally (.delete dir)))))

(deftest unix-socket-file-already-there
  (let [dir (temp-dir)
        path (str dir "/app.sock")
        address (UnixDomainSocketAddress/of ^String path)]
    (try
      (testing "a stale socket file (its process gone) is removed, and the server listens"
        ;; The JDK leaves the file of a closed socket behind, as a killed process does.
        (.close (doto (ServerSocketChannel/open StandardProtocolFamily/UNIX) (.bind address)))
        (is (.exists (File. path)))
        (let [records (ts/capture-logs
                       #(let [s (server/start echo {:unix-socket path})]
                          (try (is (= 200 (first (curl-unix path "/"))))
                               (finally (server/stop s)))))]
          (is (seq (ts/logged records :level :info :message #"removed the stale socket file")) (ts/messages records))))
      (testing "a socket another process listens on is left alone"
        (with-open [_ (doto (ServerSocketChannel/open StandardProtocolFamily/UNIX) (.bind address))]
          (let [e (thrown #(server/start echo {:unix-socket path}))]
            (is (= {:onager/error :cannot-listen :unix-socket path} (ex-data e)))
            (is (= (str "cannot listen on unix:" path ": another process listens on it") (ex-message e))))
          (is (.exists (File. path))))
        (.delete (File. path)))
      (testing "a file that is not a socket is left alone"
        (spit path "mine")
        (let [e (thrown #(server/start echo {:unix-socket path}))]
          (is (= :cannot-listen (:onager/error (ex-data e))))
          (is (re-find #"is not a socket" (ex-message e))))
        (is (= "mine" (slurp path)))
        (.delete (File. path)))
      (testing "a folder that does not exist"
        (let [e (thrown #(server/start echo {:unix-socket (str dir "/none/app.sock")}))]
          (is (= :cannot-listen (:onager/error (ex-data e))))
          (is (str/starts-with? (ex-message e) (str "cannot listen on unix:" dir "/none/app.sock: ")))))
      (finally (.delete (File. path)) (.delete dir)))))

(defn- nginx-config
  "nginx in front of the Unix domain socket `socket`, as doc/deployment.md
  shows it: an upstream with kept-alive connections, on 127.0.0.1:`port`."
  [^File dir port socket]
  (str (nginx-support/main-directives dir)
       "events { worker_connections 256; }\n"
       "http {\n" (nginx-support/http-directives dir "  ")
       "  upstream app { server unix:" socket "; keepalive 8; }\n"
       "  server {\n    listen 127.0.0.1:" port ";\n"
       "    location / {\n      proxy_pass http://app;\n      proxy_http_version 1.1;\n"
       "      proxy_set_header Connection \"\";\n      proxy_set_header Host $host;\n    }\n"
       "    location /direct/ { proxy_pass http://unix:" socket ":/; proxy_set_header Host $host; }\n"
       "  }\n}\n"))

(deftest nginx-in-front-over-a-unix-socket
  (let [dir (temp-dir)
        path (str dir "/app.sock")
        port (free-port)
        s (server/start echo {:unix-socket path})]
    (try
      (let [nginx (nginx-support/start dir (nginx-config dir port path) [port])]
        (try
          (testing "kept-alive upstream connections"
            (is (= (repeat 20 [200 "unix: -1 127.0.0.1"])
                   (repeatedly 20 #(let [r (ts/request (str "http://127.0.0.1:" port "/"))] [(:status r) (:body r)])))))
          (testing "proxy_pass http://unix:PATH:/"
            (is (= [200 "unix: -1 127.0.0.1"]
                   ((juxt :status :body) (ts/request (str "http://127.0.0.1:" port "/direct/x"))))))
          (finally (nginx-support/stop nginx))))
      (finally
        (server/stop s)
        (run! #(.delete ^File %) (reverse (file-seq dir)))))))

(deftest unix-socket-option-is-validated
  (is (= :invalid-option (:onager/error (ex-data (thrown #(server/start echo {:unix-socket ""})))))))
