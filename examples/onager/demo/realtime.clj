(ns onager.demo.realtime
  "The demo's real-time endpoints:

    /ws/echo    a WebSocket that sends each message back as it came, text or binary
    /ws/room    a WebSocket chat room: each message goes to every member
    /sse/clock  server-sent events, one a second (?interval-ms=N: every N ms,
                at least 10), numbered; a client that reconnects with
                Last-Event-ID goes on from the next number"
  (:require [onager.sse :as sse]
            [onager.websocket :as ws]))

(set! *warn-on-reflection* true)

(defn- websocket-only [listener]
  (fn [request]
    (if (ws/websocket-request? request)
      {:ring.websocket/listener listener}
      {:status 426 :headers {"Upgrade" "websocket" "Content-Type" "text/plain"}
       :body "This endpoint speaks WebSocket.\n"})))

(def echo
  "Sends every message back on its socket."
  (websocket-only {:on-message (fn [socket message] (ws/send socket message))}))

(defonce ^:private members (atom #{}))

(defn- ignore [& _])

(def room
  "Broadcasts every message to every socket in the room, the sender included.
  A member that reads slowly falls behind alone: the sends do not wait for it."
  (websocket-only {:on-open (fn [socket] (swap! members conj socket))
                   ;; run! walks the set with its iterator: doseq would allocate a seq
                   ;; of it per message.
                   :on-message (fn [_ message]
                                 (run! #(ws/send-async % message ignore ignore) @members))
                   :on-close (fn [socket _ _] (swap! members disj socket))}))

(defn- interval-ms [request]
  (let [v (some->> (:query-string request) (re-find #"(?:^|&)interval-ms=(\d+)") second parse-long)]
    (max 10 (or v 1000))))

(defn clock
  "An event a second (or every interval-ms), id and data the event's number,
  from the one after the client's Last-Event-ID."
  [request]
  (let [from (or (some-> (sse/last-event-id request) parse-long inc) 1)
        every (long (interval-ms request))]
    (sse/event-stream
     {:on-open (fn [stream]
                 (loop [n from]
                   (when (sse/send stream {:id (str n) :event "tick" :data (str n)})
                     (Thread/sleep every)
                     (recur (inc n)))))})))

(def routes
  "The endpoints by path."
  {"/ws/echo" echo
   "/ws/room" room
   "/sse/clock" clock})
