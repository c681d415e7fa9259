(ns notes.routes
  "The route table (onager.router data) and the Ring handler made of it."
  (:require [onager.json :as json]
            [onager.middleware :as mw]
            [onager.router :as router]
            [notes.api :as api]
            [notes.static :as static]))

(set! *warn-on-reflection* true)

(defn routes
  "The routes of the app, its handlers closed over the db spec `db`."
  [db]
  [["/" {:get (fn [_] (static/resource-response "index.html"))}]
   ["/api/notes" {:get (partial api/list-notes db)
                  :post (partial api/create-note db)}
    ["/:id" {:get (partial api/get-note db)
             :put (partial api/update-note db)
             :delete (partial api/delete-note db)}]]])

(defn- not-found
  "What the router answers when no route matches: a file under
  resources/public, or a JSON 404."
  [request]
  (or (when (#{:get :head} (:request-method request))
        (static/resource-response (subs (:uri request) 1)))
      ;; The router's :middleware does not wrap this handler, so it writes its
      ;; JSON itself.
      {:status 404
       :headers {"Content-Type" "application/json; charset=utf-8"}
       :body (json/write {:error (str "Nothing at " (:uri request) ".")})}))

(defn- method-not-allowed
  "What the router answers when a route matches the path but not the method:
  a JSON 405, to which the router adds the route's Allow header."
  [request]
  {:status 405
   :headers {"Content-Type" "application/json; charset=utf-8"}
   :body (json/write {:error (str (.toUpperCase (name (:request-method request))) " is not allowed on "
                                  (:uri request) ".")})})

(defn handler
  "The app's Ring handler for the db spec `db`: the router itself, so that the
  server sees the routes' handler modes, with the JSON and parameter
  middleware around every route."
  [db]
  (router/router (routes db)
                 {:not-found not-found
                  :method-not-allowed method-not-allowed
                  ;; The first is the outermost: parameters, then JSON out,
                  ;; then JSON in, whose 400s and 415s are JSON already.
                  :middleware [mw/wrap-params mw/wrap-json-response mw/wrap-json-body]}))
