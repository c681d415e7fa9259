(ns onager.micro.routes
  "Route matching on a 50-route table: onager.router against compojure 1.6's
  routes, each route's handler answering a constant response. The table is an
  API's: ten resources, five routes each, static and with parameters."
  (:require [clout.core :as clout]
            [compojure.core :as compojure]
            [onager.router :as router]))

(set! *warn-on-reflection* true)

(def ^:private resources
  ["users" "orders" "products" "invoices" "customers" "shipments" "reports" "teams" "projects" "tickets"])

(def ^:private templates
  "The five routes of a resource, in the order compojure tries them."
  [["" :get] ["/:id" :get] ["/:id" :put] ["/:id/items" :get] ["/:id/items/:item" :get]])

(def table
  "The 50 routes: [path method]."
  (vec (for [r resources [suffix method] templates] [(str "/api/" r suffix) method])))

(defn- answer [request]
  {:status 200 :headers {} :body "ok"})

(def ^:private onager-app
  (router/router (vec (for [[path routes] (group-by first table)]
                        [path (into {} (map (fn [[_ method]] [method answer])) routes)]))))

(def ^:private compojure-app
  (apply compojure/routes
         (for [[path method] table]
           (compojure/make-route method (clout/route-compile path) answer))))

(defn- request [method uri]
  {:request-method method :uri uri :scheme :http :headers {"host" "localhost"} :server-name "localhost"})

(def ^:private mixed
  "Requests spread over the table: first, middle and last resources, every shape."
  [(request :get "/api/users")
   (request :get "/api/orders/42")
   (request :put "/api/products/7")
   (request :get "/api/customers/9/items")
   (request :get "/api/shipments/3/items/12")
   (request :get "/api/teams/5")
   (request :get "/api/projects")
   (request :get "/api/tickets/77/items/8")])

(defn- all [app]
  (fn [] (loop [i 0 last nil]
           (if (< i 8) (recur (inc i) (app (nth mixed i))) last))))

(def ^:private last-route (request :get "/api/tickets/77/items/8"))

(defn benchmarks
  "The comparisons, for onager.micro.main."
  []
  [{:id "routes/mixed"
    :title "route matching, 50 routes, 8 requests over the table (per 8 requests)"
    :candidates [{:name "onager" :f (all onager-app)}
                 {:name "compojure 1.6" :f (all compojure-app)}]
    :verify #(= (repeat 8 200) (map (comp :status onager-app) mixed) (map (comp :status compojure-app) mixed))
    :per 8
    :target {:peer "compojure 1.6" :at-least 10.0}}
   {:id "routes/last"
    :title "route matching, 50 routes, the last route"
    :candidates [{:name "onager" :f #(onager-app last-route)}
                 {:name "compojure 1.6" :f #(compojure-app last-route)}]
    :same :status
    :target {:peer "compojure 1.6" :at-least 10.0}}])
