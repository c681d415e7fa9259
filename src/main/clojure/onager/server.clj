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
            [onager.server.options :as server-options])
  (:import [io.vertx.core Vertx]
           [onager.kernel.server HandlerMode HandlerModes OnagerServer ServerConfig]))

(set! *warn-on-reflection* true)

(def ^:private modes
  {:virtual HandlerMode/VIRTUAL
   :event-loop HandlerMode/EVENT_LOOP
   :worker HandlerMode/WORKER})

(defn- route-modes
  "What tells the server each route's handler mode: the :route-modes option, or
  else the handler when it is a router or a var holding one (then followed as
  the var changes), or nil."
  ^HandlerModes [handler opts]
  (let [r (or (:route-modes opts) handler)]
    (cond
      (instance? HandlerModes r) r
      (and (var? r) (instance? HandlerModes @r)) (HandlerModes/following r))))

(defn- config ^ServerConfig [handler opts]
  (let [{:keys [host port event-loops handler-mode worker-threads async? max-body max-header-size
                max-header-count low-memory-percent decompress-requests? max-uri-length idle-timeout-ms header-timeout-ms body-timeout-ms
                request-timeout-ms shutdown-timeout-ms shutdown-hook? server-header vertx]} opts
        mode (or handler-mode (if async? :event-loop :virtual))]
    (-> (ServerConfig/builder)
        (.host host)
        (.port port)
        (.eventLoops event-loops)
        (.handlerMode (modes mode))
        (.workerThreads worker-threads)
        (.async async?)
        (.maxBody max-body)
        (.maxHeaderSize max-header-size)
        (.maxUriLength max-uri-length)
        (.maxHeaderCount max-header-count)
        (.lowMemoryPercent low-memory-percent)
        (.decompressRequests decompress-requests?)
        (.idleTimeoutMs idle-timeout-ms)
        (.headerTimeoutMs header-timeout-ms)
        (.bodyTimeoutMs body-timeout-ms)
        (.requestTimeoutMs request-timeout-ms)
        (.shutdownTimeoutMs shutdown-timeout-ms)
        (.shutdownHook shutdown-hook?)
        (.serverHeader (when server-header server-header))
        (.vertx ^Vertx vertx)
        (.bodyWriter protocols/write-body)
        (.routeModes (route-modes handler opts))
        (.build))))

(defn start
  "Starts a server for the Ring `handler` and returns it once it listens. The
  server is java.io.Closeable (closing it is `stop`), so `with-open` works.
  Bad options throw an ex-info naming the key, the value and what is allowed
  (its data has :onager/error). So does an address it cannot listen on, as in
  \"cannot listen on 127.0.0.1:8080: address already in use\" (data
  {:onager/error :cannot-listen :host :port}). The options:"
  ^OnagerServer [handler opts]
  (when-not (ifn? handler)
    (throw (ex-info (str "The handler must be a function or a var, not " (pr-str handler))
                    {:onager/error :invalid-handler :value handler})))
  (OnagerServer/start handler (config handler (options/validate server-options/table opts server-options/foreign))))

(alter-meta! #'start update :doc str "\n\n" (options/docstring server-options/table))

(defn stop
  "Stops `server` gracefully: it stops accepting connections, lets requests in
  flight finish for up to :shutdown-timeout-ms (their responses tell keep-alive
  clients to go), then closes every connection. A Vert.x instance given as
  :vertx stays open. Stopping twice does nothing. Returns nil."
  [^OnagerServer server]
  (.stop server))

(defn port
  "The port `server` listens on: the one the OS chose when :port was 0."
  [^OnagerServer server]
  (.port server))
