(ns onager.router
  "Routes as data, matched by a trie in the kernel.

    (require '[onager.router :as router])

    (def app
      (router/router
       [[\"/users/:id\" {:get show-user :put update-user}]
        [\"/files/*path\" {:get serve-file}]
        [\"/api\" {:middleware [wrap-auth]}
         [\"/items\" {:get list-items :post {:handler add-item :handler-mode :worker}}]]
        [\"/legacy\" {:mount compojure-app}]]))

  A route is a vector: a path, then optionally a map of route data, then child
  routes, whose paths are appended to it. A path is made of segments: static
  text, `:name` (one non-empty segment) or a final `*name` (the rest of the path,
  slashes included, possibly empty). The matched parameters reach the handler as
  `:path-params`, keyword keys, string values, percent-decoded once.

  Route data names a handler per method (:get, :post... and :any for the rest),
  or a :mount for a whole subtree, with :middleware and :handler-mode for the
  route and its children; `router`'s docstring lists every key.

  The router answers by itself what no handler takes: 404 when no route matches
  the path (or a :mount answers nil, as a compojure app does when none of its
  routes match), 405 with an Allow header when a route matches it but takes
  neither the method nor :any, and OPTIONS with 204 and Allow; the options
  :not-found and :method-not-allowed replace the 404 and the 405. HEAD goes to
  the GET handler when the route has no HEAD one (servers send no body for
  HEAD).

  When several routes match a path, the most specific wins, segment by segment
  from the left: static text, then a parameter, then a catch-all. Routes that
  match exactly the same paths for the same method fail at start-up, with an
  ex-info naming both (see :reject-overlaps? for stricter checking)."
  (:require [clojure.string :as str]
            [onager.options :as options]
            [onager.router.options :as router-options])
  (:import [clojure.lang Keyword]
           [onager.kernel.router Router RouterBuilder]
           [onager.kernel.config HandlerMode]))

(set! *warn-on-reflection* true)

(defn- fail [path message data]
  (throw (ex-info (str "Invalid route " (pr-str path) ": " message)
                  (merge data {:onager/error :invalid-route :path path}))))

(defn- check
  "Fails unless `table` takes every entry of the map `m`, with a message naming
  the key (a `noun`), the value and what is allowed."
  [path table m noun]
  (when-let [{:keys [message data]} (options/refusal table m {} noun)]
    (fail path message data)))

(defn- check-data [path data]
  (when-not (map? data)
    (fail path (str "route data must be a map, not " (pr-str data) ".") {:value data}))
  (check path router-options/route-data-table data "key")
  (when (and (:mount data) (some router-options/method-keys (keys data)))
    (fail path (str "a :mount takes every method itself; give it no method handlers ("
                    (str/join ", " (filter router-options/method-keys (keys data))) ").")
          {:value data}))
  (when (and (contains? data :strip-prefix?) (not (:mount data)))
    (fail path ":strip-prefix? goes only with :mount." {:key :strip-prefix?})))

(defn- endpoint-data
  "A method's value, which its route data's check let through, as a map
  {:handler h ...}."
  [path method v]
  (if (map? v)
    (do (check path router-options/endpoint-table v (str method " key"))
        (when-not (contains? v :handler)
          (fail path (str method " needs a :handler, a Ring handler.") {:key method :value v}))
        v)
    {:handler v}))

(defn- route-form? [x]
  (and (vector? x) (string? (first x))))

(defn- flatten-routes
  "The endpoints of `routes` under `prefix`, each a map of :path, :method (or
  :mount), :handler, :middleware (outermost first) and :handler-mode."
  [routes prefix inherited]
  (mapcat
   (fn [route]
     (cond
       (nil? route) []
       (route-form? route)
       (let [[path & more] route
             [data children] (if (map? (first more)) [(first more) (rest more)] [{} more])
             full (str prefix path)]
         (when-not (or (= "" path) (str/starts-with? path "/"))
           (fail full (str "the path " (pr-str path) " must start with \"/\".") {:value path}))
         (check-data full data)
         (let [here (-> inherited
                        (update :middleware into (:middleware data))
                        (cond-> (:handler-mode data) (assoc :handler-mode (:handler-mode data))))
               own (concat
                    (when-let [m (:mount data)]
                      [(assoc here :path full :mount true :handler m
                              :strip-prefix? (boolean (:strip-prefix? data)))])
                    (for [[k v] data :when (router-options/method-keys k)
                          :let [e (endpoint-data full k v)]]
                      {:path full
                       :method k
                       :handler (:handler e)
                       :middleware (into (:middleware here) (:middleware e))
                       :handler-mode (or (:handler-mode e) (:handler-mode here))}))]
           (concat own (flatten-routes children full here))))

       (sequential? route) (flatten-routes route prefix inherited)

       :else (throw (ex-info (str "Invalid route " (pr-str route) " under " (pr-str (if (= prefix "") "/" prefix))
                                 ": a route is a vector of a path string, optional route data and child routes.")
                             {:onager/error :invalid-route :path prefix :value route}))))
   routes))

(defn- wrap
  "`handler` inside `middleware`, the first outermost."
  [handler middleware]
  (reduce (fn [h m] (if (vector? m) (apply (first m) h (rest m)) (m h)))
          handler
          (reverse middleware)))

(defn router
  "A Ring handler (sync and async arities) for the route table `routes`: a
  vector of routes, or one route (see the namespace's docstring). Bad routes
  or options throw an ex-info naming the route, the key, the value and what is
  allowed; its data has :onager/error. On Onager, a router given as the
  handler (or as the server's :route-modes) makes each request start where its
  route's :handler-mode says. The keys of route data:"
  (^Router [routes] (router routes {}))
  (^Router [routes opts]
   (let [{:keys [middleware handler-mode not-found method-not-allowed reject-overlaps?]}
         (options/validate router-options/table opts)
         routes (if (route-form? routes) [routes] routes)
         _ (when-not (or (nil? routes) (sequential? routes))
             (throw (ex-info (str "Routes must be a vector of routes, not " (pr-str routes))
                             {:onager/error :invalid-route :value routes})))
         builder (RouterBuilder. (boolean reject-overlaps?))]
     (doseq [{:keys [path method handler mount strip-prefix?] :as e}
             (flatten-routes routes "" {:middleware (vec middleware) :handler-mode handler-mode})]
       (let [h (wrap handler (:middleware e))
             mode (HandlerMode/of (:handler-mode e))
             path (if (= path "") "/" path)]
         (if mount
           (.mount builder ^String path h ^HandlerMode mode (boolean strip-prefix?))
           (.route builder ^String path ^Keyword method h ^HandlerMode mode))))
     (.build builder not-found method-not-allowed))))

(alter-meta! #'router update :doc str
             "\n\n" (options/docstring-of router-options/route-data-table)
             "\n\n  The keys of a method's map:\n\n" (options/docstring-of router-options/endpoint-table)
             "\n\n  The options:\n\n" (options/docstring-of router-options/table))

(defn match
  "Which route of `router` takes a request for `method` (a keyword, :get) on
  `path`: {:path \"/users/:id\" :method \"GET\" :path-params {:id \"42\"}} with
  the route's path as written, the method its handler was given for (\"any
  method\", \"mounted\"), and the parameters; nil when none takes it (404 or 405)."
  [^Router router method ^String path]
  (.lookup router method path))
