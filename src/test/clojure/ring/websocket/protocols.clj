(ns ring.websocket.protocols
  "Ring 1.11's WebSocket protocols, written for the tests from their definition
  in ring-core (which is not on Maven Central): a user with ring-core 1.11+ has
  this namespace from it, and Onager's sockets and listeners work with it.")

(defprotocol Listener
  "Handles a WebSocket's events; the second argument is always a Socket."
  (on-open [listener socket] "The WebSocket opened.")
  (on-message [listener socket message] "A message came: a String or a ByteBuffer.")
  (on-pong [listener socket data] "A pong came, with its data as a ByteBuffer.")
  (on-error [listener socket throwable] "An error happened.")
  (on-close [listener socket code reason] "The WebSocket closed."))

(defprotocol PingListener
  "A listener that answers pings itself."
  (on-ping [listener socket data] "A ping came, with its data as a ByteBuffer."))

(defprotocol Socket
  "A WebSocket the server opened."
  (-open? [socket] "True while the socket is open.")
  (-send [socket message] "Sends a String or a ByteBuffer.")
  (-ping [socket data] "Sends a ping with a ByteBuffer of data.")
  (-pong [socket data] "Sends a pong with a ByteBuffer of data.")
  (-close [socket code reason] "Closes the socket with a code and a reason."))

(defprotocol AsyncSocket
  "A socket that sends without waiting."
  (-send-async [socket message succeed fail] "Sends, then calls succeed or fail with the Throwable."))
