(ns onager.router.router-test
  "onager.router as a plain Ring handler, called directly: every route shape,
  the answers it makes itself (404, 405, OPTIONS, HEAD), precedence, conflicts
  and bad route data, middleware, mounting and both arities."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [compojure.core :as compojure :refer [GET POST]]
            [onager.router :as router]
            [onager.router.options :as router-options])
  (:import [clojure.lang ExceptionInfo]
           [java.util.concurrent CompletableFuture TimeUnit]
           [onager.kernel.config HandlerMode]))

(set! *warn-on-reflection* true)

(defn- echo
  "A handler (both arities) answering with what the route gave it, tagged `id`."
  [id]
  (let [answer (fn [request]
                 {:status 200
                  :headers {}
                  :body {:id id
                         :path-params (:path-params request)
                         :uri (:uri request)
                         :context (:context request)
                         :path-info (:path-info request)}})]
    (fn
      ([request] (answer request))
      ([request respond _raise] (respond (answer request))))))

(defn- req
  ([method uri] {:request-method method :uri uri :headers {}})
  ([method uri extra] (merge (req method uri) extra)))

(defn- call [handler method uri]
  (handler (req method uri)))

(defn- call-async
  "Calls the async arity and waits for respond or raise."
  [handler method uri]
  (let [result (CompletableFuture.)]
    (handler (req method uri) #(.complete result %) #(.completeExceptionally result %))
    (.get result 10 TimeUnit/SECONDS)))

(defn- id-of [response] (get-in response [:body :id]))
(defn- params-of [response] (get-in response [:body :path-params]))

(defn- thrown-data
  "The ex-data (and message, as :message) of what `f` throws."
  [f]
  (try (f) nil
       (catch ExceptionInfo e (assoc (ex-data e) :message (ex-message e)))))

(def ^:private app
  (router/router
   [["/" {:get (echo :root)}]
    ["/users" {:get (echo :users) :post (echo :create-user)}
     ["/new" {:get (echo :new-user)}]
     ["/:id" {:get (echo :user) :put (echo :update-user) :delete (echo :delete-user)}
      ["/posts/:post-id" {:get (echo :post)}]]]
    ["/files/*path" {:get (echo :file)}]
    ["/a/b/c" {:get (echo :abc)}]
    ["/a/:x/d" {:get (echo :axd)}]
    ["/a/*rest" {:get (echo :a-rest)}]
    ["/slash/" {:get (echo :with-slash)}]
    ["/slash" {:get (echo :without-slash)}]
    ["/any" {:get (echo :any-get) :any (echo :any-other)}]
    ["/own-head" {:get (echo :get) :head (echo :head) :options (echo :options)}]]))

(deftest static-param-and-catch-all-routes
  (is (= :root (id-of (call app :get "/"))))
  (is (= :users (id-of (call app :get "/users"))))
  (is (= [:user {:id "42"}] ((juxt id-of params-of) (call app :get "/users/42"))))
  (is (= [:post {:id "7" :post-id "99"}] ((juxt id-of params-of) (call app :get "/users/7/posts/99"))))
  (is (= [:file {:path "a/b/c.txt"}] ((juxt id-of params-of) (call app :get "/files/a/b/c.txt"))))
  (testing "a catch-all takes the empty rest, but needs its slash"
    (is (= [:file {:path ""}] ((juxt id-of params-of) (call app :get "/files/"))))
    (is (= 404 (:status (call app :get "/files")))))
  (testing "a route without parameters gets empty :path-params"
    (is (= {} (params-of (call app :get "/users")))))
  (testing "a trailing slash is part of the path"
    (is (= :with-slash (id-of (call app :get "/slash/"))))
    (is (= :without-slash (id-of (call app :get "/slash")))))
  (testing "a parameter takes one non-empty segment"
    (is (= 404 (:status (call app :get "/users/42/extra"))))
    (is (= 404 (:status (call app :get "/users//posts/1")))))
  (testing "paths that do not start with / match nothing"
    (is (= 404 (:status (call app :get "*"))))
    (is (= 404 (:status (call app :get ""))))))

(deftest most-specific-route-wins
  (testing "static text before a parameter"
    (is (= :new-user (id-of (call app :get "/users/new"))))
    (is (= :user (id-of (call app :get "/users/newer")))))
  (testing "static, then parameter, then catch-all, backtracking where a branch ends"
    (is (= :abc (id-of (call app :get "/a/b/c"))))
    (is (= [:axd {:x "b"}] ((juxt id-of params-of) (call app :get "/a/b/d"))))
    (is (= [:a-rest {:rest "b/e"}] ((juxt id-of params-of) (call app :get "/a/b/e"))))
    (is (= [:a-rest {:rest "b/c/d"}] ((juxt id-of params-of) (call app :get "/a/b/c/d"))))))

(deftest path-parameters-are-decoded-once
  (let [decoded #(get (params-of (call app :get (str "/users/" %))) :id)]
    (is (= "a b" (decoded "a%20b")))
    (is (= "é✓" (decoded "%C3%A9%E2%9C%93")))
    (is (= "%41" (decoded "%2541")) "decoded once, not twice")
    (is (= "a+b" (decoded "a+b")) "+ means a space only in forms")
    (is (= "50%" (decoded "50%")) "a % that starts no escape stays")
    (is (= "%zz" (decoded "%zz")))
    (is (= "a/b" (decoded "a%2Fb")) "an encoded slash is inside the segment"))
  (is (= {:path "dir/é x"} (params-of (call app :get "/files/dir/%C3%A9%20x")))))

(deftest not-found-and-method-not-allowed
  (let [r (call app :get "/nothing/here")]
    (is (= [404 "Not Found"] [(:status r) (:body r)]))
    (is (= "text/plain; charset=utf-8" (get-in r [:headers "Content-Type"]))))
  (let [r (call app :patch "/users/1")]
    (is (= 405 (:status r)))
    (is (= "GET, HEAD, PUT, DELETE, OPTIONS" (get-in r [:headers "Allow"])))
    (is (= "Method Not Allowed" (:body r))))
  (is (= "GET, HEAD, POST, OPTIONS" (get-in (call app :delete "/users") [:headers "Allow"])))
  (testing "a method no route can name gets 405 too"
    (is (= 405 (:status (call app :propfind "/users/1"))))))

(deftest head-options-and-any
  (testing "HEAD goes to the GET handler, which sees :head"
    (let [seen (atom nil)
          r (router/router [["/x" {:get (fn [request] (reset! seen (:request-method request)) {:status 200 :body "x"})}]])]
      (is (= 200 (:status (call r :head "/x"))))
      (is (= :head @seen))))
  (testing "a route's own HEAD and OPTIONS handlers win"
    (is (= :head (id-of (call app :head "/own-head"))))
    (is (= :options (id-of (call app :options "/own-head")))))
  (testing "OPTIONS is answered with Allow"
    (let [r (call app :options "/users/1")]
      (is (= 204 (:status r)))
      (is (nil? (:body r)))
      (is (= "GET, HEAD, PUT, DELETE, OPTIONS" (get-in r [:headers "Allow"])))))
  (testing ":any takes every method the route does not name, odd ones too"
    (is (= :any-get (id-of (call app :get "/any"))))
    (is (= :any-get (id-of (call app :head "/any"))))
    (doseq [m [:post :delete :options :propfind]]
      (is (= :any-other (id-of (call app m "/any"))) (name m)))))

(deftest async-arity
  (is (= [:user {:id "5"}] ((juxt id-of params-of) (call-async app :get "/users/5"))))
  (is (= 404 (:status (call-async app :get "/none"))))
  (is (= 405 (:status (call-async app :patch "/users/5"))))
  (is (= 204 (:status (call-async app :options "/users/5"))))
  (testing "an async handler answers through respond, from another thread"
    (let [r (router/router [["/later/:n" {:get (fn [request respond _raise]
                                                  (future (respond {:status 200 :body (:path-params request)})))}]])]
      (is (= {:n "3"} (:body (call-async r :get "/later/3"))))))
  (testing "raise reaches the caller"
    (let [r (router/router [["/fail" {:get (fn [_ _ raise] (raise (ex-info "boom" {})))}]])]
      (is (thrown-with-msg? Exception #"boom" (call-async r :get "/fail"))))))

(deftest same-shape-routes
  (testing "one shape with different methods in different places merge"
    (let [r (router/router [["/items/:id" {:get (echo :get-item)}]
                            ["/admin" {:middleware [(fn [h] (fn [q] (assoc-in (h q) [:headers "X-Admin"] "yes")))]}
                             ["/items/:id" {:delete (echo :delete-item)}]]
                            ["/items/:item" {:put (echo :put-item)}]])]
      (is (= :get-item (id-of (call r :get "/items/1"))))
      (is (= [:put-item {:item "1"}] ((juxt id-of params-of) (call r :put "/items/1"))))
      (is (= "yes" (get-in (call r :delete "/admin/items/1") [:headers "X-Admin"])))
      (is (= "GET, HEAD, PUT, OPTIONS" (get-in (call r :post "/items/1") [:headers "Allow"])))))
  (testing "the same paths with the same method fail at start-up, naming both routes"
    (let [data (thrown-data #(router/router [["/users/:id" {:get (echo 1)}] ["/users/:name" {:get (echo 2)}]]))]
      (is (= :route-conflict (:onager/error data)))
      (is (= ["/users/:id" "/users/:name"] (:routes data)))
      (is (str/includes? (:message data) "\"/users/:id\" (GET)"))
      (is (str/includes? (:message data) "\"/users/:name\" (GET)")))
    (is (= ["/x" "/x"] (:routes (thrown-data #(router/router [["/x" {:get (echo 1)}] ["/x" {:get (echo 2)}]])))))
    (is (= ["/files/*a" "/files/*b"]
           (:routes (thrown-data #(router/router [["/files/*a" {:any (echo 1)}] ["/files/*b" {:any (echo 2)}]])))))
    (is (= ["/g/x" "/g/x"]
           (:routes (thrown-data #(router/router [["/g" ["/x" {:post (echo 1)}]] ["/g/x" {:post (echo 2)}]]))))))
  (testing "a mount and a route of the same path conflict whatever the method"
    (is (= ["/app" "/app"] (:routes (thrown-data #(router/router [["/app" {:mount (echo 1)}] ["/app" {:get (echo 2)}]])))))
    (is (= ["/app/*x" "/app"] (:routes (thrown-data #(router/router [["/app/*x" {:get (echo 1)}] ["/app" {:mount (echo 2)}]])))))))

(deftest reject-overlaps
  (let [overlapping [["/users/new" {:get (echo 1)}] ["/users/:id" {:get (echo 2)}]]]
    (is (router/router overlapping) "allowed by default: the static route wins")
    (let [data (thrown-data #(router/router overlapping {:reject-overlaps? true}))]
      (is (= :route-conflict (:onager/error data)))
      (is (= ["/users/new" "/users/:id"] (:routes data)))))
  (testing "routes no path matches together pass"
    (is (router/router [["/users/new" {:get (echo 1)}] ["/users/:id" {:put (echo 2)}]
                        ["/files/*p" {:get (echo 3)}] ["/files" {:get (echo 4)}]
                        ["/a/:x/b" {:get (echo 5)}] ["/a/:x/c" {:get (echo 6)}]]
                       {:reject-overlaps? true})))
  (testing "a catch-all overlaps what lies below it, :any every method"
    (is (= ["/f/*p" "/f/x/:y"] (:routes (thrown-data #(router/router [["/f/*p" {:get (echo 1)}] ["/f/x/:y" {:get (echo 2)}]]
                                                                     {:reject-overlaps? true})))))
    (is (= ["/g/:x" "/g/y"] (:routes (thrown-data #(router/router [["/g/:x" {:any (echo 1)}] ["/g/y" {:post (echo 2)}]]
                                                                  {:reject-overlaps? true})))))))

(deftest invalid-route-data-fails-at-start-up
  (let [invalid (fn [routes] (thrown-data #(router/router routes)))]
    (doseq [[routes fragment] [[[["users" {:get (echo 1)}]] "must start with \"/\""]
                               [[["/a/:x.json" {:get (echo 1)}]] "'.' in its name"]
                               [[["/a/:" {:get (echo 1)}]] "has no name"]
                               [[["/a/*rest/b" {:get (echo 1)}]] "must be the last segment"]
                               [[["/a/:x/:x" {:get (echo 1)}]] "appears twice"]
                               [[["/a" {:gett (echo 1)}]] "Did you mean :get?"]
                               [[["/a" {:get "not a handler"}]] "invalid key :get \"not a handler\": expected a Ring handler, or a map"]
                               [[["/a" {:get {:handler (echo 1) :mode :worker}}]] "unknown :get key :mode"]
                               [[["/a" {:get {:middleware []}}]] ":get needs a :handler"]
                               [[["/a" {:middleware (fn [h] h) :get (echo 1)}]] "invalid key :middleware"]
                               [[["/a" {:handler-mode :fast :get (echo 1)}]] "invalid key :handler-mode :fast: expected one of"]
                               [[["/a" {:mount (echo 1) :get (echo 1)}]] "takes every method itself"]
                               [[["/a" {:strip-prefix? true :get (echo 1)}]] "goes only with :mount"]
                               [[["/a" ["b" {:get (echo 1)}]]] "must start with \"/\""]
                               [[["/a" :oops]] "a route is a vector"]
                               [[["/a" "not data"]] "a route is a vector"]]]
      (let [data (invalid routes)]
        (is (= :invalid-route (:onager/error data)) (pr-str routes))
        (is (str/includes? (str (:message data)) fragment) (str (:message data))))))
  (testing "the message names the full path of a nested route"
    (is (str/includes? (:message (thrown-data #(router/router [["/api" ["/v1" ["/:" {:get (echo 1)}]]]])))
                       "\"/api/v1/:\""))))

(def ^:private bad-route-data
  "Each route data key with a value it must refuse, beside a method handler (or
  a :mount) so that only that value is wrong."
  (into [[:middleware (fn [h] h)]
         [:handler-mode :fast]
         [:handler-mode nil]
         [:mount "an app"]
         [:strip-prefix? "yes"]]
        (for [m router-options/method-keys] [m "not a handler"])))

(def ^:private bad-endpoint-data
  "Each key of a method's map with a value it must refuse."
  [[:handler "not a handler"]
   [:middleware :wrap]
   [:handler-mode "worker"]])

(defn- expect-refusal
  "Asserts that `routes` fail naming the route, the key `k`, the value `v` and
  what `table` says `k` allows."
  [routes table k v]
  (let [data (thrown-data #(router/router routes))
        allowed (:allowed (first (filter #(= k (:key %)) table)))]
    (is (= {:onager/error :invalid-route :path "/a" :key k :value v :allowed allowed}
           (select-keys data [:onager/error :path :key :value :allowed])))
    (doseq [part ["\"/a\"" (str k) (pr-str v) allowed]]
      (is (str/includes? (:message data) part) (:message data)))))

(deftest bad-route-data-names-the-key-the-value-and-what-is-allowed
  (doseq [[k v] bad-route-data]
    (testing (str k " " (pr-str v))
      (expect-refusal [["/a" (assoc (if (= k :strip-prefix?) {:mount (echo 1)} {}) k v)]]
                      router-options/route-data-table k v)))
  (doseq [[k v] bad-endpoint-data]
    (testing (str ":get's " k " " (pr-str v))
      (expect-refusal [["/a" {:get (assoc {:handler (echo 1)} k v)}]] router-options/endpoint-table k v)))
  (testing "every key of both tables has a case"
    (is (= (set (map :key router-options/route-data-table)) (set (map first bad-route-data))))
    (is (= (set (map :key router-options/endpoint-table)) (set (map first bad-endpoint-data)))))
  (testing "an unknown key gets the keys the table knows"
    (let [data (thrown-data #(router/router [["/a" {:handler (echo 1)}]]))]
      (is (= [:invalid-route :handler] ((juxt :onager/error :key) data)))
      (is (= (map :key router-options/route-data-table) (:allowed data)))
      (is (str/includes? (:message data) "unknown key :handler")))))

(deftest router-options
  (testing "bad options name the key, the value and what is allowed"
    (let [data (thrown-data #(router/router [] {:handler-mode :fastest}))]
      (is (= [:invalid-option :handler-mode :fastest] ((juxt :onager/error :key :value) data)))
      (is (str/includes? (:message data) "one of :virtual, :event-loop, :worker")))
    (is (= :unknown-option (:onager/error (thrown-data #(router/router [] {:not-fund identity})))))
    (is (= :method-not-allowed (:key (thrown-data #(router/router [] {:method-not-allowed {:status 405}})))))
    (is (= :middleware (:key (thrown-data #(router/router [] {:middleware [:not-a-fn]}))))))
  (testing ":not-found handles what no route matches, in both arities"
    (let [fallback (fn
                     ([request] {:status 200 :body (str "fallback for " (:uri request))})
                     ([request respond _] (respond {:status 200 :body (str "async fallback for " (:uri request))})))
          r (router/router [["/known" {:get (echo :known)}]] {:not-found fallback})]
      (is (= :known (id-of (call r :get "/known"))))
      (is (= "fallback for /other" (:body (call r :get "/other"))))
      (is (= "async fallback for /other" (:body (call-async r :get "/other"))))
      (testing "but not what a route matches with another method"
        (is (= 405 (:status (call r :post "/known")))))))
  (testing "an empty table answers 404"
    (is (= 404 (:status (call (router/router []) :get "/"))))))

(deftest the-router's-own-answers-can-be-replaced
  ;; A JSON API wants JSON in its 404s and 405s too.
  (let [json-error (fn [status message]
                     (fn
                       ([request] {:status status :headers {"Content-Type" "application/json"}
                                   :body {:error message :uri (:uri request)}})
                       ([request respond _] (respond {:status status :headers {"Content-Type" "application/json"}
                                                      :body {:error message :uri (:uri request) :async true}}))))
        legacy (compojure/routes (GET "/here" [] "legacy here"))
        r (router/router [["/users/:id" {:get (echo :user) :delete (echo :delete-user)}]
                          ["/legacy" {:mount legacy}]]
                         {:not-found (json-error 404 "no such resource")
                          :method-not-allowed (json-error 405 "method not allowed")})]
    (testing ":not-found"
      (is (= [404 {:error "no such resource" :uri "/nothing"}] ((juxt :status :body) (call r :get "/nothing"))))
      (is (= [404 {:error "no such resource" :uri "/nothing" :async true}]
             ((juxt :status :body) (call-async r :get "/nothing")))))
    (testing ":method-not-allowed, with the route's Allow header added"
      (doseq [[arity response] [[:sync (call r :post "/users/1")] [:async (call-async r :post "/users/1")]]]
        (testing (name arity)
          (is (= 405 (:status response)))
          (is (= "method not allowed" (get-in response [:body :error])))
          (is (= {"Content-Type" "application/json" "Allow" "GET, HEAD, DELETE, OPTIONS"} (:headers response))))))
    (testing "an Allow header of the handler's own is kept"
      (let [own (router/router [["/x" {:get (echo :x)}]]
                               {:method-not-allowed (fn [_] {:status 405 :headers {"allow" "GET"} :body "no"})})]
        (is (= {"allow" "GET"} (:headers (call own :put "/x"))))))
    (testing "OPTIONS is still the router's"
      (is (= [204 "GET, HEAD, DELETE, OPTIONS"] ((juxt :status #(get-in % [:headers "Allow"])) (call r :options "/users/1")))))
    (testing "a mounted handler's nil goes on to :not-found, in both arities"
      (is (= "legacy here" (:body (call r :get "/legacy/here"))))
      (is (= [404 {:error "no such resource" :uri "/legacy/there"}] ((juxt :status :body) (call r :get "/legacy/there"))))
      (is (= [404 {:error "no such resource" :uri "/legacy/there" :async true}]
             ((juxt :status :body) (call-async r :get "/legacy/there")))))
    (testing "a route's handler that answers nil is not taken for a mount's"
      (let [broken (router/router [["/nil" {:get (fn [_] nil)}]])]
        (is (nil? (call broken :get "/nil")))))))

(defn- tag
  "Middleware that appends `label` to the request's :trail on the way in."
  ([label] (fn [handler] (tag handler label)))
  ([handler label] (fn
                     ([request] (handler (update request :trail (fnil conj []) label)))
                     ([request respond raise] (handler (update request :trail (fnil conj []) label) respond raise)))))

(deftest middleware-order
  (let [trail (fn
                ([request] {:status 200 :body (:trail request)})
                ([request respond _] (respond {:status 200 :body (:trail request)})))
        r (router/router [["/api" {:middleware [(tag :group-1) [tag :group-2]]}
                           ["/v1" {:middleware [(tag :subgroup)]}
                            ["/x" {:middleware [(tag :route)]
                                   :get {:handler trail :middleware [(tag :method)]}
                                   :post trail}]]]
                          ["/plain" {:get trail}]]
                         {:middleware [(tag :router)]})]
    (is (= [:router :group-1 :group-2 :subgroup :route :method] (:body (call r :get "/api/v1/x"))))
    (is (= [:router :group-1 :group-2 :subgroup :route] (:body (call r :post "/api/v1/x"))))
    (is (= [:router :group-1 :group-2 :subgroup :route :method] (:body (call-async r :get "/api/v1/x"))))
    (is (= [:router] (:body (call r :get "/plain"))))
    (testing "router middleware runs only for matched routes"
      (is (= 404 (:status (call r :get "/api/v1/none")))))))

(deftest mounting-ring-handlers
  (let [compojure-app (compojure/routes
                       (GET "/" request {:status 200 :body (str "legacy home, context " (:context request))})
                       (GET "/items/:id" [id :as request]
                         {:status 200 :body (str "legacy item " id " at " (:uri request) " path-info " (:path-info request))})
                       (POST "/items" [] {:status 201 :body "created"}))
        inner (router/router [["/" {:get (echo :inner-root)}]
                              ["/things/:thing" {:get (echo :inner-thing)}]])
        uri-only (fn [request] {:status 200 :body (str "uri " (:uri request))})
        r (router/router [["/legacy" {:mount compojure-app}]
                          ["/t/:tenant" {:mount inner}]
                          ["/stripped" {:mount uri-only :strip-prefix? true}]
                          ["/under/" {:mount uri-only}]
                          ["/legacy/special" {:get (echo :special)}]])]
    (testing "compojure routes see :path-info below the prefix, as under compojure's context"
      (is (= "legacy item 12 at /legacy/items/12 path-info /items/12" (:body (call r :get "/legacy/items/12"))))
      (is (= 201 (:status (call r :post "/legacy/items"))))
      (is (= "legacy home, context /legacy" (:body (call r :get "/legacy"))))
      (is (= "legacy home, context /legacy" (:body (call r :get "/legacy/"))))
      (testing "compojure's nil for no match goes on to the router's 404, in both arities"
        (is (= 404 (:status (call r :get "/legacy/nothing"))))
        (is (= 404 (:status (call-async r :get "/legacy/nothing"))))))
    (testing "a route more specific than the mount wins"
      (is (= :special (id-of (call r :get "/legacy/special")))))
    (testing "a router mounted under a router matches :path-info and adds its parameters"
      (let [res (call r :get "/t/acme/things/42")]
        (is (= :inner-thing (id-of res)))
        (is (= {:tenant "acme" :thing "42"} (params-of res)))
        (is (= "/t/acme" (get-in res [:body :context])))
        (is (= "/things/42" (get-in res [:body :path-info]))))
      (is (= :inner-root (id-of (call r :get "/t/acme"))))
      (is (= 404 (:status (call r :get "/t/acme/nothing")))))
    (testing ":strip-prefix? makes :uri the path below the prefix"
      (is (= "uri /a/b" (:body (call r :get "/stripped/a/b")))))
    (testing "a prefix ending in / takes only what is below it"
      (is (= "uri /under/x" (:body (call r :get "/under/x"))))
      (is (= 404 (:status (call r :get "/under")))))
    (testing "a mount takes every method"
      (is (= 200 (:status (call r :propfind "/stripped/x")))))
    (testing "mounted in compojure's context, the router matches the rest"
      (let [outer (compojure/context "/outer" [] inner)]
        (is (= [:inner-thing {:thing "9"}] ((juxt id-of params-of) (outer (req :get "/outer/things/9")))))))))

(deftest match-tells-which-route-takes-a-request
  (is (= {:path "/users/:id" :method "GET" :path-params {:id "1"}} (router/match app :get "/users/1")))
  (is (= {:path "/users/:id" :method "GET" :path-params {:id "1"}} (router/match app :head "/users/1")))
  (is (= {:path "/any" :method "any method" :path-params {}} (router/match app :post "/any")))
  (is (nil? (router/match app :patch "/users/1")))
  (is (nil? (router/match app :get "/nowhere"))))

(deftest handler-modes-for-the-server
  (let [r (router/router [["/plain" {:get (echo 1)}]
                          ["/blocking" {:handler-mode :worker}
                           ["/a" {:get (echo 2) :post {:handler (echo 3) :handler-mode :virtual}}]]
                          ["/loop/:x" {:get {:handler (echo 4) :handler-mode :event-loop}}]
                          ["/mounted" {:mount (echo 5) :handler-mode :worker}]])]
    (is (nil? (.modeFor r "GET" "/plain")) "no mode: the server's")
    (is (= HandlerMode/WORKER (.modeFor r "GET" "/blocking/a")) "a group's mode")
    (is (= HandlerMode/WORKER (.modeFor r "HEAD" "/blocking/a")) "HEAD runs where GET does")
    (is (= HandlerMode/VIRTUAL (.modeFor r "POST" "/blocking/a")) "a method's own mode wins")
    (is (= HandlerMode/EVENT_LOOP (.modeFor r "GET" "/loop/1")))
    (is (= HandlerMode/WORKER (.modeFor r "DELETE" "/mounted/any/thing")))
    (is (nil? (.modeFor r "GET" "/nowhere")))
    (is (nil? (.modeFor r "PUT" "/blocking/a")) "405s run where the server says"))
  (testing "the router's :handler-mode is the default of its routes"
    (let [r (router/router [["/a" {:get (echo 1)}] ["/b" {:get (echo 2) :handler-mode :worker}]]
                           {:handler-mode :event-loop})]
      (is (= HandlerMode/EVENT_LOOP (.modeFor r "GET" "/a")))
      (is (= HandlerMode/WORKER (.modeFor r "GET" "/b"))))))
