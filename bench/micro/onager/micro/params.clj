(ns onager.micro.params
  "Query-parameter parsing: onager.middleware/wrap-params against ring-core
  1.8's wrap-params, each wrapping a handler that returns the request."
  (:require [onager.middleware :as mw]
            [ring.middleware.params :as ring-params]))

(set! *warn-on-reflection* true)

(defn- request [query-string]
  {:request-method :get :uri "/search" :scheme :http :headers {"host" "localhost"} :query-string query-string})

(def ^:private cases
  "A listing with filters (a repeated key, a + and an escape), a search in
  UTF-8 text, and a single id."
  [["typical" "q=clojure+web+server&page=2&sort=desc&tags=http&tags=ring&tags=json&lang=en%2Dus&limit=50"]
   ["encoded" "q=caf%C3%A9+cr%C3%A8me+br%C3%BBl%C3%A9e&city=S%C3%A3o+Paulo&near=48.85%2C2.35&page=1"]
   ["one parameter" "id=42"]])

(defn benchmarks
  "The comparisons, for onager.micro.main."
  []
  (let [ours (mw/wrap-params identity)
        ring (ring-params/wrap-params identity)]
    (vec (for [[label qs] cases
               :let [req (request qs)]]
           {:id (str "params/" label)
            :title (str "query params, " label " (" (count qs) " chars)")
            :candidates [{:name "onager" :f #(ours req)}
                         {:name "ring-core 1.8" :f #(ring req)}]
            :same (fn [r] (select-keys r [:query-params :form-params :params]))
            :target {:peer "ring-core 1.8" :at-least 8.0}}))))
