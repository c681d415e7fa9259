(ns onager.router.server-test
  "The router behind real servers: its answers on the wire from Onager and from
  ring-jetty-adapter 1.8 (it is a plain Ring handler), and each route's
  :handler-mode followed by Onager, whether the router is the handler, a var
  holding it, or wrapped in middleware and given as :route-modes."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [compojure.core :refer [GET]]
            [onager.middleware :as mw]
            [onager.router :as router]
            [onager.server :as server]
            [onager.test-support :as ts]
            [ring.adapter.jetty :as jetty])
  (:import [org.eclipse.jetty.server Server ServerConnector]
           [org.eclipse.jetty.util.log AbstractLogger Log StdErrLog]))

(set! *warn-on-reflection* true)

(defn- text [body]
  {:status 200 :headers {"Content-Type" "text/plain; charset=utf-8"} :body body})

(defn- both-arities [f]
  (fn
    ([request] (f request))
    ([request respond raise]
     (Thread/startVirtualThread #(try (respond (f request)) (catch Throwable t (raise t)))))))

(def ^:private legacy
  (GET "/hello" [] (text "hello from compojure")))

(def ^:private routes
  [["/users/:id" {:get (both-arities #(text (str "user " (get-in % [:path-params :id]))))
                  :put (both-arities (fn [_] (text "updated")))}]
   ["/files/*path" {:get (both-arities #(text (str "file " (get-in % [:path-params :path]))))}]
   ["/legacy" {:mount legacy}]])

(defn- wire
  "Everything a raw HTTP/1.1 exchange of `request-line` gets back."
  [port request-line]
  (with-open [s (java.net.Socket. "127.0.0.1" (int port))]
    (.setSoTimeout s 5000)
    (let [out (.getOutputStream s)]
      (.write out (.getBytes (str request-line "\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n") "ISO-8859-1"))
      (.flush out)
      (String. (.readAllBytes (.getInputStream s)) "ISO-8859-1"))))

(defn- check-answers
  "The router's answers as any client sees them from the server on `port`
  (`onager?`: that server is Onager, which sends a String's length)."
  [port onager?]
  (let [url #(str "http://127.0.0.1:" port %)
        get (fn [path & [opts]] (ts/request (url path) opts))]
    (is (= [200 "user a b"] ((juxt :status :body) (get "/users/a%20b"))))
    (is (= [200 "file x/y.txt"] ((juxt :status :body) (get "/files/x/y.txt"))))
    (is (= [200 "hello from compojure"] ((juxt :status :body) (get "/legacy/hello"))))
    (is (= 404 (:status (get "/nothing"))))
    (testing "compojure's nil for no match is the router's 404, not a 500"
      (is (= 404 (:status (get "/legacy/nothing")))))
    (let [r (get "/users/1" {:method :delete})]
      (is (= 405 (:status r)))
      (is (= "GET, HEAD, PUT, OPTIONS" (ts/header r "allow"))))
    (let [r (get "/users/1" {:method :options})]
      (is (= 204 (:status r)))
      (is (= "GET, HEAD, PUT, OPTIONS" (ts/header r "allow"))))
    (testing "HEAD runs the GET handler and sends its head without the body"
      (let [head (wire port "HEAD /users/7 HTTP/1.1")]
        (is (str/starts-with? head "HTTP/1.1 200"))
        (when onager? (is (str/includes? (str/lower-case head) "content-length: 6")))
        (is (str/ends-with? head "\r\n\r\n") "no body after the head")))))

(deftest answers-on-onager
  (doseq [mode [{} {:handler-mode :event-loop} {:async? true} {:handler-mode :worker :async? true}]]
    (testing (pr-str mode)
      (ts/with-server [s (router/router routes) (merge {:vertx @ts/shared-vertx} mode)]
        (check-answers (server/port s) true)))))

(defn- quiet-jetty! []
  (.setProperty (Log/getProperties) "org.eclipse.jetty.LEVEL" "WARN")
  (doseq [logger (vals (Log/getLoggers))]
    (when (instance? StdErrLog logger)
      (.setLevel ^StdErrLog logger AbstractLogger/LEVEL_WARN))))

(deftest answers-on-ring-jetty
  (quiet-jetty!)
  (doseq [async? [false true]]
    (testing (if async? "async" "sync")
      (let [^Server jetty (jetty/run-jetty (router/router routes) {:port 0 :host "127.0.0.1" :join? false :async? async?})]
        (try
          (check-answers (.getLocalPort ^ServerConnector (first (.getConnectors jetty))) false)
          (finally (.stop jetty)))))))

;; ---- per-route handler modes ----

(defn- where
  "What kind of thread runs the code calling it."
  []
  (let [t (Thread/currentThread)
        n (.getName t)]
    (cond
      (.isVirtual t) :virtual
      (str/includes? n "eventloop") :event-loop
      (str/starts-with? n "onager-worker") :worker
      :else n)))

(def ^:private where-routes
  (let [answer (fn
                 ([_] (text (name (where))))
                 ([_ respond _] (respond (text (name (where))))))]
    [["/default" {:get answer :post answer}]
     ["/loop" {:get {:handler answer :handler-mode :event-loop}}]
     ["/work" {:handler-mode :worker}
      ["" {:get answer}]
      ["/virtual" {:get {:handler answer :handler-mode :virtual}}]]]))

(defn- thread-kinds [s]
  (into {} (for [path ["/default" "/loop" "/work" "/work/virtual"]]
             [path (:body (ts/request (ts/url s path)))])))

(def ^:private where-router (router/router where-routes))

(deftest routes-run-where-their-handler-mode-says
  (testing "the router as the handler: the server finds its modes"
    (ts/with-server [s where-router {:vertx @ts/shared-vertx}]
      (is (= {"/default" "virtual" "/loop" "event-loop" "/work" "worker" "/work/virtual" "virtual"}
             (thread-kinds s)))
      (testing "a request with a body runs where its route says too"
        (is (= "virtual" (:body (ts/request (ts/url s "/default") {:method :post :body "some body"})))))))
  (testing "a var holding the router"
    (ts/with-server [s #'where-router {:vertx @ts/shared-vertx :handler-mode :worker}]
      (is (= {"/default" "worker" "/loop" "event-loop" "/work" "worker" "/work/virtual" "virtual"}
             (thread-kinds s)))))
  (testing "async: the router's routes on the event loop unless they say otherwise"
    (ts/with-server [s where-router {:vertx @ts/shared-vertx :async? true}]
      (is (= {"/default" "event-loop" "/loop" "event-loop" "/work" "worker" "/work/virtual" "virtual"}
             (thread-kinds s)))))
  (testing "wrapped in middleware, the router given as :route-modes"
    (ts/with-server [s (mw/wrap-params where-router) {:vertx @ts/shared-vertx :route-modes where-router}]
      (is (= {"/default" "virtual" "/loop" "event-loop" "/work" "worker" "/work/virtual" "virtual"}
             (thread-kinds s)))))
  (testing "wrapped without :route-modes, every route runs in the server's mode"
    (ts/with-server [s (mw/wrap-params where-router) {:vertx @ts/shared-vertx}]
      (is (= {"/default" "virtual" "/loop" "virtual" "/work" "virtual" "/work/virtual" "virtual"}
             (thread-kinds s)))))
  (testing "a bad :route-modes fails start with the key, the value and what is allowed"
    (let [e (try (ts/start where-router {:route-modes identity}) nil (catch clojure.lang.ExceptionInfo e e))]
      (is (= [:invalid-option :route-modes] ((juxt :onager/error :key) (ex-data e))))
      (is (str/includes? (ex-message e) "a router made by onager.router/router")))))
