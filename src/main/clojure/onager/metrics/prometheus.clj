(ns onager.metrics.prometheus
  "What `onager.metrics` does with Micrometer's Prometheus registry, in a
  namespace of its own that imports its classes: `onager.metrics` loads it only
  once it knows they are on the class path."
  (:import [io.micrometer.core.instrument.distribution.pause NoPauseDetector]
           [io.micrometer.prometheusmetrics PrometheusConfig PrometheusMeterRegistry]))

(set! *warn-on-reflection* true)

(defn registry
  "A new PrometheusMeterRegistry with the default configuration, but no pause
  detector: Micrometer's default one updates shared state on every timer
  record, to correct histograms for pauses of the JVM."
  ^PrometheusMeterRegistry []
  (let [r (PrometheusMeterRegistry. PrometheusConfig/DEFAULT)]
    (.pauseDetector (.config r) (NoPauseDetector.))
    r))

(defn scrape
  "`registry`'s meters in the Prometheus text format 0.0.4."
  ^String [^PrometheusMeterRegistry registry]
  (.scrape registry))
