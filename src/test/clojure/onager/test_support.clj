(ns onager.test-support
  "What the server tests share: starting servers on 127.0.0.1, the six
  handler combinations (three modes × two arities), and clients: the JDK
  HttpClient (HTTP/1.1) and raw sockets for bytes no client would send; and
  where the tools that scripts/install-tools installs outside the PATH are."
  (:require [clojure.data.json :as json]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [onager.server :as server])
  (:import [io.vertx.core Vertx]
           [java.io ByteArrayOutputStream InputStream]
           [java.net ConnectException Socket SocketException SocketTimeoutException URI]
           [java.net.http HttpClient HttpClient$Version HttpRequest HttpRequest$BodyPublishers
            HttpResponse HttpResponse$BodyHandlers]
           [java.nio.charset StandardCharsets]
           [java.time Duration]
           [java.util.concurrent BlockingQueue TimeUnit]
           [java.util.zip DeflaterOutputStream GZIPOutputStream]
           [ch.qos.logback.classic LoggerContext]
           [ch.qos.logback.classic.spi ILoggingEvent ThrowableProxy]
           [ch.qos.logback.core AppenderBase]
           [org.slf4j Logger LoggerFactory]))

(set! *warn-on-reflection* true)

;; ---- listeners' calls ----

(defn drain
  "What `calls` (a listener's calls, each a vector whose first item names it)
  holds once a call named `until` is in it, or once 5 s have passed with none
  coming, in order."
  [^BlockingQueue calls until]
  (loop [seen []]
    (let [c (.poll calls 5 TimeUnit/SECONDS)]
      (cond (nil? c) seen
            (= until (first c)) (conj seen c)
            :else (recur (conj seen c))))))

;; ---- bodies ----

(defn counting-stream
  "An InputStream of `size` bytes (read into arrays only) that counts what it
  made into the atom `produced` and delivers true to the promise `closed` when
  closed: a response body whose source shows how far the server pulled it."
  ^InputStream [size produced closed]
  (proxy [InputStream] []
    (read
      ([] (throw (UnsupportedOperationException.)))
      ([^bytes buf off len]
       (let [n (min len (- size @produced))]
         (if (pos? n) (do (swap! produced + n) (int n)) -1))))
    (close [] (deliver closed true))))

(defn gzip
  "`data` compressed with gzip (RFC 1952)."
  ^bytes [^bytes data]
  (let [out (ByteArrayOutputStream.)]
    (with-open [z (GZIPOutputStream. out)] (.write z data))
    (.toByteArray out)))

(defn deflate
  "`data` compressed as HTTP's deflate: zlib (RFC 1950)."
  ^bytes [^bytes data]
  (let [out (ByteArrayOutputStream.)]
    (with-open [z (DeflaterOutputStream. out)] (.write z data))
    (.toByteArray out)))

(defn zeros
  "An InputStream of `size` zero bytes, made as it is read."
  ^InputStream [^long size]
  (let [left (volatile! size)]
    (proxy [InputStream] []
      (read
        ([] (throw (UnsupportedOperationException.)))
        ([^bytes buf] (.read ^InputStream this buf 0 (alength buf)))
        ([^bytes buf off len]
         (let [n (min (long len) (long @left))]
           (if (<= n 0)
             -1
             (do (java.util.Arrays/fill buf (int off) (int (+ off n)) (byte 0))
                 (vswap! left - n)
                 (int n)))))))))

;; ---- servers ----

