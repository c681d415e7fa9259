(ns onager.server.websocket-test
  "WebSockets the Ring 1.11 way, on the wire: the JDK's WebSocket client for
  what a browser does, raw frames for what only an attacker would send."
  (:require [clojure.java.shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.server :as server]
            [onager.test-support :as ts]
            [onager.websocket :as ws]
            [onager.ws-support :as wss])
  (:import [java.nio ByteBuffer]
           [java.nio.charset StandardCharsets]
           [java.util.concurrent LinkedBlockingQueue TimeUnit]
           [java.util.concurrent.atomic AtomicInteger]))

(set! *warn-on-reflection* true)

(defn- recorder
  "A listener that echoes every message and records every call in the queue
  `calls`, as [:open] [:message m] [:close code reason] [:error class]."
  [^LinkedBlockingQueue calls]
  {:on-open (fn [_] (.put calls [:open]))
   :on-message (fn [socket m]
                 (.put calls [:message (if (string? m) m (vec (.array ^ByteBuffer m)))])
                 (ws/send socket m))
   :on-error (fn [_ e] (.put calls [:error (class e)]))
   :on-close (fn [_ code reason] (.put calls [:close code reason]))})

(defn- drain
  "What `calls` holds once `until` is in it (or 5 s have passed), in order."
  [^LinkedBlockingQueue calls until]
  (loop [seen []]
    (let [c (.poll calls 5 TimeUnit/SECONDS)]
      (cond (nil? c) seen
            (= until (first c)) (conj seen c)
            :else (recur (conj seen c))))))

(defn- ws-handler
  "A handler that answers WebSocket requests with `listener` and others with 400."
  [listener]
  (fn [request]
    (if (ws/websocket-request? request)
      {:ring.websocket/listener listener}
      {:status 400 :body "WebSocket requests only"})))

(deftest echo-in-every-handler-mode
  (doseq [combo ts/combos]
    (testing (ts/combo-name combo)
      (let [calls (LinkedBlockingQueue.)]
        (ts/with-server [s (ts/as-handler (ws-handler (recorder calls)) combo)
                         (merge {:vertx @ts/shared-vertx} combo)]
          (let [c (wss/connect (wss/ws-url s "/"))]
            (wss/send-text! c "hello")
            (is (= [:text "hello"] (wss/next-event c)))
            (wss/send-binary! c (byte-array [1 2 3]))
            (let [[kind data] (wss/next-event c)]
              (is (= :binary kind))
              (is (= [1 2 3] (vec data))))
            (wss/close! c 1000 "bye")
            (is (= [:close 1000 ""] (wss/next-event c)) "the server echoes the close code")
            (testing "the listener hears open, each message, and close once, in order"
              (is (= [[:open] [:message "hello"] [:message [1 2 3]] [:close 1000 "bye"]] (drain calls :close)))
              (is (nil? (.poll calls 300 TimeUnit/MILLISECONDS)) "on-close comes once"))))))))

