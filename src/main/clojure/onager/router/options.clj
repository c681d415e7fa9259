(ns onager.router.options
  "The options of `onager.router/router` and the keys of its route data:
  validation, defaults and documentation all come from `table`,
  `route-data-table` and `endpoint-table`."
  (:require [clojure.string :as str]
            [onager.server.options :as server-options]))

(set! *warn-on-reflection* true)

(defn handler?
  "True for what may be a route's handler: a function, or a var or other
  non-collection that can be called (not a keyword or symbol, which are
  functions of maps)."
  [h]
  (and (ifn? h) (not (coll? h)) (not (keyword? h)) (not (symbol? h))))

(defn middleware-item?
  "True for what a :middleware vector holds: a function of a handler, or a
  vector of one and its further arguments."
  [m]
  (or (handler? m)
      (and (vector? m) (seq m) (not (coll? (first m))) (middleware-item? (first m)))))

(defn middleware?
  "True for a :middleware value: a vector of middleware items, or nil."
  [v]
  (or (nil? v) (and (vector? v) (every? middleware-item? v))))

(def ^:private middleware-allowed
  "a vector of middleware: functions of a handler, or vectors [function & more-args]")

(def table
  "The router options, in the order the docs show them. See `onager.options`."
  [{:key :middleware
    :default []
    :valid? middleware?
    :allowed middleware-allowed
    :doc (str "Middleware around every route's handler, outside the routes' own; the first is the outermost. "
              "It runs only for requests a route takes, after matching.")}
   (assoc server-options/handler-mode-spec
          :default nil
          :default-doc "nil (the server's)"
          :valid? #(or (nil? %) ((:valid? server-options/handler-mode-spec) %))
          :allowed (str (:allowed server-options/handler-mode-spec) ", or nil")
          :doc (str "Where the handlers of routes that do not choose run, on Onager; nil leaves it to the "
                    "server's :handler-mode."))
   {:key :not-found
    :default nil
    :default-doc "nil (a plain 404)"
    :valid? #(or (nil? %) (and (ifn? %) (not (map? %))))
    :allowed "a Ring handler (both arities if the router is used async), or nil"
    :doc (str "Handles requests whose path no route matches, or that a :mount answers with nil, instead "
              "of the plain 404: another app to fall back to, or a 404 page (JSON for an API).")}
   {:key :method-not-allowed
    :default nil
    :default-doc "nil (a plain 405)"
    :valid? #(or (nil? %) (and (ifn? %) (not (map? %))))
    :allowed "a Ring handler (both arities if the router is used async), or nil"
    :doc (str "Handles requests whose path a route matches but not their method, instead of the plain "
              "405 (JSON for an API). The router adds the route's Allow header to its response unless "
              "it has one (RFC 9110 §15.5.6). OPTIONS is still answered with 204 and Allow.")}
   {:key :reject-overlaps?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: also fail when two routes of different shapes can match one path with one method "
              "(\"/users/new\" and \"/users/:id\"). By default the most specific wins, segment by segment "
              "from the left: static text, then a :param, then a *catch-all.")}])

(def endpoint-table
  "The keys of a method's map in route data, {:handler h :middleware [...]
  :handler-mode m}, in the order the docs show them. See `onager.options`."
  [{:key :handler
    :valid? handler?
    :allowed "a Ring handler"
    :doc "The method's handler; required."}
   {:key :middleware
    :valid? middleware?
    :allowed middleware-allowed
    :doc "Middleware for this method's handler, inside the route's."}
   (assoc server-options/handler-mode-spec
          :default-doc "the route's"
          :doc "Where this method's handler runs on Onager.")])

(def ^:private method-names
  [:get :head :post :put :patch :delete :options :trace :connect])

(def method-keys
  "The route data keys that name a handler for a method, :any included."
  (conj (set method-names) :any))

(def route-data-table
  "The keys of a route's data map, in the order the docs show them. See
  `onager.options`."
  (into (vec (for [m (conj method-names :any)]
               {:key m
                :valid? #(or (handler? %) (map? %))
                :allowed (str "a Ring handler, or a map of " (str/join ", " (map :key endpoint-table)))
                :doc (case m
                       :any "The handler for every method the route does not name."
                       :head "The handler for HEAD; without one, HEAD goes to the :get handler."
                       (str "The handler for " (str/upper-case (name m)) "."))}))
        [{:key :middleware
          :default []
          :valid? middleware?
          :allowed middleware-allowed
          :doc "Middleware for this route and its children, outside theirs; the first is the outermost."}
         (assoc server-options/handler-mode-spec
                :default-doc "the parent route's, else the router's"
                :doc "Where this route's handlers, and its children's, run on Onager.")
         {:key :mount
          :valid? handler?
          :allowed "a Ring handler"
          :doc (str "Takes every request for this path and below, whatever the method, with :context and "
                    ":path-info set as compojure's context sets them; a router mounted so matches :path-info. "
                    "A compojure app, another router, any Ring handler. Goes without method handlers.")}
         {:key :strip-prefix?
          :default false
          :valid? boolean?
          :allowed "true or false"
          :doc "With :mount: also set :uri to the path below the prefix, for handlers that route on :uri alone."}]))
