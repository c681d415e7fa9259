(ns onager.metrics.prometheus
  "What `onager.metrics` does with Micrometer's Prometheus registry, in a
  namespace of its own that imports its classes: `onager.metrics` loads it only
  once it knows they are on the class path."
  (:import [io.micrometer.prometheusmetrics PrometheusConfig PrometheusMeterRegistry]))

(set! *warn-on-reflection* true)

(defn registry
  "A new PrometheusMeterRegistry with the default configuration."
  ^PrometheusMeterRegistry []
  (PrometheusMeterRegistry. PrometheusConfig/DEFAULT))

(defn scrape
  "`registry`'s meters in the Prometheus text format 0.0.4."
  ^String [^PrometheusMeterRegistry registry]
  (.scrape registry))
