(ns onager.client.websocket-test
  "The WebSocket client, `onager.websocket/connect`: against Onager's server
  in both listener modes and over TLS, against Python's websockets (a server
  no one here wrote, permessage-deflate included), and against raw servers
  that answer the handshake wrongly or not at all."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.client-support :refer [error-of raw-server read-head with-client write!]]
            [onager.server :as server]
            [onager.test-support :as ts]
            [onager.tls :as tls]
            [onager.websocket :as ws]
            [ring.websocket.protocols :as p])
  (:import [io.netty.handler.codec.http.websocketx CorruptedWebSocketFrameException]
           [java.io BufferedReader File InputStreamReader]
           [java.net Socket]
           [java.nio ByteBuffer]
           [java.util.concurrent CompletableFuture LinkedBlockingQueue TimeUnit]
           [onager.kernel.websocket WebSocket WebSocket$Closed]))

(set! *warn-on-reflection* true)

(defn- recorder
  "A client listener that records every call in `calls`, as [:open]
  [:message m] [:error class] [:close code reason] (binary messages as vectors)."
  [^LinkedBlockingQueue calls]
  {:on-open (fn [_] (.put calls [:open]))
   :on-message (fn [_ m] (.put calls [:message (if (string? m) m (vec (.array ^ByteBuffer m)))]))
   :on-error (fn [_ e] (.put calls [:error (class e)]))
   :on-close (fn [_ code reason] (.put calls [:close code reason]))})

(defn- next-call
  "The next call `calls` records, within 5 s (nil after)."
  [^LinkedBlockingQueue calls]
  (.poll calls 5 TimeUnit/SECONDS))

(defn- echo-handler
  "Echoes each message; closes with 4000 when sent \"close me\"; picks the
  subprotocol chat.v2 when offered; records the server's on-close in `closes`."
  [^LinkedBlockingQueue closes]
  (fn [request]
    (if (ws/websocket-request? request)
      (cond-> {:ring.websocket/listener
               {:on-message (fn [socket m] (if (= m "close me")
                                             (ws/close socket 4000 "asked")
                                             (ws/send socket m)))
                :on-close (fn [_ code reason] (.put closes [code reason]))}}
        (str/includes? (str (get-in request [:headers "sec-websocket-protocol"])) "chat.v2")
        (assoc :ring.websocket/protocol "chat.v2"))
      {:status 400 :body "WebSocket requests only"})))

(defn- ws-url [s path] (str "ws://127.0.0.1:" (server/port s) path))

