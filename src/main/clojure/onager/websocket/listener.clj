(ns onager.websocket.listener
  "What the server makes of a response's :ring.websocket/listener: the kernel's
  listener, from a map of callbacks or from an object of Ring's protocols."
  (:require [onager.websocket])
  (:import [onager.kernel.response InvalidResponseException]
           [onager.kernel.websocket WebSocketListener]))

(set! *warn-on-reflection* true)

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

(defn adapt
  "The kernel's listener for `listener`, a response's :ring.websocket/listener;
  throws an InvalidResponseException (the client gets 500, the log says why)
  for anything else. Not for handlers to call."
  ^WebSocketListener [listener]
  (cond
    (map? listener) (from-map listener)
    (some-> (ring-protocol 'Listener) (satisfies? listener)) (from-protocols listener)
    :else (throw (InvalidResponseException.
                  (str ":ring.websocket/listener must be a map of :on-open, :on-message, :on-ping, :on-pong, "
                       ":on-error and :on-close functions, or a ring.websocket.protocols/Listener, not "
                       (if (nil? listener) "nil" (str "a " (.getName (class listener)))))))))
