(ns onager.metrics
  "Metrics for Prometheus, with Micrometer (an optional dependency: add
  io.micrometer/micrometer-core and io.micrometer/micrometer-registry-prometheus,
  version 1.16 or newer, to your project).

    (require '[onager.metrics :as metrics]
             '[onager.server :as server])

    (def registry (metrics/prometheus-registry))

    (server/start (router/router [[\"/metrics\" {:get (metrics/prometheus-handler registry)}]
                                  [\"/users/:id\" {:get show-user}]])
                  {:metrics registry})

  The server's :metrics option takes any Micrometer MeterRegistry; doc/metrics.md
  lists every meter, its tags, and what metrics cost. This namespace loads no
  Micrometer class until one of its functions is called, and a function called
  without Micrometer on the class path throws an ex-info naming the artifact.")

(set! *warn-on-reflection* true)

(def ^:private content-type
  "The Prometheus text exposition format the handler serves."
  "text/plain; version=0.0.4; charset=utf-8")

(defn- present?
  "True when the class named `class-name` can be loaded here (without initialising it)."
  [class-name]
  (try
    (Class/forName class-name false (.getContextClassLoader (Thread/currentThread)))
    true
    (catch ClassNotFoundException _
      (try (Class/forName class-name) true (catch ClassNotFoundException _ false)))))

(defn- need-prometheus!
  "Throws an ex-info naming the artifacts to add unless Micrometer's Prometheus
  registry is on the class path."
  [what]
  (doseq [[class-name artifact] [["io.micrometer.core.instrument.MeterRegistry" "io.micrometer/micrometer-core"]
                                 ["io.micrometer.prometheusmetrics.PrometheusMeterRegistry"
                                  "io.micrometer/micrometer-registry-prometheus"]]]
    (when-not (present? class-name)
      (throw (ex-info (str what " needs " artifact " (1.16 or newer) on the class path: add it to your "
                           "project's dependencies (it is optional in Onager's).")
                      {:onager/error :missing-dependency :artifact artifact :class class-name})))))

(defn- prometheus-registry?
  "True when `x` is a Micrometer PrometheusMeterRegistry (of micrometer-registry-prometheus 1.13 or newer)."
  [x]
  (boolean (some #(= "io.micrometer.prometheusmetrics.PrometheusMeterRegistry" (.getName ^Class %))
                 (take-while some? (iterate #(.getSuperclass ^Class %) (class x))))))

(defn prometheus-registry
  "A new Micrometer PrometheusMeterRegistry with Prometheus's default
  configuration (a one-minute step for the max of timers) and no pause
  detector (Micrometer's default one, which corrects histograms for the JVM's
  pauses, costs a contended update on every request), for the server's
  :metrics option and `prometheus-handler`. Register your own meters in it as
  well; common tags (an application or instance name) go in with
  `(.commonTags (.config registry) ...)` before the server starts.

  Throws an ex-info with :onager/error :missing-dependency and the :artifact to
  add when io.micrometer/micrometer-registry-prometheus is not on the class path."
  []
  (need-prometheus! "onager.metrics/prometheus-registry")
  ((requiring-resolve 'onager.metrics.prometheus/registry)))

(defn prometheus-handler
  "A Ring handler (sync and async arities) that answers every request with
  `registry`'s meters in the Prometheus text format (Content-Type
  text/plain; version=0.0.4), for Prometheus to scrape: route it at /metrics,
  with :handler-mode :virtual or :worker when the registry is large, since a
  scrape formats every time series (a few milliseconds for a few thousand).

  `registry` is a Micrometer PrometheusMeterRegistry (see `prometheus-registry`);
  another kind of registry, or none, gives an ex-info with :onager/error
  :invalid-registry at once. Without micrometer-registry-prometheus on the class
  path, an ex-info with :onager/error :missing-dependency names it."
  [registry]
  (need-prometheus! "onager.metrics/prometheus-handler")
  (when-not (prometheus-registry? registry)
    (throw (ex-info (str "onager.metrics/prometheus-handler needs an "
                         "io.micrometer.prometheusmetrics.PrometheusMeterRegistry, not "
                         (if (nil? registry) "nil" (str "a " (.getName (class registry))))
                         " (make one with onager.metrics/prometheus-registry).")
                    {:onager/error :invalid-registry :value registry})))
  (let [scrape (requiring-resolve 'onager.metrics.prometheus/scrape)
        answer (fn [] {:status 200
                       :headers {"content-type" content-type "cache-control" "no-store"}
                       :body (scrape registry)})]
    (fn metrics-handler
      ([_request] (answer))
      ([_request respond raise]
       (let [response (try (answer) (catch Throwable t (raise t) nil))]
         (when response (respond response)))))))