(deftest echo-with-onagers-server
  (doseq [mode [:virtual :event-loop]]
    (testing (str "listener on " (name mode))
      (let [closes (LinkedBlockingQueue.)
            calls (LinkedBlockingQueue.)]
        (ts/with-server [s (echo-handler closes)]
          (with-client [c {}]
            (let [socket (ws/connect (ws-url s "/") (recorder calls) {:client c :mode mode
                                                                      :subprotocols ["chat.v1" "chat.v2"]})]
              (is (= [:open] (next-call calls)))
              (is (= "chat.v2" (ws/subprotocol socket)) "the server's pick of the subprotocols offered")
              (ws/send socket "hello")
              (is (= [:message "hello"] (next-call calls)))
              (ws/send socket (byte-array [1 2 3]))
              (is (= [:message [1 2 3]] (next-call calls)) "binary, masked by the client as the server requires")
              (let [big (apply str (repeat 100000 "é"))]
                (ws/send socket big)
                (is (= [:message big] (next-call calls)) "a message of many frames' worth"))
              (let [sent (promise)]
                (ws/send-async socket "async" #(deliver sent :ok) #(deliver sent %))
                (is (= :ok (deref sent 5000 :timeout)))
                (is (= [:message "async"] (next-call calls))))
              (ws/ping socket (byte-array [7]))
              (ws/close socket 1000 "bye")
              (is (= [:close 1000 "bye"] (next-call calls)) "on-close once the server answered")
              (is (= [1000 "bye"] (.poll closes 5 TimeUnit/SECONDS)) "the server got the client's code")
              (is (not (ws/open? socket)))
              (is (nil? (.poll calls 200 TimeUnit/MILLISECONDS)) "on-close came once, last"))))))))

(deftest the-server-closes-first
  (let [closes (LinkedBlockingQueue.)
        calls (LinkedBlockingQueue.)]
    (ts/with-server [s (echo-handler closes)]
      (with-client [c {}]
        (let [socket (ws/connect (ws-url s "/") (recorder calls) {:client c})]
          (is (= [:open] (next-call calls)))
          (ws/send socket "close me")
          (is (= [:close 4000 "asked"] (next-call calls)) "the server's code and reason")
          (is (= [4000 "asked"] (.poll closes 5 TimeUnit/SECONDS)))
          (is (thrown? java.io.IOException (ws/send socket "too late"))))))))

(deftest closing-the-client-closes-its-sockets
  (let [calls (LinkedBlockingQueue.)]
    (ts/with-server [s (echo-handler (LinkedBlockingQueue.))]
      (let [c (onager.client/client {})]
        (ws/connect (ws-url s "/") (recorder calls) {:client c})
        (is (= [:open] (next-call calls)))
        (onager.client/close c)
        (is (= [:close 1001 "client closing"] (.poll calls 0 TimeUnit/SECONDS))
            "close returns once on-close has run, the socket closed with 1001")))))

(deftest over-tls
  (let [files (tls/self-signed)
        calls (LinkedBlockingQueue.)]
    (ts/with-server [s (echo-handler (LinkedBlockingQueue.)) (merge {:port nil :ssl-port 0} files)]
      (let [url (str "wss://127.0.0.1:" (server/ssl-port s) "/")]
        (with-client [c {}]
          (is (= :tls (:onager/error (error-of #(ws/connect url (recorder calls) {:client c}))))
              "the system's trust does not know a self-signed certificate"))
        (with-client [c {:ssl-ca (:ssl-cert files)}]
          (let [socket (ws/connect url (recorder calls) {:client c})]
            (is (= [:open] (next-call calls)))
            (ws/send socket "secret")
            (is (= [:message "secret"] (next-call calls)))
            (ws/close socket)
            (is (= [:close 1000 ""] (next-call calls)))))))))

(defn- send-failure
  "The message of the exception a send of `m` on `socket` throws (nil: none)."
  [socket m]
  (try (ws/send socket m) nil (catch WebSocket$Closed e (ex-message e))))

(defn- python-server
  "Starts tests' Python websockets echo server; returns {:port :close :log},
  :log what it has logged so far."
  []
  (let [^java.util.List command [(ts/tool "python-ws") "src/test/python/ws_server.py"]
        log (File/createTempFile "onager-ws-server" ".log")
        p (.start (doto (ProcessBuilder. command) (.redirectError log)))
        port (-> (BufferedReader. (InputStreamReader. (.getInputStream p))) .readLine)]
    (.deleteOnExit log)
    (when-not port
      (throw (ex-info (str "the Python WebSocket server did not start:\n" (slurp log)) {})))
    {:port (parse-long (str/trim port))
     :log #(slurp log)
     :close (fn [] (.close (.getOutputStream p)) (.waitFor p 10 TimeUnit/SECONDS) (.destroyForcibly p))}))

(deftest pythons-websockets-server
  (let [{:keys [port close log]} (python-server)]
    (try
      (doseq [compression? [false true]]
        (testing (if compression? "with permessage-deflate" "without compression")
          (let [calls (LinkedBlockingQueue.)
                socket (ws/connect (str "ws://127.0.0.1:" port "/") (recorder calls)
                                   {:compression? compression? :subprotocols ["chat.v2"]})]
            (is (= [:open] (next-call calls)))
            (is (= "chat.v2" (ws/subprotocol socket)))
            (try
              (let [big (apply str (repeat 20000 "compressible "))]
                (dotimes [i 50] (ws/send socket (str "message " i)))
                (ws/send socket big)
                (ws/send socket (byte-array (range -128 128)))
                (is (= (concat (for [i (range 50)] [:message (str "message " i)])
                               [[:message big] [:message (vec (range -128 128))]])
                       (repeatedly 52 #(next-call calls)))
                    "every message back as sent, in order"))
              (ws/send socket "close me")
              (is (= [:close 4000 "asked"] (next-call calls)))
              (catch WebSocket$Closed e
                (is (nil? e) (str "a send failed; the listener then heard "
                                  (pr-str (map #(if (= :message (first %)) [:message '...] %) (ts/drain calls :close)))
                                  "\nand the server logged:\n" (log))))))))
      (finally (close)))))

(defn- answering
  "A raw server that reads the handshake and writes `(answer head)` (nil: nothing)."
  [answer]
  (raw-server (fn [^Socket s _]
                (let [head (read-head (.getInputStream s))]
                  (when-let [a (answer head)] (write! (.getOutputStream s) a))
                  (Thread/sleep 3000)))))

(defn- switching
  "A 101 that answers the handshake `head` rightly, with the header lines
  `extra` (each ending in CRLF) added."
  [head extra]
  (let [key (second (re-find #"(?i)sec-websocket-key: (\S+)" head))]
    (str "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Accept: " (onager.kernel.websocket.WebSocketHandshake/acceptOf key) "\r\n" extra "\r\n")))

(deftest handshake-failures
  (testing "a server that does not switch: :handshake with its status and headers"
    (ts/with-server [s (fn [_] {:status 403 :headers {"x-why" "no"} :body "go away"})]
      (let [e (error-of #(ws/connect (ws-url s "/") {}))]
        (is (= :handshake (:onager/error e)))
        (is (= 403 (:status e)))
        (is (= "no" (get-in e [:headers "x-why"])))
        (is (str/includes? (:message e) "answered 403")))))
  (testing "a 101 whose Sec-WebSocket-Accept does not answer the key"
    (let [rs (answering (fn [_] (str "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                                     "Connection: Upgrade\r\nSec-WebSocket-Accept: d3Jvbmc=\r\n\r\n")))]
      (try
        (let [e (error-of #(ws/connect (str "ws://127.0.0.1:" (:port rs) "/") {}))]
          (is (= :handshake (:onager/error e)))
          (is (= 101 (:status e)))
          (is (str/includes? (:message e) "Sec-WebSocket-Accept")))
        (finally ((:close rs))))))
  (testing "a subprotocol or an extension that was not offered"
    (doseq [[extra why] [["Sec-WebSocket-Protocol: other\r\n" "subprotocol other"]
                         ["Sec-WebSocket-Extensions: permessage-deflate\r\n" "extensions"]]]
      (let [rs (answering #(switching % extra))]
        (try
          (let [e (error-of #(ws/connect (str "ws://127.0.0.1:" (:port rs) "/") {}))]
            (is (= :handshake (:onager/error e)))
            (is (str/includes? (:message e) why)))
          (finally ((:close rs)))))))
  (testing "a server that never answers: :timeout, :handshake, promptly"
    (let [rs (answering (constantly nil))]
      (try
        (let [start (System/nanoTime)
              e (error-of #(ws/connect (str "ws://127.0.0.1:" (:port rs) "/") {} {:handshake-timeout-ms 300}))]
          (is (= [:timeout :handshake] [(:onager/error e) (:timeout e)]))
          (is (< (/ (- (System/nanoTime) start) 1e6) 2500)))
        (finally ((:close rs))))))
  (testing "nothing listening: :connect-failed"
    (let [port (with-open [ss (java.net.ServerSocket. 0)] (.getLocalPort ss))]
      (is (= :connect-failed (:onager/error (error-of #(ws/connect (str "ws://127.0.0.1:" port "/") {})))))))
  (testing "what cannot be sent throws at once, naming the key"
    (is (= [:invalid-request :url] ((juxt :onager/error :key) (error-of #(ws/connect "http://x/" {})))))
    (is (= [:invalid-request :headers]
           ((juxt :onager/error :key) (error-of #(ws/connect "ws://x/" {} {:headers {"x" "a\r\nb"}})))))
    (is (= [:invalid-request :listener] ((juxt :onager/error :key) (error-of #(ws/connect "ws://x/" 42)))))
    (is (= [:invalid-option :max-message-size]
           ((juxt :onager/error :key) (error-of #(ws/connect "ws://x/" {} {:max-message-size 1}))))))
  (testing "waiting on an event loop is refused"
    (let [r (promise)]
      (.runOnContext (.getOrCreateContext ^io.vertx.core.Vertx @ts/shared-vertx)
                     (reify io.vertx.core.Handler
                       (handle [_ _] (deliver r (try (ws/connect "ws://127.0.0.1:1/" {}) (catch Exception e e))))))
      (is (instance? IllegalStateException (deref r 5000 nil))))))

(deftest limits
  (testing "a message over :max-message-size closes the socket with 1009"
    (let [calls (LinkedBlockingQueue.)]
      (ts/with-server [s (echo-handler (LinkedBlockingQueue.))]
        (let [socket (ws/connect (ws-url s "/") (recorder calls) {:max-message-size 1000})]
          (is (= [:open] (next-call calls)))
          (ws/send socket (apply str (repeat 2000 "x")))
          (is (= [:error CorruptedWebSocketFrameException] (next-call calls)))
          (is (= [:close 1009 "message over :max-message-size"] (next-call calls))
              "the limit, named by the client's option")))))
  (testing "the async form returns a CompletableFuture of the socket"
    (ts/with-server [s (echo-handler (LinkedBlockingQueue.))]
      (let [f (ws/connect (ws-url s "/") {} {:async? true})]
        (is (instance? CompletableFuture f))
        (let [socket (.get ^CompletableFuture f 5 TimeUnit/SECONDS)]
          (is (instance? WebSocket socket))
          (ws/close socket))))))

(deftest a-client-listener-of-rings-protocols
  (let [calls (LinkedBlockingQueue.)
        listener (reify p/Listener
                   (on-open [_ socket] (p/-send socket "from ring") (.put calls [:open]))
                   (on-message [_ _ m] (.put calls [:message m]))
                   (on-pong [_ _ _])
                   (on-error [_ _ e] (.put calls [:error e]))
                   (on-close [_ _ code _] (.put calls [:close code])))]
    (ts/with-server [s (echo-handler (LinkedBlockingQueue.))]
      (let [socket (ws/connect (ws-url s "/") listener)]
        (is (= [:open] (next-call calls)))
        (is (= [:message "from ring"] (next-call calls)) "the socket satisfies Ring's Socket protocol")
        (ws/close socket)
        (is (= [:close 1000] (next-call calls)))))))

(deftest an-interrupted-connect-closes-its-socket
  (let [closes (LinkedBlockingQueue.)
        slow (fn [request]
               (Thread/sleep 500)
               {:ring.websocket/listener {:on-close (fn [_ code reason] (.put closes [code reason]))}})
        thrown (promise)]
    (ts/with-server [s slow]
      (let [t (Thread/startVirtualThread
               (fn [] (try (ws/connect (ws-url s "/") {})
                           (catch InterruptedException e (deliver thrown e)))))]
        (Thread/sleep 100)
        (.interrupt t)
        (is (instance? InterruptedException (deref thrown 5000 nil)))
        (is (= [1001 "connect interrupted"] (.poll closes 5 TimeUnit/SECONDS))
            "the socket no one holds closes once it opens")))))

(deftest a-send-after-the-end-says-how-it-ended
  (testing "the peer's close code and reason"
    (let [calls (LinkedBlockingQueue.)]
      (ts/with-server [s (echo-handler (LinkedBlockingQueue.))]
        (with-client [c {}]
          (let [socket (ws/connect (ws-url s "/") (recorder calls) {:client c})]
            (is (= [:open] (next-call calls)))
            (ws/send socket "close me")
            (is (= [:close 4000 "asked"] (next-call calls)))
            (is (= "the WebSocket is closed: the peer closed it with 4000 \"asked\""
                   (send-failure socket "late"))))))))
  (testing "a connection that ended with no close frame"
    (let [calls (LinkedBlockingQueue.)
          rs (answering #(switching % ""))]
      (try
        (with-client [c {}]
          (let [socket (ws/connect (str "ws://127.0.0.1:" (:port rs) "/") (recorder calls) {:client c})]
            (is (= [:open] (next-call calls)))
            (is (= 1006 (second (next-call calls))))
            (is (= "the WebSocket is closed: the connection ended without a closing handshake"
                   (send-failure socket "late")))))
        (finally ((:close rs)))))))
