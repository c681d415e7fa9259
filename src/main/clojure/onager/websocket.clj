(ns onager.websocket
  "WebSockets, the Ring 1.11 way. A handler (sync or async, in any handler
  mode, behind the router) answers a WebSocket request with a response map
  holding a listener:

    (require '[onager.websocket :as ws])

    (defn echo [request]
      (if (ws/websocket-request? request)
        {:ring.websocket/listener
         {:on-message (fn [socket message] (ws/send socket message))}}
        {:status 400 :body \"WebSocket requests only\"}))

  The listener is a map of any of
    :on-open    (fn [socket])
    :on-message (fn [socket message])  message: a String (text) or ByteBuffer (binary)
    :on-ping    (fn [socket data])     without it, each ping gets its pong
    :on-pong    (fn [socket data])
    :on-error   (fn [socket throwable])
    :on-close   (fn [socket code reason])
  or an object of Ring's `ring.websocket.protocols` Listener (and PingListener)
  when ring-core 1.11+ is on the class path. `:ring.websocket/protocol` in the
  response picks one of the subprotocols the client offered; `:headers` go out
  with the 101.

  The listener's calls for one socket come one at a time, in order, where the
  route's handler mode runs handlers (a virtual thread by default, so a
  listener may block); on-close comes once, last, and only after on-open. The
  socket functions below may be called from any thread. When ring-core 1.11+
  is on the class path, the socket also satisfies Ring's Socket and
  AsyncSocket protocols, so `ring.websocket/send` and the rest work on it.

  The server's :ws-* options bound frames, messages, idle and slow clients.

  `connect` opens a WebSocket as a client, with the same listeners and the
  same socket functions:

    (def socket (ws/connect \"wss://example.com/feed\"
                            {:on-message (fn [socket message] (println message))}))
    (ws/send socket \"hello\")
    (ws/close socket)"
  (:refer-clojure :exclude [send])
  (:require [clojure.string :as str]
            [onager.options :as option-specs])
  (:import [io.vertx.core Context]
           [java.io FileNotFoundException]
           [java.nio ByteBuffer]
           [java.util.concurrent CompletableFuture ExecutionException]
           [java.util.function Consumer]
           [onager.kernel.client OnagerClient WebSocketConnect]
           [onager.kernel.response InvalidResponseException]
           [onager.kernel.websocket WebSocket WebSocket$Callback WebSocketListener]))

(set! *warn-on-reflection* true)

(defn- tokens [v]
  (when (string? v) (set (map (comp str/lower-case str/trim) (str/split v #",")))))

(defn websocket-request?
  "True when `request` asks to become a WebSocket: an Upgrade header naming
  websocket and a Connection header naming upgrade (RFC 6455 §4.1)."
  [request]
  (let [headers (:headers request)]
    (boolean (and (contains? (tokens (get headers "upgrade")) "websocket")
                  (contains? (tokens (get headers "connection")) "upgrade")))))

(defn send
  "Sends `message` on `socket`: a String (or any CharSequence) as text, a
  ByteBuffer or byte array as binary. With two arguments it returns once the
  message is queued, waiting first (off the event loop) while more than
  :ws-high-water-mark bytes wait for the client; it throws an IOException when
  the socket is closed (onager.kernel.websocket.WebSocket$Closed, whose
  message says, once the connection has ended, who closed it with what code
  and reason, or that it ended without a closing handshake). With `succeed`
  (no arguments) and `fail` (one, the Throwable) it is `send-async`."
  ([socket message]
   (.send ^WebSocket socket message))
  ([socket message succeed fail]
   (.sendAsync ^WebSocket socket message
               (reify WebSocket$Callback
                 (succeeded [_] (succeed))
                 (failed [_ cause] (fail cause))))))

(defn send-async
  "Sends `message` (as `send`) without ever waiting; calls `succeed` with no
  arguments once it has gone out, or `fail` with the Throwable. The callbacks
  run on the event loop: they must not block."
  [socket message succeed fail]
  (send socket message succeed fail))

(defn- payload ^ByteBuffer [data]
  (cond (nil? data) nil
        (instance? ByteBuffer data) data
        (bytes? data) (ByteBuffer/wrap data)
        :else (throw (IllegalArgumentException.
                      (str "ping and pong data is a ByteBuffer or byte array, not " (class data))))))

(defn ping
  "Sends a ping on `socket`, with `data` (a ByteBuffer or byte array of at most
  125 bytes) or none; the client answers with a pong, which the listener's
  :on-pong gets."
  ([socket] (ping socket nil))
  ([socket data] (.ping ^WebSocket socket (payload data))))

(defn pong
  "Sends an unsolicited pong on `socket` (a heartbeat), with `data` (a
  ByteBuffer or byte array of at most 125 bytes) or none."
  ([socket] (pong socket nil))
  ([socket data] (.pong ^WebSocket socket (payload data))))

(defn close
  "Starts closing `socket`: 1000 (normal) by default, or `code` (1000 to 1003,
  1007 to 1011, or 3000 to 4999) and `reason` (at most 123 bytes of UTF-8). The
  connection ends when the client answers, or after five seconds; the
  listener's :on-close then runs. Closing a closed socket does nothing."
  ([socket] (close socket 1000 ""))
  ([socket code reason] (.close ^WebSocket socket (int code) reason)))

(defn open?
  "True while `socket` may send: no close frame has gone either way."
  [socket]
  (.isOpen ^WebSocket socket))

(defn subprotocol
  "The subprotocol the handshake of `socket` agreed on: the one the handler
  gave as :ring.websocket/protocol, or on a client's socket the one the
  server chose; nil for none."
  [socket]
  (.protocol ^WebSocket socket))

(defn- from-map ^WebSocketListener [m]
  (let [{:keys [on-open on-message on-ping on-pong on-error on-close]} m]
    (reify WebSocketListener
      (onOpen [_ socket] (when on-open (on-open socket)))
      (onMessage [_ socket message] (when on-message (on-message socket message)))
      (answersPings [_] (some? on-ping))
      (onPing [_ socket data] (on-ping socket data))
      (onPong [_ socket data] (when on-pong (on-pong socket data)))
      (onError [_ socket error] (when on-error (on-error socket error)))
      (onClose [_ socket code reason] (when on-close (on-close socket code reason))))))

(defn- ring-protocol
  "The var `sym` of ring.websocket.protocols, when that namespace is loaded."
  [sym]
  (some-> (find-ns 'ring.websocket.protocols) (ns-resolve sym) deref))

(defn- from-protocols ^WebSocketListener [listener]
  (let [on-open (ring-protocol 'on-open)
        on-message (ring-protocol 'on-message)
        on-ping (ring-protocol 'on-ping)
        on-pong (ring-protocol 'on-pong)
        on-error (ring-protocol 'on-error)
        on-close (ring-protocol 'on-close)
        pings? (boolean (some-> (ring-protocol 'PingListener) (satisfies? listener)))]
    (reify WebSocketListener
      (onOpen [_ socket] (on-open listener socket))
      (onMessage [_ socket message] (on-message listener socket message))
      (answersPings [_] pings?)
      (onPing [_ socket data] (on-ping listener socket data))
      (onPong [_ socket data] (on-pong listener socket data))
      (onError [_ socket error] (on-error listener socket error))
      (onClose [_ socket code reason] (on-close listener socket code reason)))))

(defn kernel-listener
  "The kernel's WebSocketListener for `listener`: a map of :on-open,
  :on-message, :on-ping, :on-pong, :on-error and :on-close functions, or an
  object of Ring's ring.websocket.protocols Listener. Throws an
  InvalidResponseException for anything else (from a handler's response, the
  client then gets 500 and the log says why). The server and `connect` call
  it; handlers need not."
  ^WebSocketListener [listener]
  (cond
    (map? listener) (from-map listener)
    (some-> (ring-protocol 'Listener) (satisfies? listener)) (from-protocols listener)
    :else (throw (InvalidResponseException.
                  (str ":ring.websocket/listener must be a map of :on-open, :on-message, :on-ping, :on-pong, "
                       ":on-error and :on-close functions, or a ring.websocket.protocols/Listener, not "
                       (if (nil? listener) "nil" (str "a " (.getName (class listener)))))))))

(defn connect
  "Opens a WebSocket to `url` (ws:// or wss://) as a client, for `listener`
  (a map of callbacks or a Ring Listener, as a handler's), and returns the
  socket once the handshake is done; the socket functions of this namespace
  work on it, and the listener's calls come as on the server: one at a time,
  in order, on-close once and last. With :async? true it returns a
  CompletableFuture of the socket instead. Waiting is refused on a Vert.x
  event loop: give :async? true there.

  Connecting and the handshake fail with an ex-info whose :onager/error is
  :invalid-request (with :key and :value: thrown at once), :connect-failed,
  :connect-timeout, :unknown-host, :tls, :timeout (:timeout :handshake),
  :connection-closed, :invalid-response, or :handshake (a server that did not
  switch: its :status and :headers are in the data). The options:"
  ([url listener] (connect url listener {}))
  ([url listener opts]
   (let [opts (option-specs/validate @(requiring-resolve 'onager.websocket.connect-options/table) opts)
         adapted (try (kernel-listener listener)
                      (catch InvalidResponseException e
                        (throw (ex-info (str "invalid request: " (.getMessage e))
                                        {:onager/error :invalid-request :key :listener :value listener}))))
         waits? (not (:async? opts))]
     (when (and waits? (Context/isOnEventLoopThread))
       (throw (IllegalStateException.
               "a connect that waits for its socket cannot run on a Vert.x event loop: give :async? true")))
     (let [^OnagerClient client (or (:client opts) ((requiring-resolve 'onager.client/default-client)))
           ^CompletableFuture opened (WebSocketConnect/open client url (dissoc opts :client) adapted)]
       (if waits?
         (try (.get opened)
              (catch ExecutionException e (throw (.getCause e)))
              (catch InterruptedException e
                ;; No one will hold the socket: it closes as soon as it opens.
                (.thenAccept opened (reify Consumer
                                      (accept [_ socket] (.close ^WebSocket socket 1001 "connect interrupted"))))
                (throw e)))
         opened)))))

(alter-meta! #'connect update :doc str "\n\n" (option-specs/docstring-of onager.websocket.connect-options/table))

;; Ring's protocols, when ring-core 1.11+ is on the class path: never a dependency.
(when (try (require 'ring.websocket.protocols) true (catch FileNotFoundException _ false))
  (let [protocol (fn [sym] @(ns-resolve 'ring.websocket.protocols sym))]
    (extend WebSocket
      (protocol 'Socket)
      {:-open? (fn [socket] (open? socket))
       :-send (fn [socket message] (send socket message))
       :-ping (fn [socket data] (ping socket data))
       :-pong (fn [socket data] (pong socket data))
       :-close (fn [socket code reason] (close socket code reason))}
      (protocol 'AsyncSocket)
      {:-send-async (fn [socket message succeed fail] (send-async socket message succeed fail))})))
