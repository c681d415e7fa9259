(ns onager.router.options
  "The options of `onager.router/router`: validation, defaults and documentation
  all come from `table`.")

(set! *warn-on-reflection* true)

(defn middleware-item?
  "True for what a :middleware vector holds: a function of a handler, or a
  vector of one and its further arguments."
  [m]
  (or (and (ifn? m) (not (coll? m)) (not (keyword? m)) (not (symbol? m)))
      (and (vector? m) (seq m) (not (coll? (first m))) (middleware-item? (first m)))))

(defn middleware?
  "True for a :middleware value: a vector of middleware items, or nil."
  [v]
  (or (nil? v) (and (vector? v) (every? middleware-item? v))))

(def handler-modes
  "The handler modes a route may ask for."
  #{:virtual :event-loop :worker})

(def table
  "The router options, in the order the docs show them. See `onager.options`."
  [{:key :middleware
    :default []
    :valid? middleware?
    :allowed "a vector of middleware: functions of a handler, or vectors [function & more-args]"
    :doc (str "Middleware around every route's handler, outside the routes' own; the first is the outermost. "
              "It runs only for requests a route takes, after matching.")}
   {:key :handler-mode
    :default nil
    :default-doc "nil (the server's)"
    :valid? #(or (nil? %) (handler-modes %))
    :allowed "one of :virtual, :event-loop, :worker, or nil"
    :doc (str "Where the handlers of routes that do not choose run, on Onager; nil leaves it to the "
              "server's :handler-mode.")}
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
