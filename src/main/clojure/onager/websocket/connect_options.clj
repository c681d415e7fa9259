(ns onager.websocket.connect-options
  "The options of `onager.websocket/connect`, which opens a WebSocket as a
  client: validation, defaults and documentation all come from `table`. The
  socket's limits are the server's :ws-* options without the prefix, with the
  same bounds and defaults, seen from the client's side."
  (:require [onager.options :refer [int-in]]
            [onager.server.ws-options :as ws-options])
  (:import [onager.kernel.client OnagerClient]))

(set! *warn-on-reflection* true)

(defn- limit
  "The entry for `k`, the server's option `server-key` seen from the client: its
  bounds and default, and `doc`."
  [k server-key doc]
  (-> (some #(when (= server-key (:key %)) %) ws-options/table)
      (assoc :key k :doc doc)))

(def table
  "The options of `onager.websocket/connect`, in the order the docs show them.
  See `onager.options`."
  [{:key :client
    :default nil
    :default-doc "the default client of `onager.client`"
    :valid? #(or (nil? %) (instance? OnagerClient %))
    :allowed "a client made by `onager.client/client`, or nil"
    :doc (str "The client whose TLS trust and certificate, proxy, connect timeout and User-Agent the connection "
              "uses, and whose `close` closes the socket.")}
   {:key :headers
    :default nil
    :valid? #(or (nil? %) (map? %))
    :allowed "a map of header names to a string or a collection of strings"
    :doc (str "Headers of the handshake request, such as Origin, Cookie or Authorization. Those the handshake "
              "itself sets (Host, Upgrade, Connection, Sec-WebSocket-*) cannot be overridden.")}
   {:key :subprotocols
    :default nil
    :valid? #(or (nil? %) (and (sequential? %) (every? string? %)))
    :allowed "a sequence of subprotocol names, such as [\"graphql-transport-ws\"]"
    :doc (str "The subprotocols offered, in order of preference; the server picks one or none, and "
              "`subprotocol` tells which. A server that picks one not offered fails the handshake.")}
   {:key :handshake-timeout-ms
    :default 10000
    :valid? (int-in 0 Integer/MAX_VALUE)
    :allowed "an integer from 0 to 2147483647; 0 waits as long as the server takes"
    :doc (str "How long the server may take to answer the handshake once connected; then it fails with "
              ":timeout (:timeout :handshake). The connection itself has the client's :connect-timeout-ms.")}
   {:key :mode
    :default :virtual
    :valid? #{:virtual :event-loop}
    :allowed ":virtual or :event-loop"
    :doc (str "Where the listener runs: on virtual threads (it may block), or on the connection's event loop "
              "(it must not block; the fastest).")}
   {:key :async?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: `connect` returns at once a CompletableFuture of the socket (or of the ex-info it failed "
              "with) instead of waiting for the handshake.")}
   (limit :max-frame-size :ws-max-frame-size
          "Largest frame payload the server may send; a larger frame closes the socket with 1009.")
   (limit :max-message-size :ws-max-message-size
          (str "Largest message, its fragments together and inflated when compressed; a larger one closes the "
               "socket with 1009. Each message is held whole in memory before the listener gets it."))
   (limit :idle-timeout-ms :ws-idle-timeout-ms
          (str "A socket that receives nothing for this long (no message, ping or pong) is closed with 1001. "
               "With :ping-interval-ms, a live server's pongs keep it open."))
   (limit :ping-interval-ms :ws-ping-interval-ms
          (str "A socket that receives nothing for this long sends a ping, which servers answer: proxies and "
               "NATs see traffic, and a server gone without a word is found by :idle-timeout-ms."))
   (limit :write-timeout-ms :ws-write-timeout-ms
          (str "A server that takes no bytes for this long while more than :high-water-mark bytes wait for it "
               "is cut off, and the sends fail."))
   (limit :high-water-mark :ws-high-water-mark
          (str "Bytes waiting to go to the server over which `send` waits (off the event loop) until the server "
               "has taken half of them; `send-async` never waits."))
   (limit :compression? :ws-compression?
          (str "True: permessage-deflate (RFC 7692) is offered, and used when the server agrees. Off by "
               "default: it costs a compressor's memory, and compressing secrets beside what an attacker "
               "sends can leak them (as CRIME did)."))
   (limit :compression-level :ws-compression-level
          "The deflate level of the messages sent, 1 fastest to 9 smallest.")
   (limit :compression-window-bits :ws-compression-window-bits
          (str "The LZ77 window the server is asked to keep to when it compresses (server_max_window_bits), "
               "as a power of two; smaller costs less memory to inflate."))])
