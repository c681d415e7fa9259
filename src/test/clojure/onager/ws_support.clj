(ns onager.ws-support
  "WebSocket clients for the tests: the JDK's java.net.http.WebSocket, whose
  events land in a queue, and raw frames over a plain socket for what no
  client would send."
  (:require [clojure.string :as str]
            [onager.server :as server]
            [onager.test-support :as ts])
  (:import [java.io ByteArrayOutputStream DataInputStream InputStream OutputStream]
           [java.net Socket URI]
           [java.net.http HttpClient WebSocket WebSocket$Builder WebSocket$Listener]
           [java.nio ByteBuffer]
           [java.nio.charset StandardCharsets]
           [java.time Duration]
           [java.util Base64]
           [java.util.concurrent CompletableFuture LinkedBlockingQueue TimeUnit]))

(set! *warn-on-reflection* true)

(defn ws-url
  "The ws URL of `path` on `server`."
  [server path]
  (str "ws://127.0.0.1:" (server/port server) path))

;; ---- the JDK client ----

(defn- bytes-of ^bytes [^ByteBuffer b]
  (let [a (byte-array (.remaining b))] (.get (.duplicate b) a) a))

(defn connect
  "Opens a WebSocket to `url` with the JDK client; returns {:socket
  java.net.http.WebSocket :events queue}. Each event is [:text s], [:binary
  bytes], [:ping bytes], [:pong bytes], [:close code reason] or [:error t]; a
  message in parts arrives whole. Options: :protocols (strings offered),
  :headers (a map)."
  ([url] (connect url {}))
  ([url {:keys [protocols headers]}]
   (let [events (LinkedBlockingQueue.)
         text (StringBuilder.)
         binary (ByteArrayOutputStream.)
         listener (reify WebSocket$Listener
                    (onOpen [_ ws] (.request ws 1))
                    (onText [_ ws data last]
                      (.append text data)
                      (when last (.put events [:text (str text)]) (.setLength text 0))
                      (.request ws 1)
                      nil)
                    (onBinary [_ ws data last]
                      (.writeBytes binary (bytes-of data))
                      (when last (.put events [:binary (.toByteArray binary)]) (.reset binary))
                      (.request ws 1)
                      nil)
                    (onPing [_ ws data]
                      (.put events [:ping (bytes-of data)])
                      (.request ws 1)
                      nil)
                    (onPong [_ ws data]
                      (.put events [:pong (bytes-of data)])
                      (.request ws 1)
                      nil)
                    (onClose [_ ws code reason]
                      (.put events [:close code reason])
                      nil)
                    (onError [_ ws error]
                      (.put events [:error error])))
         builder (.connectTimeout (.newWebSocketBuilder (HttpClient/newHttpClient)) (Duration/ofSeconds 5))]
     (when (seq protocols)
       (.subprotocols builder ^String (first protocols) ^"[Ljava.lang.String;" (into-array String (rest protocols))))
     (doseq [[k v] headers] (.header builder ^String k ^String v))
     {:socket (.join ^CompletableFuture (.buildAsync builder (URI. url) listener))
      :events events})))

(defn next-event
  "The next event of `client` within `ms` (default 5000), or :timeout."
  ([client] (next-event client 5000))
  ([{:keys [^LinkedBlockingQueue events]} ms]
   (or (.poll events ms TimeUnit/MILLISECONDS) :timeout)))

(defn send-text! [{:keys [^WebSocket socket]} ^String s]
  (.join (.sendText socket s true)))

(defn send-binary! [{:keys [^WebSocket socket]} ^bytes b]
  (.join (.sendBinary socket (ByteBuffer/wrap b) true)))

(defn close! [{:keys [^WebSocket socket]} code reason]
  (.join (.sendClose socket (int code) ^String reason)))

;; ---- raw frames ----

(def opcodes {:continuation 0 :text 1 :binary 2 :close 8 :ping 9 :pong 10})

