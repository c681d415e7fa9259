(ns onager.server.websocket-ring-test
  "Ring's own WebSocket protocols (ring.websocket.protocols, here the tests'
  copy of ring-core 1.11's) against Onager: listeners written to them, and
  Onager's socket satisfying them."
  (:require [clojure.test :refer [deftest is testing]]
            [onager.test-support :as ts]
            [onager.ws-support :as wss]
            [ring.websocket.protocols :as p])
  (:import [java.nio ByteBuffer]
           [java.util.concurrent LinkedBlockingQueue TimeUnit]))

(set! *warn-on-reflection* true)

(deftest a-listener-of-rings-protocols
  (let [calls (LinkedBlockingQueue.)
        listener (reify
                   p/Listener
                   (on-open [_ socket]
                     (.put calls [:open (p/-open? socket)]))
                   (on-message [_ socket message]
                     (if (= "async" message)
                       (p/-send-async socket "sent async" #(.put calls [:sent]) #(.put calls [:failed %]))
                       (p/-send socket (str "ring: " message))))
                   (on-pong [_ _ data] (.put calls [:pong (.remaining ^ByteBuffer data)]))
                   (on-error [_ _ e] (.put calls [:error e]))
                   (on-close [_ _ code reason] (.put calls [:close code reason]))
                   p/PingListener
                   (on-ping [_ socket data]
                     (.put calls [:ping])
                     (p/-pong socket data)))]
    (ts/with-server [s (fn [_] {:ring.websocket/listener listener}) {}]
      (let [c (wss/connect (wss/ws-url s "/"))]
        (is (= [:open true] (.poll calls 5 TimeUnit/SECONDS)))
        (wss/send-text! c "hi")
        (is (= [:text "ring: hi"] (wss/next-event c)))
        (wss/send-text! c "async")
        (is (= [:text "sent async"] (wss/next-event c)))
        (is (= [:sent] (.poll calls 5 TimeUnit/SECONDS)))
        (testing "a PingListener answers pings itself"
          (.join (.sendPing ^java.net.http.WebSocket (:socket c) (ByteBuffer/wrap (byte-array [7 7]))))
          (is (= [:ping] (.poll calls 5 TimeUnit/SECONDS)))
          (is (= :pong (first (wss/next-event c)))))
        (wss/close! c 1000 "bye")
        (is (= [:close 1000 "bye"] (.poll calls 5 TimeUnit/SECONDS)))))))

(deftest onagers-socket-satisfies-rings-protocols
  (let [result (promise)]
    (ts/with-server [s (fn [_] {:ring.websocket/listener
                                {:on-open (fn [socket]
                                            (deliver result [(satisfies? p/Socket socket)
                                                             (satisfies? p/AsyncSocket socket)])
                                            (p/-ping socket (ByteBuffer/wrap (byte-array [1])))
                                            (p/-close socket 4000 "done"))}}) {}]
      (let [c (wss/connect (wss/ws-url s "/"))]
        (is (= [true true] (deref result 5000 :timeout)))
        (is (= :ping (first (wss/next-event c))))
        (is (= [:close 4000 "done"] (wss/next-event c)))))))
