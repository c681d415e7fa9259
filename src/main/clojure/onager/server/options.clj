(ns onager.server.options
  "The options of `onager.server/start`: validation, defaults and documentation
  all come from `table`."
  (:require [clojure.string :as str]
            [onager.options :refer [int-in]]
            [onager.server.access-log :as access-log]
            [onager.server.tls-options :as tls-options]
            [onager.server.ws-options :as ws-options])
  (:import [io.vertx.core Vertx]
           [onager.kernel.config HandlerMode HandlerModes]
           [onager.kernel.server LifecycleListener]
           [onager.kernel.proxy TrustedProxies]))

(set! *warn-on-reflection* true)

(def ^:private cpus (.availableProcessors (Runtime/getRuntime)))

(def ^:private max-int Integer/MAX_VALUE)

(defn- meter-registry?
  "True when `x` is a Micrometer MeterRegistry, found by its classes' names: a
  class literal would load Micrometer (an optional dependency) with this
  namespace, even when no server asks for metrics."
  [x]
  (boolean (some #(= "io.micrometer.core.instrument.MeterRegistry" (.getName ^Class %))
                 (take-while some? (iterate #(.getSuperclass ^Class %) (class x))))))

(def handler-mode-spec
  "What a :handler-mode takes, here and in the router's options and route data:
  the keyword of a mode of HandlerMode, which maps each to the kernel's mode."
  {:key :handler-mode
   :valid? #(some? (HandlerMode/of %))
   :allowed (str "one of " (str/join ", " (map #(.-keyword ^HandlerMode %) (HandlerMode/values))))})

(def ^:private http-table
  "The server options but TLS's, in the order the docs show them."
  [{:key :host
    :default "0.0.0.0"
    :valid? #(and (string? %) (seq %))
    :allowed "a non-empty host name or IP address string"
    :doc "Address to listen on; \"0.0.0.0\" is every IPv4 interface, \"127.0.0.1\" only this machine."}
   {:key :port
    :default 8080
    :default-doc "8080; nil with :unix-socket"
    :valid? #(or (nil? %) ((int-in 0 65535) %))
    :allowed "an integer from 0 to 65535, or nil with :ssl-port or :unix-socket"
    :doc (str "TCP port to listen on in clear text; 0 binds a free port, which `onager.server/port` tells. "
              "nil: none, the server listens on :ssl-port or :unix-socket only.")}
   {:key :unix-socket
    :default nil
    :valid? #(or (nil? %) (and (string? %) (seq %)))
    :allowed "a file path string, or nil"
    :doc (str "Path of a Unix domain socket to listen on in clear text (HTTP/1.1, and h2c with :h2c?), as "
              "behind nginx's proxy_pass http://unix:/run/app.sock. It replaces the TCP :port, unless :port "
              "is given too. A socket file left at the path by a process that is gone is removed first "
              "(start fails when a process listens on it, or when the path is not a socket); stop removes "
              "the file. A request over it has :remote-addr \"unix:\" (the client's socket has no path) and "
              ":server-port -1. Works on every :transport (NIO through the JDK's Unix domain sockets).")}
   {:key :reuse-port?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: the TCP listening sockets (:port, :ssl-port) are opened with SO_REUSEPORT, so several "
              "processes can listen on the same port, the kernel spreading new connections over them (one "
              "process per core, or a new release starting beside the old one). Every socket on the port "
              "must set it, in processes of the same user. Needs a native transport (epoll or io_uring): "
              "start refuses it on NIO.")}
   {:key :event-loops
    :default cpus
    :default-doc "number of CPUs"
    :valid? (int-in 1 1024)
    :allowed "an integer from 1 to 1024"
    :doc (str "Event loops to run on, one listening server instance each; with :vertx, the "
              "instances to spread over that Vert.x instance's loops.")}
   (assoc handler-mode-spec
          :default nil
          :default-doc ":virtual (sync), :event-loop (async)"
          :doc (str "Where the handler runs: :virtual, a virtual thread per request (blocking code scales); "
                    ":event-loop, on the event loop (fastest, must never block; the request body is "
                    "received in full before the handler runs); :worker, a bounded pool of platform threads."))
   {:key :route-modes
    :default nil
    :default-doc "the handler, when it is a router"
    :valid? #(or (nil? %) (instance? HandlerModes %) (and (var? %) (instance? HandlerModes @%)))
    :allowed "a router made by onager.router/router, a var holding one, or nil"
    :doc (str "The router whose routes' :handler-mode the server follows: each request starts where its "
              "route says, before it runs. Give it when the handler is that router wrapped in middleware; "
              "a router given as the handler itself is found without it.")}
   {:key :worker-threads
    :default (* 2 cpus)
    :default-doc "2 × number of CPUs"
    :valid? (int-in 1 10000)
    :allowed "an integer from 1 to 10000"
    :doc "Size of the :worker pool; used only in :worker mode."}
   {:key :async?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc "True: the handler is a 3-arity Ring async handler (request respond raise)."}
   {:key :max-body
    :default (* 8 1024 1024)
    :default-doc "8388608 (8 MiB)"
    :valid? #(and (int? %) (pos? %))
    :allowed "a positive integer (bytes)"
    :doc "Largest request body; a longer one gets 413 and its read throws."}
   {:key :decompress-requests?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: a request body sent with Content-Encoding gzip or deflate reaches the handler "
              "decompressed, without its Content-Encoding and Content-Length headers; :max-body limits the "
              "decompressed size (a small body that inflates past it gets 413), and a body that is not valid "
              "gzip or deflate gets 400. Decompression happens as the handler reads, in its buffer.")}
   {:key :max-header-size
    :default 8192
    :valid? (int-in 256 max-int)
    :allowed "an integer from 256 to 2147483647 (bytes)"
    :doc "Largest request header section (request line excluded, trailers included); a larger one gets 431."}
   {:key :max-header-count
    :default 100
    :valid? (int-in 1 10000)
    :allowed "an integer from 1 to 10000"
    :doc "Most header fields (trailers included) a request may have; one with more gets 431."}
   {:key :max-uri-length
    :default 8192
    :valid? (int-in 16 (- max-int 1024))
    :allowed "an integer from 16 to 2147482623 (bytes)"
    :doc "Longest request URI; a longer one gets 414."}
   {:key :low-memory-percent
    :default 90
    :valid? (int-in 0 100)
    :allowed "an integer from 0 to 100; 0 disables it"
    :doc (str "While live objects may fill more than this percent of the heap (its use after the last garbage "
              "collection plus the request-body bytes read since, checked by a collection before it refuses), "
              "request bodies are not read further: a body read throws an IOException and the client gets 503. "
              "A handler reading a huge body into memory then lets go before the heap runs out for every "
              "thread.")}
   {:key :idle-timeout-ms
    :default 60000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 disables it"
    :doc (str "A connection that waits this long for its next request (counted from when its last "
              "response has gone out), or whose client takes no response bytes for this long, is closed. Time the handler takes does not count (see :request-timeout-ms).")}
   {:key :header-timeout-ms
    :default 10000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 disables it"
    :doc (str "Once a request head starts to arrive, all of it must arrive within this time, or the client "
              "gets 408 and the connection closes (slowloris). On HTTP/2, a header block (HEADERS and its "
              "CONTINUATION frames) must arrive whole within it, or the connection gets GOAWAY and closes.")}
   {:key :body-timeout-ms
    :default 30000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 disables it"
    :doc (str "Longest a request body may stall, no byte arriving while the server reads it; then the client "
              "gets 408, the handler's read throws an IOException and the connection closes (on HTTP/2, the "
              "stream is reset and the connection's other streams go on).")}
   {:key :request-timeout-ms
    :default 60000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 disables it"
    :doc (str "Longest a handler may take to answer (return, or call respond) once it has the request "
              "(time its client spends sending the body does not count); then the client gets 503, the "
              "connection closes (on HTTP/2, the stream ends; the connection's other streams go on) and the "
              "handler's late answer is dropped. Streaming an answered body is not limited. "
              "Checked every twentieth of it (5 ms to 1 s): the 503 never comes early, and comes at most a tenth of it late (10 ms under 100 ms).")}
   {:key :shutdown-timeout-ms
    :default 30000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647"
    :doc "How long `stop` lets requests in flight finish before it closes their connections."}
   {:key :shutdown-delay-ms
    :default 0
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647"
    :doc (str "How long `stop` goes on serving as before once it has told the :health listener, so that "
              "load balancers polling the readiness check stop sending before the server stops accepting. "
              "Give it the probe's period times its failure threshold (Kubernetes: periodSeconds × "
              "failureThreshold), plus a little.")}
   {:key :shutdown-idle-ms
    :default 1000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 closes them at once"
    :doc (str "Once `stop` drains, how long an HTTP/1.1 connection waiting for its next request stays "
              "open before it closes: a request a client or load balancer already sent down it is "
              "answered, with Connection: close, instead of meeting a closed connection (a POST lost "
              "that way is never retried).")}
   {:key :health
    :default nil
    :valid? #(or (nil? %) (instance? LifecycleListener %))
    :allowed "nil, or a health object made by onager.health/health"
    :doc (str "A health object (onager.health/health) whose readiness check follows the server: ready "
              "once it listens, 503 as soon as `stop` begins (before :shutdown-delay-ms).")}
   {:key :shutdown-hook?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: a JVM shutdown hook (run on SIGTERM, SIGINT or System/exit) stops the server as `stop` "
              "does, letting requests in flight finish; `stop` removes the hook. While it is there, SIGTERM "
              "exits the JVM with status 0 once the hooks have run, not the JVM's 143, as process managers "
              "expect of a stop they asked for. For a `-main` under a process manager or in a container.")}
   {:key :h2c?
    :default true
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: the clear-text port also speaks HTTP/2 to a client that opens with the HTTP/2 connection "
              "preface (h2c by prior knowledge, RFC 9113 §3.3), as curl --http2-prior-knowledge and h2load do. "
              "Safe on: only a client that means HTTP/2 sends the preface, and no proxy passes it on as "
              "HTTP/1.1.")}
   {:key :h2c-upgrade?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: an HTTP/1.1 request with Upgrade: h2c and HTTP2-Settings (RFC 7540 §3.2) is answered "
              "with 101 Switching Protocols and the connection goes on in HTTP/2, the request as its stream 1. "
              "Off by default: behind a reverse proxy that passes Upgrade headers on, a client could open an "
              "h2c connection through the proxy and send requests its access rules never see (h2c "
              "smuggling). Turn it on only where clients reach the server directly.")}
   {:key :http2-max-concurrent-streams
    :default 100
    :valid? (int-in 1 10000)
    :allowed "an integer from 1 to 10000"
    :doc (str "Most streams (requests) an HTTP/2 connection may have open at once "
              "(SETTINGS_MAX_CONCURRENT_STREAMS); one more is refused with REFUSED_STREAM.")}
   {:key :http2-initial-window-size
    :default 65535
    :valid? (int-in 1024 max-int)
    :allowed "an integer from 1024 to 2147483647 (bytes)"
    :doc (str "How far an HTTP/2 client may send a request body ahead of the handler reading it, per stream "
              "(SETTINGS_INITIAL_WINDOW_SIZE): a handler reading slowly holds back the client, not the heap. "
              "A request body arrives within it before the server asks for more.")}
   {:key :http2-connection-window-size
    :default (* 1024 1024)
    :default-doc "1048576 (1 MiB)"
    :valid? (int-in 65535 max-int)
    :allowed "an integer from 65535 to 2147483647 (bytes)"
    :doc "The same as :http2-initial-window-size for all the streams of one connection together."}
   {:key :http2-max-frame-size
    :default 16384
    :valid? (int-in 16384 16777215)
    :allowed "an integer from 16384 to 16777215 (bytes)"
    :doc "Largest HTTP/2 frame payload the server takes (SETTINGS_MAX_FRAME_SIZE)."}
   {:key :http2-header-table-size
    :default 4096
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647 (bytes)"
    :doc (str "Size of the HPACK table an HTTP/2 client may fill on the server (SETTINGS_HEADER_TABLE_SIZE). "
              "The decoded header list is bounded by :max-header-size (SETTINGS_MAX_HEADER_LIST_SIZE), "
              "whatever HPACK compressed it to.")}
   {:key :http2-max-resets
    :default 200
    :valid? (int-in 1 max-int)
    :allowed "an integer from 1 to 2147483647"
    :doc (str "Most streams an HTTP/2 client may reset (RST_STREAM), or have reset by sending bad frames, "
              "within :http2-reset-window-seconds; beyond, the connection is cut (rapid reset, CVE-2023-44487 "
              "and CVE-2025-55163).")}
   {:key :http2-reset-window-seconds
    :default 30
    :valid? (int-in 1 86400)
    :allowed "an integer from 1 to 86400"
    :doc "The window of :http2-max-resets."}
   {:key :http2-max-small-continuations
    :default 16
    :valid? (int-in 1 10000)
    :allowed "an integer from 1 to 10000"
    :doc (str "Most CONTINUATION frames with little in them one HTTP/2 header block may have; beyond, the "
              "connection is cut (CONTINUATION flood). The header block's size is bounded by :max-header-size.")}
   {:key :http2-max-empty-data-frames
    :default 2
    :valid? (int-in 1 10000)
    :allowed "an integer from 1 to 10000"
    :doc "Most DATA frames without data an HTTP/2 stream may send in a row; beyond, the connection is cut."}
   {:key :http2-max-queued-control-frames
    :default 10000
    :valid? (int-in 1 max-int)
    :allowed "an integer from 1 to 2147483647"
    :doc (str "Most control frames the server may have waiting for an HTTP/2 client that does not read them "
              "(answers to its SETTINGS and PING); beyond, the connection is cut.")}
   {:key :http2-max-control-frames-per-second
    :default 500
    :valid? (int-in 1 max-int)
    :allowed "an integer from 1 to 2147483647"
    :doc (str "Most SETTINGS, PING and PRIORITY frames an HTTP/2 client may send in a second; beyond, the "
              "connection is cut with GOAWAY ENHANCE_YOUR_CALM (SETTINGS, PING and PRIORITY floods).")}
   {:key :trusted-proxies
    :default nil
    :valid? #(nil? (TrustedProxies/problem %))
    :explain #(TrustedProxies/problem %)
    :allowed "a collection of IP address and CIDR range strings (IPv4 or IPv6), or nil"
    :doc (str "The proxies (load balancers, reverse proxies) whose Forwarded (RFC 7239) and X-Forwarded-For, "
              "-Proto, -Host and -Port headers the request map believes, as [\"127.0.0.1\" \"10.0.0.0/8\" \"::1\"]: "
              "on a connection from one of them, :remote-addr, :scheme, :server-name and :server-port are what "
              "the headers say; from anyone else the headers are only headers. nil: nobody is trusted. "
              "See doc/deployment.md, \"Behind a proxy\".")}
   {:key :proxy-protocol?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: every connection, on both listeners, begins with a PROXY protocol header (v1 or v2, as "
              "HAProxy's send-proxy and send-proxy-v2 write; before the TLS handshake on :ssl-port), whose "
              "source address is then :remote-addr; one without a valid header within :header-timeout-ms is "
              "closed. Needs io.netty/netty-codec-haproxy on the class path. Only behind a proxy that sends it: "
              "any client could otherwise say who it is.")}
   {:key :server-header
    :default "Onager"
    :valid? #(or (nil? %) (false? %)
                 (and (string? %) (seq %) (every? (fn [c] (<= 0x20 (int c) 0x7e)) %)))
    :allowed "a non-empty string of printable ASCII, or nil/false to send none"
    :doc "Value of the Server response header (a handler's own Server header wins)."}
   {:key :access-log
    :default nil
    :valid? access-log/valid?
    :allowed access-log/allowed
    :doc (str "One line per request, logged at INFO to the SLF4J logger \"onager.access\" (or :logger) off "
              "the event loop: :common (NCSA Common Log Format), :combined (with Referer and User-Agent), or "
              ":json (one object per line, of :fields). :fields after :common or :combined add fields at the "
              "end of the line. No body, credential or cookie is ever logged. When :queue-size records wait, "
              "more are dropped and counted (a WARN of onager.server). nil: off. See doc/logging.md.")}
   {:key :request-id-header
    :default nil
    :valid? #(or (nil? %) (access-log/header-name? %))
    :allowed (str "nil or a header name (a token) other than "
                  (str/join ", " (sort access-log/secret-headers)))
    :doc (str "The request header whose value (visible ASCII, at most 200 characters) is the request's id, "
              ":onager/request-id in the request map and :request-id in the access log; a request without "
              "a usable one gets an id made by the server. nil: every id is made. With this option or "
              ":access-log the request map has :onager/request-id; with neither it has not, and costs nothing.")}
   {:key :metrics
    :default nil
    :valid? #(or (nil? %) (meter-registry? %))
    :allowed "an io.micrometer.core.instrument.MeterRegistry (io.micrometer/micrometer-core), or nil"
    :doc (str "A Micrometer MeterRegistry the server's meters go to: requests timed by route template, "
              "method and status (http.server.requests), requests active, connections, bytes, refusals by "
              "limit, WebSockets, virtual threads, event-loop delay, and the JVM's. "
              "`onager.metrics/prometheus-registry` makes one, `onager.metrics/prometheus-handler` serves it "
              "to Prometheus. Needs io.micrometer/micrometer-core (and micrometer-registry-prometheus for "
              "Prometheus) on the class path; nil: off, and no Micrometer class is loaded. See doc/metrics.md.")}
   {:key :metrics-histogram?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: http.server.requests is Micrometer's Timer, publishing a percentile histogram "
              "(Prometheus buckets, for histogram_quantile), about 70 more time series per route, method "
              "and status, and configurable by MeterFilters. False: each event loop counts in fields of "
              "its own, published as a function timer and a max gauge: the same count, sum and max series.")}
   {:key :metrics-jvm?
    :default true
    :valid? boolean?
    :allowed "true or false"
    :doc (str "With :metrics, also bind Micrometer's JVM meters (memory, GC, threads, class loading, "
              "CPU) and Netty's pooled allocator's. false when the application binds its own.")}
   {:key :transport
    :default :auto
    :valid? #{:auto :epoll :io-uring :nio}
    :allowed ":auto, :epoll, :io-uring or :nio"
    :doc (str "Netty's I/O transport. :auto: epoll on Linux (kqueue on macOS, when its jar is on the class "
              "path), else NIO. :epoll; :io-uring, which needs io.netty/netty-transport-native-io_uring with "
              "the platform's classifier on the class path; :nio, the JDK's. One that cannot load fails "
              "start, saying why. With :vertx the server runs on that instance's transport, and another one "
              "named here fails start. `onager.server/transport` tells which one runs, as does the start's "
              "log line.")}
   {:key :vertx
    :default nil
    :valid? #(or (nil? %) (instance? Vertx %))
    :allowed "an io.vertx.core.Vertx instance, or nil"
    :doc (str "Run on this Vert.x instance instead of a new one; `stop` then leaves it open. The server "
              "runs on the instance's transport (see :transport).")}])

(def table
  "The server options, in the order the docs show them, the WebSocket ones
  (`onager.server.ws-options`) then the TLS ones (`onager.server.tls-options`)
  last. See `onager.options`."
  (-> http-table (into ws-options/table) (into tls-options/table)))

(def foreign
  "Options other Ring adapters take that `start` does not, each with what to do
  instead, for the message that refuses it (see `onager.options/validate`)."
  (merge
   {:join? (str "Onager's start never blocks (ring-jetty's :join? true did): drop :join?, "
                "and keep the server, (def s (server/start ...)), to stop it with (server/stop s).")}
   ws-options/foreign
   tls-options/foreign))