(defonce ^{:doc "A Vert.x instance the matrix tests share (through :vertx), so that
  starting a server per case stays cheap. Servers stop; it stays."}
  shared-vertx
  (delay (Vertx/vertx)))

(defn start
  "Starts `handler` on a free port of 127.0.0.1 with `opts`. Its stop closes
  idle keep-alive connections at once (:shutdown-idle-ms 0) unless `opts` say
  otherwise: a test's client has no request on its way down them."
  [handler opts]
  (server/start handler (merge {:host "127.0.0.1" :port 0 :shutdown-idle-ms 0} opts)))

(defmacro with-server
  "Runs `body` with `sym` bound to a server for `handler`, stopping it after."
  [[sym handler opts] & body]
  `(let [~sym (start ~handler ~opts)]
     (try ~@body (finally (server/stop ~sym)))))

(defn url
  "The http URL of `path` on `server`."
  [server path]
  (str "http://127.0.0.1:" (server/port server) path))

;; ---- the six handler combinations ----

(def combos
  "Every mode with both arities. Async handlers answer from another thread."
  (for [mode [:virtual :event-loop :worker]
        async? [false true]]
    {:handler-mode mode :async? async?}))

(defn combo-name [{:keys [handler-mode async?]}]
  (str (name handler-mode) (if async? " async" " sync")))

(defn as-handler
  "Adapts the 1-arity `f` to `combo`: itself when sync; when async, a 3-arity
  handler that computes the response with `f` and answers from a new thread."
  [f {:keys [async?]}]
  (if async?
    (fn [request respond raise]
      (let [response (try {:ok (f request)} (catch Throwable t {:error t}))]
        (Thread/startVirtualThread
         (fn [] (if-let [t (:error response)] (raise t) (respond (:ok response)))))))
    f))

(defmacro each-combo
  "Runs `body` once per combination, inside `testing`, with `server` bound to a
  server of that combination for the 1-arity handler `f` (adapted), and `combo`
  to the combination. `opts` are extra server options."
  [[server f opts combo] & body]
  `(doseq [c# combos]
     (clojure.test/testing (combo-name c#)
       (let [~(or combo (gensym "combo")) c#]
         (with-server [~server (as-handler ~f c#) (merge {:vertx @shared-vertx} c# ~opts)]
           ~@body)))))

;; ---- the JDK HttpClient ----

(def ^HttpClient client
  (-> (HttpClient/newBuilder)
      (.version HttpClient$Version/HTTP_1_1)
      (.connectTimeout (Duration/ofSeconds 5))
      (.build)))

(defn- publisher [body]
  (cond
    (nil? body) (HttpRequest$BodyPublishers/noBody)
    (string? body) (HttpRequest$BodyPublishers/ofString body)
    (bytes? body) (HttpRequest$BodyPublishers/ofByteArray body)
    (instance? InputStream body) (HttpRequest$BodyPublishers/ofInputStream (constantly body))
    :else (throw (ex-info "unsupported test body" {:body body}))))

(defn- response-map [^HttpResponse r as]
  {:status (.statusCode r)
   :headers (into {} (map (fn [[k v]] [(str/lower-case k) (vec v)])) (.map (.headers r)))
   :body (let [b (.body r)]
           (case as
             :string (String. ^bytes b StandardCharsets/UTF_8)
             :bytes b
             :stream b))})

(defn request
  "Sends one request with the JDK HttpClient (HTTP/1.1) and returns
  {:status :headers {lower-case-name [values]} :body}. Options: :method (a
  keyword, default :get), :headers (a map), :body (string, bytes or
  InputStream), :as (:string, :bytes or :stream) and :timeout-ms."
  ([url] (request url {}))
  ([url {:keys [method headers body as timeout-ms]
         :or {method :get as :string timeout-ms 30000}}]
   (let [builder (-> (HttpRequest/newBuilder (URI. url))
                     (.timeout (Duration/ofMillis timeout-ms))
                     (.method (str/upper-case (name method)) (publisher body)))]
     (doseq [[k v] headers] (.header builder k v))
     (response-map (.send client (.build builder)
                          (if (= as :stream)
                            (HttpResponse$BodyHandlers/ofInputStream)
                            (HttpResponse$BodyHandlers/ofByteArray)))
                   as))))

(defn header
  "The first value of header `name` (lower case) in a `request` response."
  [response name]
  (first (get-in response [:headers name])))

;; ---- raw sockets ----

(defn raw
  "Writes `text` (a string sent as ISO-8859-1, or bytes) to the server and returns
  everything it sends back until it closes the connection or is silent for
  `quiet-ms` (default 1000): {:text received-string :closed? bool}."
  ([server text] (raw server text {}))
  ([server text {:keys [quiet-ms] :or {quiet-ms 1000}}]
   (with-open [socket (Socket. "127.0.0.1" (int (server/port server)))]
     (.setSoTimeout socket quiet-ms)
     (let [out (.getOutputStream socket)
           in (.getInputStream socket)
           received (ByteArrayOutputStream.)
           buf (byte-array 65536)]
       (.write out (if (string? text) (.getBytes ^String text StandardCharsets/ISO_8859_1) ^bytes text))
       (.flush out)
       (let [closed? (loop []
                       (let [n (try (.read in buf) (catch SocketTimeoutException _ -2))]
                         (cond
                           (= n -1) true
                           (= n -2) false
                           :else (do (.write received buf 0 n) (recur)))))]
         {:text (String. (.toByteArray received) StandardCharsets/ISO_8859_1)
          :closed? closed?})))))

(defn connect
  "A raw socket to `server` (or to a port on 127.0.0.1), reads timing out after 15 s."
  ^Socket [server-or-port]
  (let [port (if (number? server-or-port) server-or-port (server/port server-or-port))]
    (doto (Socket. "127.0.0.1" (int port)) (.setSoTimeout 15000))))

(defn send!
  "Writes `text` (as ISO-8859-1) to `socket` and flushes it."
  [^Socket socket ^String text]
  (doto (.getOutputStream socket)
    (.write (.getBytes text StandardCharsets/ISO_8859_1))
    (.flush)))

(defn read-all
  "Reads `socket` until the server closes it (or its read timeout passes):
  {:text received :closed? :reset? (closed by a reset) :ms time taken}."
  [^Socket socket]
  (let [start (System/currentTimeMillis)
        in (.getInputStream socket)
        received (ByteArrayOutputStream.)
        buf (byte-array 65536)
        end (try (loop []
                   (let [n (.read in buf)]
                     (if (neg? n) :closed (do (.write received buf 0 n) (recur)))))
                 (catch SocketTimeoutException _ :open)
                 (catch SocketException _ :reset))]
    {:text (String. (.toByteArray received) StandardCharsets/ISO_8859_1)
     :closed? (not= end :open)
     :reset? (= end :reset)
     :ms (- (System/currentTimeMillis) start)}))

(defn refused?
  "True when a connection to `port` on 127.0.0.1 is refused. False when it is
  accepted, or reset while it connects: a connection still queued on a
  listening socket that closes is reset (the kernel's doing), a moment before
  connections are refused."
  [port]
  (try (with-open [_ (Socket. "127.0.0.1" (int port))] false)
       (catch ConnectException _ true)
       (catch SocketException _ false)))

(defn statuses
  "The status codes of every HTTP response in `text`, in order."
  [text]
  (mapv (comp parse-long second) (re-seq #"HTTP/1\.[01] (\d{3}) " text)))

;; ---- tools ----

(def ^:private tool-paths (atom {}))

(defn tool
  "The path of the tool `name` that scripts/install-tools test installs into
  ~/.cache rather than onto the PATH: \"h2spec\", \"python-h2\" (a Python with
  the h2 library), \"python-ws\" (a Python with websockets and kosoku),
  \"python-httpbin\" (a Python with httpbin) or
  \"java-21-runtime\" (its home). Each is a script of that
  name in scripts/, which installs the tool when it is missing and prints its path."
  ^String [name]
  (or (@tool-paths name)
      (let [{:keys [exit out err]} (shell/sh (str "scripts/" name))]
        (when-not (zero? (long exit))
          (throw (ex-info (str "scripts/" name " failed (exit " exit "): " err) {:tool name})))
        ((swap! tool-paths assoc name (str/trim out)) name))))

;; ---- the hostile HTTP/2 clients ----

(defn h2-attack
  "Runs src/test/python/h2_attack.py's case `name` with `args` against
  `server` (h2c by prior knowledge); returns its report, keys as keywords
  (stream ids too: :1). Throws when the script fails."
  [server name & args]
  (let [cmd (concat ["timeout" "120" (tool "python-h2") "src/test/python/h2_attack.py" name
                     "--port" (str (server/port server))]
                    args)
        {:keys [exit out err]} (apply shell/sh cmd)
        line (last (str/split-lines out))]
    (when-not (and (zero? (long exit)) line (str/starts-with? line "{"))
      (throw (ex-info (str (str/join " " cmd) " failed (exit " exit "):\n" err out) {:exit exit})))
    (json/read-str line :key-fn keyword)))

;; ---- logs ----

(defn- record
  "A logback event as a map."
  [^ILoggingEvent e]
  {:level (keyword (str/lower-case (str (.getLevel e))))
   :logger (.getLoggerName e)
   :message (.getFormattedMessage e)
   :throwable (let [p (.getThrowableProxy e)]
                (when (instance? ThrowableProxy p) (.getThrowable ^ThrowableProxy p)))
   :thread (.getThreadName e)})

(defn- collector
  "A started logback appender that adds each event to the atom `records`, as a map."
  ^AppenderBase [^LoggerContext context records]
  (doto (proxy [AppenderBase] []
          (append [e] (swap! records conj (record e))))
    (.setContext context)
    (.setName "capture-logs")
    (.start)))

(defn capture-logs
  "Runs `f` while collecting what every logger logs (Onager's at every level,
  src/test/resources/logback-test.xml says which others); returns the records,
  in order, as maps {:level (:trace … :error), :logger, :message (formatted),
  :throwable, :thread}. Records logged after `f` returns, from other threads,
  are waited for with :until, a predicate of the records so far: collecting
  goes on until it is true or :timeout-ms (default 5000) has passed."
  ([f] (capture-logs {} f))
  ([{:keys [until timeout-ms] :or {timeout-ms 5000}} f]
   (let [context ^LoggerContext (LoggerFactory/getILoggerFactory)
         records (atom [])
         appender (collector context records)
         ;; Every event reaches the root or stops at a logger that does not pass it on.
         targets (filter (fn [^ch.qos.logback.classic.Logger l]
                           (or (= Logger/ROOT_LOGGER_NAME (.getName l)) (not (.isAdditive l))))
                         (.getLoggerList context))]
     (doseq [^ch.qos.logback.classic.Logger l targets] (.addAppender l appender))
     (try
       (f)
       (when until
         (let [deadline (+ (System/currentTimeMillis) timeout-ms)]
           (while (and (not (until @records)) (< (System/currentTimeMillis) deadline))
             (Thread/sleep 20))))
       @records
       (finally
         (doseq [^ch.qos.logback.classic.Logger l targets] (.detachAppender l appender))
         (.stop appender))))))

(def ^:private severity {:trace 0 :debug 1 :info 2 :warn 3 :error 4})

(defn logged
  "The `records` (from capture-logs) that match: :level, a level or a set of
  them; :at-least, the lowest level; :logger, a name; :message, a regex found
  in the message."
  [records & {:keys [level at-least logger message]}]
  (filter (fn [r]
            (and (or (nil? level) (if (set? level) (level (:level r)) (= level (:level r))))
                 (or (nil? at-least) (>= (severity (:level r)) (severity at-least)))
                 (or (nil? logger) (= logger (:logger r)))
                 (or (nil? message) (re-find message (:message r)))))
          records))

(defn loud
  "The `records` at :warn or :error: what a routine event must not log."
  [records]
  (logged records :at-least :warn))

(defn messages
  "The records as \"LEVEL logger: message\" lines, for a failing test's message."
  [records]
  (str/join "\n" (map (fn [{:keys [level logger message]}] (str (name level) " " logger ": " message)) records)))
