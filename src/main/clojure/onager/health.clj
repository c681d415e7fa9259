(ns onager.health
  "Liveness and readiness checks for load balancers and orchestrators
  (Kubernetes probes, HAProxy's and nginx Plus's health checks).

    (require '[onager.health :as health])
    (def h (health/health {:checks {:database #(db-reachable?)}}))

    (def app
      (router [[\"/health/live\" {:get (health/live-handler h)}]
               [\"/health/ready\" {:get (health/ready-handler h)}]
               ...]))

    (server/start app {:health h :shutdown-delay-ms 5000 :shutdown-hook? true})

  Readiness says whether this instance should get traffic: its checks pass
  and its server is not stopping. Given to the server as :health, it fails
  with 503 from the moment `stop` begins (on SIGTERM too, with
  :shutdown-hook?), and the server goes on answering for :shutdown-delay-ms
  while load balancers notice, before it drains. Liveness says whether the
  process works at all: it runs only the :liveness-checks (none by default),
  and stays up while the server drains, so that an orchestrator does not
  kill a server that is stopping as asked.

  Both handlers answer with a JSON body naming each check, and
  Cache-Control: no-store:

    {\"status\":\"up\",\"checks\":{\"database\":\"up\"}}              200
    {\"status\":\"down\",\"checks\":{\"database\":\"down\"}}          503
    {\"status\":\"stopping\",\"checks\":{}}                       503"
  (:require [onager.health.options :as health-options]
            [onager.json :as json]
            [onager.options :as options])
  (:import [java.util.concurrent CompletableFuture ExecutionException TimeUnit TimeoutException]
           [java.util.concurrent.atomic AtomicBoolean]
           [onager.kernel.server LifecycleListener]
           [org.slf4j LoggerFactory]))

(set! *warn-on-reflection* true)

(def ^:private ^org.slf4j.Logger log (LoggerFactory/getLogger "onager.health"))

(defrecord Health [checks liveness-checks timeout-ms ^AtomicBoolean ready?]
  LifecycleListener
  (started [_] (.set ready? true))
  (stopping [_] (.set ready? false)))

(defn health
  "A health object: the checks behind `live-handler` and `ready-handler`, and
  the :health option of `onager.server/start`, which makes readiness follow
  the server. A check is a function of no arguments, called on a virtual
  thread of its own (so it may block) at each probe: it passes when it
  returns a truthy value, and fails when it returns nil or false, throws
  (logged at WARN on the onager.health logger), or takes longer than
  :timeout-ms. Bad options throw an ex-info naming the key, the value and
  what is allowed. The options:"
  [opts]
  (let [{:keys [checks liveness-checks timeout-ms]} (options/validate health-options/table opts)]
    ;; Ready until a server it was given to stops; a server sets it again when it starts.
    (->Health checks liveness-checks timeout-ms (AtomicBoolean. true))))

(alter-meta! #'health update :doc str "\n\n" (options/docstring-of health-options/table))

(defn- check-future
  "Runs the check `f` on a virtual thread: a CompletableFuture of whether it passed."
  ^CompletableFuture [f]
  (let [result (CompletableFuture.)]
    (.start (Thread/ofVirtual)
            ^Runnable (fn []
                        (try (.complete result (boolean (f)))
                             (catch Throwable t (.completeExceptionally result t)))))
    result))

(defn- outcome
  "\"up\" or \"down\" for the check `check-name` running as `running`, waiting until `deadline` (nanoTime)."
  [check-name ^CompletableFuture running deadline]
  (try
    (if (.get running (max 0 (- ^long deadline (System/nanoTime))) TimeUnit/NANOSECONDS) "up" "down")
    (catch TimeoutException _
      (.warn log "health check {} took longer than :timeout-ms" (name check-name))
      "down")
    (catch ExecutionException e
      (.warn log (str "health check " (name check-name) " failed") (.getCause e))
      "down")
    (catch InterruptedException _
      (.interrupt (Thread/currentThread))
      "down")))

(defn- run-checks
  "The status of each check in the map `checks`, run at once, all within `timeout-ms`."
  [checks timeout-ms]
  (let [deadline (+ (System/nanoTime) (* 1000000 (long timeout-ms)))
        running (mapv (fn [[k f]] [k (check-future f)]) checks)]
    (into (sorted-map) (for [[k r] running] [(name k) (outcome k r deadline)]))))

(defn- answer [status results]
  {:status (if (= "up" status) 200 503)
   :headers {"Content-Type" "application/json" "Cache-Control" "no-store"}
   :body (json/write {"status" status "checks" results})})

(defn- report [checks timeout-ms]
  (let [results (run-checks checks timeout-ms)]
    (answer (if (every? #{"up"} (vals results)) "up" "down") results)))

(defn- handler
  "A Ring handler, sync and async, answering with what `probe` returns. The
  async form runs it on a virtual thread: its checks may block, an event loop
  must not."
  [probe]
  (fn
    ([_] (probe))
    ([_ respond raise]
     (.start (Thread/ofVirtual)
             ^Runnable (fn [] (try (respond (probe)) (catch Throwable t (raise t))))))))

(defn ready?
  "False once a server given `health` as :health has begun to stop, until it
  (or another) starts with it; true otherwise. Runs no check."
  [health]
  (.get ^AtomicBoolean (:ready? health)))

(defn live-handler
  "A Ring handler (sync or async) for the liveness probe of `health`: 200 while
  every :liveness-checks passes (and at once when there are none), 503
  otherwise. It stays up while a server drains."
  [health]
  (let [{:keys [liveness-checks timeout-ms]} health]
    (handler #(report liveness-checks timeout-ms))))

(defn ready-handler
  "A Ring handler (sync or async) for the readiness probe of `health`: 503
  with status \"stopping\" once a server given `health` as :health has begun
  to stop; otherwise 200 while every :checks passes, 503 when one fails."
  [health]
  (let [{:keys [checks timeout-ms]} health]
    (handler #(if (ready? health) (report checks timeout-ms) (answer "stopping" (sorted-map))))))
