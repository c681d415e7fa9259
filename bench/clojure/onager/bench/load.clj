(ns onager.bench.load
  "The scenarios, and the load generators that drive them: wrk (HTTP/1.1, and
  HTTPS) and h2load (HTTP/2: h2c by prior knowledge, h2 over TLS by ALPN)."
  (:require [clojure.string :as str]
            [onager.bench.json :as json]
            [onager.bench.proc :as proc])
  (:import [java.util.concurrent TimeUnit]))

(set! *warn-on-reflection* true)

(def ^:private h2-servers
  "The servers of the HTTP/2, TLS, WebSocket and event-stream scenarios: raw
  Vert.x and the two modes the issues' bars are about (ring-jetty-adapter 1.8
  speaks neither h2 nor TLS, nor Ring 1.11's WebSockets), and the same two with
  :metrics when SERVER names them."
  #{"vertx" "onager-virtual" "onager-event-loop" "onager-virtual-metrics" "onager-event-loop-metrics"})

(defn- h2-scenario [id label path tls]
  {:id id :label label :path path :connections 64 :streams 16 :tool :h2load :tls tls :only h2-servers
   :doc (str "GET " path " over " (if tls (str "h2 (TLS, ALPN, " (name tls) ")") "h2c (prior knowledge)")
             ", 64 connections, 16 streams each")})

(defn- https-scenario [id label tls]
  {:id id :label label :path "/plaintext" :connections 64 :tls tls :only h2-servers
   :doc (str "GET /plaintext over HTTPS (HTTP/1.1, TLS " (name tls) "), 64 connections")})

(defn- ws-scenario [id label path connections mode]
  {:id id :label label :path path :connections connections :tool :ws :ws-mode mode :only h2-servers
   :doc (case mode
          "echo" (str "WebSocket " path ": each of " connections " connections sends a 32-byte text message and "
                      "waits for its echo; req/s are messages/s")
          "broadcast" (str "WebSocket " path ": " connections " members, one sends, each message goes to every "
                           "member (4 in flight); req/s are deliveries/s"))})

(defn- handshake-scenario [id label tls]
  {:id id :label label :path "/plaintext" :connections 32 :tls tls :close? true :only h2-servers
   :doc (str "GET /plaintext over HTTPS with Connection: close, a new TLS connection (" (name tls)
             ") per request, 32 at a time")})

(def ^:private transport-servers
  "The servers on other transports than the default's, which the plaintext
  scenarios also run: epoll against NIO and io_uring, for Onager and raw Vert.x."
  #{"onager-event-loop-nio" "onager-event-loop-io-uring" "vertx-nio" "vertx-io-uring"})

(def ^:private metrics-servers
  "The servers with :metrics on, which plaintext and JSON also run: what metrics cost."
  #{"onager-event-loop-metrics" "onager-virtual-metrics"})

(def scenarios
  "Every scenario, in report order. `:skip` names servers the scenario says
  nothing about (a blocking handler on the event loop stalls the loop by
  design); `:only`, when there, the servers it is run on; `:also`, the servers
  run on demand (servers/table) that a whole run gives it too. `:tool` is :wrk
  (the default), :h2load, :ws (onager.bench.ws.WsLoad in its `:ws-mode`) or
  :sse (onager.bench.sse.SseLoad); `:tls` the TLS provider (:jdk or :openssl) of a
  scenario on the TLS port; `:close?` sends Connection: close."
  [{:id "plaintext" :label "plaintext" :path "/plaintext" :connections 64
    :also (into transport-servers metrics-servers)
    :doc "GET /plaintext, 13 bytes, 64 connections, no pipelining"}
   {:id "pipelined" :label "plaintext, pipelined ×16" :path "/plaintext" :connections 64 :depth 16
    :also transport-servers
    :doc "the same, 16 requests per write (TechEmpower's pipeline.lua)"}
   {:id "json" :label "JSON" :path "/json" :connections 64 :also metrics-servers
    :doc "GET /json, {\"message\":\"Hello, World!\"} serialised per request with Jackson"}
   {:id "sleep" :label "50 ms blocking" :path "/sleep?ms=50" :connections 120
    :skip #{"onager-event-loop" "onager-event-loop-metrics"}
    :doc "GET /sleep?ms=50 at 120 connections: the ceiling is 2400 req/s"}
   {:id "download" :label "1 MiB download" :path "/download?size=1048576" :connections 16
    :doc "GET /download, a 1 MiB body generated as it is sent, 16 connections"}
   {:id "upload" :label "1 MiB upload" :path "/upload" :connections 16 :upload 1048576
    :doc "POST /upload with a 1 MiB body the server reads and checksums, 16 connections"}
   (h2-scenario "h2c-plaintext" "plaintext, h2c" "/plaintext" nil)
   (h2-scenario "h2c-json" "JSON, h2c" "/json" nil)
   (h2-scenario "h2-plaintext" "plaintext, h2 JDK" "/plaintext" :jdk)
   (h2-scenario "h2-plaintext-openssl" "plaintext, h2 OpenSSL" "/plaintext" :openssl)
   (h2-scenario "h2-json" "JSON, h2 JDK" "/json" :jdk)
   (h2-scenario "h2-json-openssl" "JSON, h2 OpenSSL" "/json" :openssl)
   (https-scenario "https-plaintext" "plaintext, HTTPS JDK" :jdk)
   (https-scenario "https-plaintext-openssl" "plaintext, HTTPS OpenSSL" :openssl)
   (handshake-scenario "tls-handshake" "TLS handshakes, JDK" :jdk)
   (handshake-scenario "tls-handshake-openssl" "TLS handshakes, OpenSSL" :openssl)
   (ws-scenario "ws-echo" "WebSocket echo" "/ws/echo" 64 "echo")
   (ws-scenario "ws-broadcast" "WebSocket broadcast" "/ws/room" 1000 "broadcast")
   {:id "sse" :label "server-sent events" :path "/sse/clock?interval-ms=100" :connections 1000 :tool :sse
    :only h2-servers
    :doc (str "1,000 subscribers of /sse/clock, an event every 100 ms each: the rate is the server's, "
              "CPU µs/req is CPU per event")}])

(defn by-id
  "The scenario `id` names, or nil."
  [id]
  (first (filter #(= id (:id %)) scenarios)))

(defn- url [scenario port]
  (str (if (:tls scenario) "https" "http") "://127.0.0.1:" port (:path scenario)))

(defn wrk-command
  "The wrk command line for `scenario` against `port` for `seconds`, wrk
  pinned to `cpus` with `threads` threads."
  [scenario port seconds {:keys [cpus threads]}]
  (vec (concat (proc/taskset-prefix cpus)
               ["wrk" "-t" (str threads) "-c" (str (:connections scenario))
                "-d" (str seconds "s") "--timeout" "10s"
                "-s" "bench/wrk/bench.lua"]
               (when (:close? scenario) ["-H" "Connection: close"])
               [(url scenario port)
                "--" (str (:depth scenario 1)) (str (:upload scenario 0))])))

(defn- run-reporter
  "Runs `cmd`, a load generator named `tool` that prints the JSON line of
  wrk's script (bench/wrk/bench.lua), for at most `seconds` and a minute.
  Returns that report (requests, errors, latency in µs) plus :rps; throws when
  the generator fails."
  [tool cmd seconds]
  (let [p (.start (doto (ProcessBuilder. ^java.util.List cmd) (.redirectErrorStream true)))
        out (slurp (.getInputStream p))]
    (when-not (.waitFor p (+ 60 (long seconds)) TimeUnit/SECONDS)
      (.destroyForcibly p)
      (throw (ex-info (str tool " did not finish: " (str/join " " cmd)) {:out out})))
    (let [line (last (filter #(str/starts-with? % "{") (str/split-lines out)))]
      (when (or (not (zero? (.exitValue p))) (nil? line))
        (throw (ex-info (str tool " failed (" (.exitValue p) "): " (str/join " " cmd) "\n" out) {:out out})))
      (let [r (json/read-str line)
            secs (/ (double (:duration_us r)) 1e6)]
        (assoc r
               :rps (/ (double (:requests r)) secs)
               :error-count (reduce + (vals (:errors r)))
               :non-2xx (get-in r [:errors :status]))))))

(defn run-wrk
  "Runs wrk for `scenario` against `port` for `seconds`: what its script
  reports plus :rps (run-reporter)."
  [scenario port seconds opts]
  (run-reporter "wrk" (wrk-command scenario port seconds opts) seconds))

(defn h2load-command
  "The h2load command line for `scenario` against `port` for `seconds`, pinned
  to `cpus` with `threads` threads: HTTP/2 by prior knowledge on http, by ALPN
  on https."
  [scenario port seconds {:keys [cpus threads]}]
  (vec (concat (proc/taskset-prefix cpus)
               ["h2load" "-t" (str threads) "-c" (str (:connections scenario)) "-m" (str (:streams scenario))
                "-D" (str seconds)
                (url scenario port)])))

(defn- h2load-figure [out re]
  (some-> (re-find re out) rest))

(defn run-h2load
  "Runs h2load for `scenario` against `port` for `seconds`. Returns the figures
  wrk's script gives (requests, errors, duration; h2load reports no latency
  percentiles, only the mean) plus :rps; throws when h2load fails."
  [scenario port seconds opts]
  (let [cmd (h2load-command scenario port seconds opts)
        p (.start (doto (ProcessBuilder. ^java.util.List cmd) (.redirectErrorStream true)))
        out (slurp (.getInputStream p))]
    (when-not (.waitFor p (+ 60 (long seconds)) TimeUnit/SECONDS)
      (.destroyForcibly p)
      (throw (ex-info (str "h2load did not finish: " (str/join " " cmd)) {:out out})))
    (let [[secs] (h2load-figure out #"finished in ([\d.]+)s")
          [done ok failed errored timeout] (h2load-figure out #"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored, (\d+) timeout")
          [s2xx] (h2load-figure out #"status codes: (\d+) 2xx")
          [mean unit] (h2load-figure out #"time for request:\s+\S+\s+\S+\s+([\d.]+)(us|ms|s)")]
      (when (or (not (zero? (.exitValue p))) (nil? secs) (nil? done))
        (throw (ex-info (str "h2load failed (" (.exitValue p) "): " (str/join " " cmd) "\n" out) {:out out})))
      (let [secs (parse-double secs)
            done (parse-long done)
            non-2xx (- done (parse-long s2xx))
            errors {:connect 0 :read 0 :write 0 :status non-2xx
                    :timeout (parse-long timeout)
                    :failed (+ (parse-long failed) (parse-long errored))}]
        {:requests done
         :duration_us (long (* secs 1e6))
         :errors errors
         :latency_us {:mean (when mean (* (parse-double mean) (case unit "us" 1 "ms" 1000 "s" 1000000)))}
         :rps (/ done secs)
         :error-count (reduce + (vals errors))
         :non-2xx non-2xx
         :ok (parse-long ok)}))))

(defn ws-command
  "The command line of the WebSocket load generator (onager.bench.ws.WsLoad,
  raw Vert.x's client) for `scenario` against `port` for `seconds`, pinned to
  `cpus`."
  [scenario port seconds {:keys [cpus]}]
  (vec (concat (proc/taskset-prefix cpus)
               [(str (System/getProperty "java.home") "/bin/java") "-XX:+UseSerialGC" "-Xmx512m"
                "--enable-native-access=ALL-UNNAMED"
                "-cp" (str (str/trim (slurp "target/classpath.txt")) ":target/bench-classes")
                "onager.bench.ws.WsLoad" "--port" (str port) "--path" (:path scenario)
                "--mode" (:ws-mode scenario) "--connections" (str (:connections scenario))
                "--seconds" (str seconds)])))

(defn sse-command
  "The command line of the server-sent event subscribers (onager.bench.sse.SseLoad)
  for `scenario` against `port` for `seconds`, pinned to `cpus`."
  [scenario port seconds {:keys [cpus]}]
  (vec (concat (proc/taskset-prefix cpus)
               [(str (System/getProperty "java.home") "/bin/java") "-XX:+UseSerialGC" "-Xmx512m"
                "--enable-native-access=ALL-UNNAMED"
                "-cp" (str (str/trim (slurp "target/classpath.txt")) ":target/bench-classes")
                "onager.bench.sse.SseLoad" "--port" (str port) "--path" (:path scenario)
                "--connections" (str (:connections scenario)) "--seconds" (str seconds)])))

(defn run-ws
  "Runs the WebSocket load generator, or the event-stream subscribers, for
  `scenario` against `port` for `seconds`: the figures wrk's script gives,
  messages or events counting as requests, plus :rps."
  [scenario port seconds opts]
  (if (= :sse (:tool scenario))
    (run-reporter "SseLoad" (sse-command scenario port seconds opts) seconds)
    (run-reporter "WsLoad" (ws-command scenario port seconds opts) seconds)))

(defn run-load
  "Runs `scenario`'s load generator for `seconds` against the server `handle`,
  on its TLS port when the scenario is a TLS one; returns its figures."
  [scenario handle seconds opts]
  (let [port (if (:tls scenario) (:ssl-port handle) (:port handle))]
    (case (:tool scenario)
      :h2load (run-h2load scenario port seconds opts)
      (:ws :sse) (run-ws scenario port seconds opts)
      (run-wrk scenario port seconds opts))))