(deftest handshakes-that-are-refused
  (ts/with-server [s (fn [_] {:ring.websocket/listener {}}) {:ws-allowed-origins ["https://good.example"]}]
    (testing "a request that is no WebSocket handshake gets 400"
      (is (= 400 (:status (ts/request (ts/url s "/"))))))
    (testing "another protocol version gets 426 and the version the server speaks (RFC 6455 §4.4)"
      (let [{:keys [response]} (wss/handshake s "/" {"Sec-WebSocket-Version" "8"})]
        (is (str/starts-with? response "HTTP/1.1 426"))
        (is (re-find #"(?i)sec-websocket-version: 13" response))))
    (testing "an origin not in :ws-allowed-origins gets 403"
      (is (str/starts-with? (:response (wss/handshake s "/" {"Origin" "https://evil.example"})) "HTTP/1.1 403"))
      (is (str/starts-with? (:response (wss/handshake s "/" {"Origin" "https://good.example"})) "HTTP/1.1 101")))))

(deftest the-handshake-answer
  (ts/with-server [s (fn [_] {:ring.websocket/listener {}
                              :ring.websocket/protocol "chat"
                              :headers {"X-Seen" "yes"}}) {}]
    (let [{:keys [response]} (wss/handshake s "/" {"Sec-WebSocket-Protocol" "superchat, chat"
                                                   "Sec-WebSocket-Key" "dGhlIHNhbXBsZSBub25jZQ=="})]
      (is (str/starts-with? response "HTTP/1.1 101 Switching Protocols"))
      (testing "the accept key for the key the client sent: RFC 6455 §1.3's example"
        (is (re-find #"(?i)sec-websocket-accept: s3pPLMBiTxaQ9kYGzzhZRbK\+xOo=" response) response))
      (is (re-find #"(?i)sec-websocket-protocol: chat" response))
      (is (re-find #"(?i)x-seen: yes" response) "the response's headers go out with the 101")
      (is (not (re-find #"(?i)content-length" response)) "a 1xx has no Content-Length (RFC 9110 §8.6)"))
    (testing "the JDK client gets the subprotocol"
      (let [c (wss/connect (wss/ws-url s "/") {:protocols ["chat"]})]
        (is (= "chat" (.getSubprotocol ^java.net.http.WebSocket (:socket c))))))
    (testing "a subprotocol the client did not offer is the handler's error: 500, logged"
      (let [logs (ts/capture-logs {:until #(seq (ts/logged % :message #"not a protocol the client offered"))}
                                  (fn [] (is (str/starts-with? (:response (wss/handshake s "/" {})) "HTTP/1.1 500"))))]
        (is (seq (ts/logged logs :level :error :message #"handler for GET / failed")) (ts/messages logs))))))

(deftest pings-and-pongs
  (testing "without :on-ping each ping gets its pong, with the ping's data"
    (ts/with-server [s (ws-handler {}) {}]
      (let [conn (wss/handshake s "/")]
        (wss/send-frame! conn (wss/frame :ping "are you there"))
        (let [f (wss/read-frame conn)]
          (is (= 10 (:opcode f)))
          (is (= "are you there" (String. ^bytes (:payload f) StandardCharsets/UTF_8)))))))
  (testing "with :on-ping the listener answers"
    (let [pings (LinkedBlockingQueue.)]
      (ts/with-server [s (ws-handler {:on-ping (fn [socket data] (.put pings (.remaining ^ByteBuffer data))
                                                 (ws/pong socket (.getBytes "mine")))}) {}]
        (let [conn (wss/handshake s "/")]
          (wss/send-frame! conn (wss/frame :ping "abc"))
          (is (= 3 (.poll pings 5 TimeUnit/SECONDS)))
          (is (= "mine" (String. ^bytes (:payload (wss/read-frame conn)) StandardCharsets/UTF_8))))))))

(deftest messages-arrive-in-order-one-at-a-time
  (doseq [mode [:virtual :worker :event-loop]]
    (testing (name mode)
      (let [inside (AtomicInteger.)
            overlap (AtomicInteger.)
            seen (LinkedBlockingQueue.)]
        (ts/with-server [s (ws-handler {:on-message (fn [_ m]
                                                      (when (> (.incrementAndGet inside) 1) (.incrementAndGet overlap))
                                                      (when (not= mode :event-loop) (Thread/sleep 1))
                                                      (.put seen m)
                                                      (.decrementAndGet inside))})
                         {:handler-mode mode :vertx @ts/shared-vertx}]
          (let [c (wss/connect (wss/ws-url s "/"))]
            (dotimes [i 300] (wss/send-text! c (str i)))
            (is (= (map str (range 300)) (repeatedly 300 #(.poll seen 5 TimeUnit/SECONDS))))
            (is (zero? (.get overlap)))))))))

(deftest fragments-make-one-message
  (let [calls (LinkedBlockingQueue.)]
    (ts/with-server [s (ws-handler (recorder calls)) {}]
      (let [conn (wss/handshake s "/")]
        (wss/send-frame! conn (wss/frame :text "Hel" :fin? false))
        (wss/send-frame! conn (wss/frame :ping "in between"))
        (wss/send-frame! conn (wss/frame :continuation "lo, " :fin? false))
        (wss/send-frame! conn (wss/frame :continuation "world" :fin? true))
        (is (= 10 (:opcode (wss/read-frame conn))) "a control frame may come between fragments (§5.4)")
        (let [f (wss/read-frame conn)]
          (is (= 1 (:opcode f)))
          (is (= "Hello, world" (String. ^bytes (:payload f) StandardCharsets/UTF_8))))
        (is (= [[:open] [:message "Hello, world"]] (take 2 (drain calls :message))))))))

(defn- violation
  "Sends `frames` after the handshake to a server with `opts`: the close code
  the server sent, and the listener's calls."
  [opts frames]
  (let [calls (LinkedBlockingQueue.)]
    (ts/with-server [s (ws-handler (recorder calls)) opts]
      (let [conn (wss/handshake s "/")]
        (doseq [f frames] (wss/send-frame! conn f))
        (let [code (wss/close-code conn)]
          {:code code :calls (drain calls :close)})))))

(deftest protocol-violations-close-with-the-right-code
  (let [logs (ts/capture-logs
              {}
              (fn []
                (testing "a frame over :ws-max-frame-size: 1009"
                  (let [{:keys [code calls]} (violation {:ws-max-frame-size 1000}
                                                        [(wss/frame :binary (byte-array 1001))])]
                    (is (= 1009 code))
                    (is (some #(= :error (first %)) calls))
                    (is (= :close (first (last calls))))))
                (testing "a message over :ws-max-message-size in small fragments: 1009"
                  (is (= 1009 (:code (violation {:ws-max-message-size 1000}
                                                (concat [(wss/frame :binary (byte-array 600) :fin? false)]
                                                        [(wss/frame :continuation (byte-array 600))]))))))
                (testing "text that is not UTF-8: 1007"
                  (is (= 1007 (:code (violation {} [(wss/frame :text (byte-array [(unchecked-byte 0xc3) 0x28]))])))))
                (testing "an unmasked frame from a client: 1002"
                  (is (= 1002 (:code (violation {} [(wss/frame :text "x" :mask? false)])))))
                (testing "a fragmented ping: 1002"
                  (is (= 1002 (:code (violation {} [(wss/frame :ping "x" :fin? false)])))))
                (testing "a continuation with no message begun: 1002"
                  (is (= 1002 (:code (violation {} [(wss/frame :continuation "x")])))))
                (testing "reserved bits without an extension: 1002"
                  (is (= 1002 (:code (violation {} [(wss/frame :text "x" :rsv 4)])))))
                (testing "a reserved opcode: 1002"
                  (is (= 1002 (:code (violation {} [(wss/frame 3 "x")])))))))]
    (testing "each is the client's fault: logged at debug, never louder"
      (is (empty? (ts/loud logs)) (ts/messages logs)))))

(deftest the-idle-timeout-closes-with-1001
  (let [calls (LinkedBlockingQueue.)]
    (ts/with-server [s (ws-handler (recorder calls)) {:ws-idle-timeout-ms 300}]
      (let [conn (wss/handshake s "/")]
        (is (= 1001 (wss/close-code conn)))
        (wss/send-frame! conn (wss/frame :close (wss/close-payload 1001 "")))
        (is (= [:close 1001 "idle"] (last (drain calls :close))))))))

(deftest pings-keep-a-live-client
  (ts/with-server [s (ws-handler {}) {:ws-idle-timeout-ms 600 :ws-ping-interval-ms 100}]
    (let [conn (wss/handshake s "/")
          got (loop [n 0 deadline (+ (System/currentTimeMillis) 1500)]
                (if (> (System/currentTimeMillis) deadline)
                  n
                  (let [f (wss/read-frame conn)]
                    (if (= 9 (:opcode f))
                      (do (wss/send-frame! conn (wss/frame :pong (:payload f))) (recur (inc n) deadline))
                      (recur n deadline)))))]
      (is (>= got 3) "pings came while the client answered"))))

(deftest websocket-request?
  (is (ws/websocket-request? {:headers {"upgrade" "WebSocket" "connection" "keep-alive, Upgrade"}}))
  (is (not (ws/websocket-request? {:headers {"upgrade" "h2c" "connection" "Upgrade"}})))
  (is (not (ws/websocket-request? {:headers {"upgrade" "websocket"}}))))

(deftest a-client-that-stops-reading-is-cut-off
  (let [closed (promise)
        failures (AtomicInteger.)]
    (ts/with-server [s (ws-handler {:on-open (fn [socket]
                                              (let [big (ByteBuffer/wrap (byte-array 65536))]
                                                (dotimes [_ 400]
                                                  (ws/send-async socket big (fn []) (fn [_] (.incrementAndGet failures))))))
                                    :on-close (fn [_ code _] (deliver closed code))})
                     {:ws-write-timeout-ms 500}]
      (let [conn (wss/handshake s "/")]
        (testing "the server gives up on it, and the listener hears the end"
          (is (= 1006 (deref closed 10000 :timeout))))
        (is (pos? (.get failures)) "the sends it could not deliver failed")
        (.close ^java.net.Socket (:socket conn))))))

(deftest a-blocking-send-waits-for-the-client
  (let [sent (AtomicInteger.)
        done (promise)]
    (ts/with-server [s (ws-handler {:on-open (fn [socket]
                                              (try
                                                (dotimes [_ 500]
                                                  (ws/send socket (ByteBuffer/wrap (byte-array 65536)))
                                                  (.incrementAndGet sent))
                                                (deliver done :all)
                                                (catch java.io.IOException e (deliver done e))))})
                     {:ws-write-timeout-ms 0}]
      (let [conn (wss/handshake s "/")]
        (Thread/sleep 500)
        (testing "a client that reads nothing holds the sender back near the high-water mark"
          (is (< (.get sent) 500))
          (is (not (realized? done))))
        (testing "once it reads, every message arrives"
          (let [total (* 500 65536)]
            (loop [got 0]
              (when (< got total)
                (let [f (wss/read-frame conn)]
                  (when (map? f) (recur (+ got (alength ^bytes (:payload f))))))))
            (is (= :all (deref done 10000 :timeout)))))))))

(deftest stopping-the-server-closes-with-1001
  (let [calls (LinkedBlockingQueue.)
        s (ts/start (ws-handler (recorder calls)) {})
        c (wss/connect (wss/ws-url s "/"))]
    (wss/send-text! c "before")
    (is (= [:text "before"] (wss/next-event c)))
    (let [stopping (future (server/stop s))]
      ;; The JDK client answers the close frame by itself.
      (is (= [:close 1001 "server stopping"] (wss/next-event c)))
      @stopping
      (testing "stop returns once on-close has run, with the server's own code and reason"
        (is (= [:close 1001 "server stopping"]
               (last (loop [seen []] (if-let [c (.poll calls)] (recur (conj seen c)) seen)))))))))

(deftest a-listener-that-throws
  (let [calls (LinkedBlockingQueue.)
        logs (ts/capture-logs
              {:until #(seq (ts/logged % :message #"WebSocket listener"))}
              (fn []
                (ts/with-server [s (ws-handler (assoc (recorder calls)
                                                      :on-message (fn [_ _] (throw (ex-info "listener bug" {})))))
                                 {}]
                  (let [conn (wss/handshake s "/")]
                    (wss/send-frame! conn (wss/frame :text "boom"))
                    (is (= 1011 (wss/close-code conn)) "the socket closes with 1011")))))]
    (is (seq (ts/logged logs :level :error :message #"WebSocket listener")) (ts/messages logs))
    (is (some #(= [:error clojure.lang.ExceptionInfo] %) (drain calls :error)))))

(deftest a-thousand-sockets-and-abrupt-ends
  (let [opened (AtomicInteger.)
        closes (java.util.concurrent.ConcurrentHashMap.)
        n 1000]
    (ts/with-server [s (ws-handler {:on-open (fn [_] (.incrementAndGet opened))
                                    :on-message (fn [socket m] (ws/send socket m))
                                    :on-close (fn [socket _ _] (.merge closes socket 1 (reify java.util.function.BiFunction
                                                                                        (apply [_ a b] (+ (long a) (long b))))))})
                     {}]
      (let [conns (vec (for [_ (range n)] (wss/handshake s "/")))]
        (doseq [[i c] (map-indexed vector conns)] (wss/send-frame! c (wss/frame :text (str "m" i))))
        (testing "every socket gets its own message back"
          (is (= (map #(str "m" %) (range n))
                 (for [c conns] (String. ^bytes (:payload (wss/read-frame c)) StandardCharsets/UTF_8)))))
        (testing "half leave with a close frame, half just drop the connection"
          (doseq [[i c] (map-indexed vector conns)]
            (if (even? i)
              (wss/send-frame! c (wss/frame :close (wss/close-payload 1000 "")))
              (.close ^java.net.Socket (:socket c))))
          (doseq [[i c] (map-indexed vector conns)]
            (when (even? i) (wss/close-code c) (.close ^java.net.Socket (:socket c)))))
        (let [deadline (+ (System/currentTimeMillis) 10000)]
          (while (and (< (.size closes) n) (< (System/currentTimeMillis) deadline)) (Thread/sleep 20)))
        (is (= n (.get opened)))
        (testing "on-close ran once for each socket"
          (is (= n (.size closes)))
          (is (every? #(= 1 %) (vals closes))))))))

(deftest no-websockets-over-http-2
  (ts/with-server [s (fn [_] {:ring.websocket/listener {}}) {}]
    (let [{:keys [out]} (clojure.java.shell/sh "curl" "-s" "-o" "/dev/null" "-w" "%{http_code} %{http_version}"
                                               "--http2-prior-knowledge" (ts/url s "/"))]
      (is (= "400 2" out)))))
