(ns onager.bench.json
  "JSON in and out through Jackson, which the project already carries."
  (:require [clojure.walk :as walk])
  (:import [com.fasterxml.jackson.databind ObjectMapper SerializationFeature]
           [java.util List Map]))

(set! *warn-on-reflection* true)

(def ^:private ^ObjectMapper mapper
  (doto (ObjectMapper.) (.enable SerializationFeature/INDENT_OUTPUT)))

(defn- ->clj [x]
  (cond
    (instance? Map x) (into {} (map (fn [[k v]] [(keyword k) (->clj v)])) x)
    (instance? List x) (mapv ->clj x)
    :else x))

(defn read-str
  "Parses JSON text; object keys become keywords."
  [^String s]
  (->clj (.readValue mapper s Object)))

(defn- ->json [x]
  (walk/postwalk
   (fn [v]
     (cond
       (keyword? v) (if-let [n (namespace v)] (str n "/" (name v)) (name v))
       (ratio? v) (double v)
       (set? v) (vec (sort v))
       :else v))
   x))

(defn write-str
  "Indented JSON text of `x` (maps, vectors, strings, numbers, keywords as
  their names)."
  ^String [x]
  (.writeValueAsString mapper (->json x)))
