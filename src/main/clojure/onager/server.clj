(ns onager.server
  "Onager's Ring server.

    (require '[onager.server :as server])
    (def s (server/start #'app {:port 8080}))
    (server/port s)   ;=> 8080
    (server/stop s)

  The handler is any Ring handler. Pass a var (#'app) and re-defining it at the
  REPL takes effect on the next request, without a restart."
  (:require [onager.options :as options]
            [onager.protocols :as protocols]
            [onager.server.access-log :as access-log]
            [onager.server.options :as server-options]
            [onager.server.tls-options :as tls-options]
            [onager.websocket :as websocket])
  (:import [onager.kernel.config HandlerModes ServerConfig]
           [onager.kernel.server OnagerServer]))

(set! *warn-on-reflection* true)

(defn- route-modes
  "What tells the server each route's handler mode: the :route-modes option, or
  else the handler when it is a router or a var holding one (then followed as
  the var changes), or nil."
  ^HandlerModes [handler opts]
  (let [r (or (:route-modes opts) handler)]
    (cond
      (instance? HandlerModes r) r
      (and (var? r) (instance? HandlerModes @r)) (HandlerModes/following r))))

(defn- config
  "The kernel's configuration from the validated options `opts`, which reach it
  under their own keys: :handler-mode resolved to its default, :route-modes found,
  and the writer for body types the kernel does not know and the adapter of
  WebSocket listeners added, and :access-log in its full form."
  ^ServerConfig [handler opts]
  (ServerConfig/from (assoc opts
                            :access-log (access-log/full (:access-log opts))
                            :handler-mode (or (:handler-mode opts) (if (:async? opts) :event-loop :virtual))
                            :route-modes (route-modes handler opts)
                            :body-writer protocols/write-body
                            :websocket-listener websocket/kernel-listener)))

(defn start
  "Starts a server for the Ring `handler` and returns it once it listens. The
  server is java.io.Closeable (closing it is `stop`), so `with-open` works.
  Bad options throw an ex-info naming the key, the value and what is allowed
  (its data has :onager/error). So does an address it cannot listen on, as in
  \"cannot listen on 127.0.0.1:8080: address already in use\" (data
  {:onager/error :cannot-listen :host :port}), and a TLS certificate, key or
  trust store that cannot be used, naming the option and the file (data
  {:onager/error :invalid-tls :key :file}). A :transport that cannot load fails
  with {:onager/error :transport-unavailable :key :transport :value :cause
  :artifact}, one that a shared :vertx is not on with :transport-conflict.
  doc/tls.md shows TLS set-ups, doc/deployment.md transports, SO_REUSEPORT and
  Unix sockets. The options:"
  ^OnagerServer [handler opts]
  (when-not (ifn? handler)
    (throw (ex-info (str "The handler must be a function or a var, not " (pr-str handler))
                    {:onager/error :invalid-handler :value handler})))
  (let [;; A server on a Unix domain socket listens on no TCP port unless it is given one.
        opts (cond-> opts (and (map? opts) (:unix-socket opts) (not (contains? opts :port))) (assoc :port nil))
        validated (options/validate server-options/table opts server-options/foreign)]
    (tls-options/check opts validated)
    (OnagerServer/start handler (config handler validated))))

(alter-meta! #'start update :doc str "\n\n" (options/docstring-of server-options/table))

(defn stop
  "Stops `server` gracefully: it stops accepting connections, lets requests in
  flight finish for up to :shutdown-timeout-ms (their responses tell keep-alive
  clients to go), then closes every connection. A Vert.x instance given as
  :vertx stays open. Stopping twice does nothing. Returns nil."
  [^OnagerServer server]
  (.stop server))

(defn port
  "The port `server` listens on in clear text: the one the OS chose when :port
  was 0; -1 when :port was nil (TLS only)."
  [^OnagerServer server]
  (.port server))

(defn ssl-port
  "The port `server` listens on with TLS: the one the OS chose when :ssl-port
  was 0; -1 without :ssl-port."
  [^OnagerServer server]
  (.sslPort server))

(defn transport
  "The Netty transport `server` runs on: :epoll, :io-uring or :nio (:kqueue
  on a shared Vert.x instance built on it). See the :transport option."
  [^OnagerServer server]
  (keyword (.transport server)))

(defn vertx
  "The Vert.x instance `server` runs on: give it to `onager.client/client` as
  :vertx for a client that shares the server's event loops."
  [^OnagerServer server]
  (.vertx server))

(defn reload-ssl!
  "Reads the TLS certificates, keys and trust of `server` again from the files
  its options name (:ssl-cert, :ssl-key, :keystore, :ssl-ca, :truststore and
  the :sni entries'): connections accepted from now on get them, open ones keep
  theirs and are not dropped. When one cannot be used, throws the ex-info start
  would (naming the option and the file) and the server keeps the certificates
  it had. :ssl-reload-on-change? true does this whenever the files change.
  Returns nil."
  [^OnagerServer server]
  (.reloadTls server))