(defn frame
  "The bytes of one frame (RFC 6455 §5.2): `opcode` a keyword of `opcodes` or a
  number, `payload` bytes or a string; masked unless :mask? false, final unless
  :fin? false, with :rsv bits (0 to 7)."
  ^bytes [opcode payload & {:keys [fin? mask? rsv] :or {fin? true mask? true rsv 0}}]
  (let [^bytes data (if (string? payload) (.getBytes ^String payload StandardCharsets/UTF_8) (or payload (byte-array 0)))
        n (alength data)
        out (ByteArrayOutputStream.)
        op (if (keyword? opcode) (opcodes opcode) opcode)
        mask (byte-array [0x12 0x34 0x56 0x78])]
    (.write out (int (bit-or (if fin? 0x80 0) (bit-shift-left rsv 4) op)))
    (let [m (if mask? 0x80 0)]
      (cond
        (< n 126) (.write out (int (bit-or m n)))
        (< n 65536) (do (.write out (int (bit-or m 126))) (.write out (int (bit-shift-right n 8))) (.write out (int (bit-and n 0xff))))
        :else (do (.write out (int (bit-or m 127)))
                  (doseq [shift [56 48 40 32 24 16 8 0]] (.write out (int (bit-and (bit-shift-right n shift) 0xff)))))))
    (if mask?
      (do (.write out mask 0 4)
          (.write out (byte-array (map-indexed (fn [i b] (unchecked-byte (bit-xor b (aget mask (mod i 4))))) data))))
      (.write out data 0 n))
    (.toByteArray out)))

(defn close-payload
  "The payload of a close frame with `code` and `reason`."
  ^bytes [code reason]
  (let [r (.getBytes ^String reason StandardCharsets/UTF_8)]
    (byte-array (concat [(unchecked-byte (bit-shift-right code 8)) (unchecked-byte (bit-and code 0xff))] r))))

(defn handshake
  "Opens a plain socket to `server` and does the opening handshake for `path`,
  `headers` added to a client's usual ones or replacing them (nil: left out):
  {:socket :in DataInputStream :response head-text}."
  ([server path] (handshake server path {}))
  ([server path headers]
   (let [socket (ts/connect server)
         usual {"Host" "127.0.0.1" "Upgrade" "websocket" "Connection" "Upgrade"
                "Sec-WebSocket-Key" (.encodeToString (Base64/getEncoder) (.getBytes "0123456789abcdef"))
                "Sec-WebSocket-Version" "13"}
         request (str "GET " path " HTTP/1.1\r\n"
                      (str/join (for [[k v] (merge usual headers) :when v] (str k ": " v "\r\n")))
                      "\r\n")
         in (DataInputStream. (.getInputStream socket))]
     (ts/send! socket request)
     (let [head (loop [sb (StringBuilder.)]
                  (let [c (.read in)]
                    (cond (neg? c) (str sb)
                          (str/ends-with? (str (.append sb (char c))) "\r\n\r\n") (str sb)
                          :else (recur sb))))]
       {:socket socket :in in :response head}))))

(defmacro with-raw
  "Binds `sym` to `conn` (from handshake) for `body` and closes its socket after,
  so that a server stopping next has no socket left waiting for a close frame."
  [[sym conn] & body]
  `(let [c# ~conn
         ~sym c#]
     (try ~@body (finally (.close ^Socket (:socket c#))))))

(defn send-frame! [{:keys [^Socket socket]} ^bytes frame-bytes]
  (doto ^OutputStream (.getOutputStream socket) (.write frame-bytes) (.flush)))

(defn read-frame
  "Reads one frame the server sent on a raw connection: {:opcode :fin? :rsv
  :payload bytes}, and for a close frame :code and :reason; :closed when the connection
  ended first."
  [{:keys [^DataInputStream in]}]
  (try
    (let [b0 (.readUnsignedByte in)
          b1 (.readUnsignedByte in)
          len (bit-and b1 0x7f)
          n (case len 126 (.readUnsignedShort in) 127 (.readLong in) len)
          payload (byte-array n)]
      (.readFully in payload)
      (let [op (bit-and b0 0x0f)]
        (cond-> {:opcode op :fin? (bit-test b0 7) :rsv (bit-and (bit-shift-right b0 4) 7) :payload payload}
          (and (= op 8) (>= n 2))
          (assoc :code (bit-or (bit-shift-left (bit-and (aget payload 0) 0xff) 8) (bit-and (aget payload 1) 0xff))
                 :reason (String. payload 2 (int (- n 2)) StandardCharsets/UTF_8)))))
    (catch java.io.EOFException _ :closed)
    (catch java.net.SocketException _ :closed)))

(defn close-code
  "Reads frames until the server's close frame, answers it and closes the
  socket, as a client does (RFC 6455 §5.5.1, §7.1.1), so that the connection
  ends at once: the code; :closed when the connection ended without one."
  [conn]
  (loop []
    (let [f (read-frame conn)]
      (cond (= :closed f) :closed
            (= 8 (:opcode f)) (do (try (send-frame! conn (frame :close (close-payload (:code f 1000) "")))
                                       ;; A server that closed after its close frame took no answer.
                                       (catch java.io.IOException _))
                                  (.close ^Socket (:socket conn))
                                  (:code f))
            :else (recur)))))
