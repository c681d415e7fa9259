(ns onager.server.ws-options
  "The WebSocket options of `onager.server/start`, a part of its options table:
  the limits every WebSocket of the server has (see `onager.websocket`)."
  (:require [onager.options :refer [int-in]]))

(set! *warn-on-reflection* true)

(def ^:private max-int Integer/MAX_VALUE)

(def table
  "The WebSocket options, in the order the docs show them. See `onager.options`."
  [{:key :ws-max-frame-size
    :default (* 1024 1024)
    :default-doc "1048576 (1 MiB)"
    :valid? (int-in 125 max-int)
    :allowed "an integer from 125 to 2147483647 (bytes)"
    :doc "Largest WebSocket frame payload a client may send; a larger frame closes the socket with 1009."}
   {:key :ws-max-message-size
    :default (* 4 1024 1024)
    :default-doc "4194304 (4 MiB)"
    :valid? (int-in 125 max-int)
    :allowed "an integer from 125 to 2147483647 (bytes)"
    :doc (str "Largest WebSocket message, its fragments together and inflated when compressed; a larger one "
              "closes the socket with 1009. Each message is held whole in memory before the listener gets it.")}
   {:key :ws-idle-timeout-ms
    :default 300000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 disables it"
    :doc (str "A WebSocket that receives nothing for this long (no message, ping or pong) is closed with 1001. "
              "With :ws-ping-interval-ms, a live client's pongs keep its socket open.")}
   {:key :ws-ping-interval-ms
    :default 0
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 disables it"
    :doc (str "A WebSocket that receives nothing for this long is sent a ping, which clients answer with a "
              "pong: proxies and NATs then see traffic, and a client gone without a word is found by "
              ":ws-idle-timeout-ms.")}
   {:key :ws-write-timeout-ms
    :default 30000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 disables it"
    :doc (str "A WebSocket client that takes no bytes for this long while more than :ws-high-water-mark "
              "bytes wait for it is cut off, and its sends fail: a client that stops reading is not buffered "
              "for without bound.")}
   {:key :ws-high-water-mark
    :default 65536
    :valid? (int-in 1024 max-int)
    :allowed "an integer from 1024 to 2147483647 (bytes)"
    :doc (str "Bytes waiting to go to a WebSocket client over which `onager.websocket/send` waits (off the "
              "event loop) until the client has taken half of them; `send-async` never waits.")}
   {:key :ws-compression?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: permessage-deflate (RFC 7692) is agreed with a client that offers it. Off by default: "
              "it costs each socket a compressor's memory, and compressing secrets beside what a client "
              "sends can leak them (as CRIME did).")}
   {:key :ws-compression-level
    :default 6
    :valid? (int-in 1 9)
    :allowed "an integer from 1 to 9"
    :doc "The deflate level of the messages the server sends, 1 fastest to 9 smallest."}
   {:key :ws-compression-window-bits
    :default 15
    :valid? (int-in 9 15)
    :allowed "an integer from 9 to 15"
    :doc (str "The LZ77 window the server asks a compressing client to keep to when the client lets it "
              "(client_max_window_bits), as a power of two; smaller costs less memory to inflate.")}
   {:key :ws-allowed-origins
    :default nil
    :default-doc "any origin"
    :valid? #(or (nil? %) (and (coll? %) (not (map? %)) (every? (fn [o] (and (string? o) (seq o))) %)))
    :allowed "nil, or a collection of origin strings such as \"https://example.com\""
    :doc (str "The Origin values a WebSocket handshake may carry; others get 403 (a page of another site "
              "cannot open a socket with the user's cookies). nil accepts any, and requests without Origin.")}])

(def foreign
  "Other servers' names for these options, with what to give instead."
  {:max-ws "http-kit's :max-ws is :ws-max-message-size here (and :ws-max-frame-size for one frame)."})
