(ns onager.middleware.json-test
  "wrap-json-body and wrap-json-response: called directly in both arities, and
  behind Onager, where the body limits meet the server's :max-body."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.json :as json]
            [onager.middleware :as mw]
            [onager.router :as router]
            [onager.test-support :as ts])
  (:import [clojure.lang ExceptionInfo]
           [java.io ByteArrayInputStream InputStream]
           [java.nio.charset StandardCharsets]
           [java.util.concurrent CompletableFuture TimeUnit]
           [java.util.concurrent.atomic AtomicLong]))

(set! *warn-on-reflection* true)

(defn- stream ^InputStream [^String s ^String charset]
  (ByteArrayInputStream. (.getBytes s charset)))

(defn- counting
  "An InputStream of `n` bytes of `[1,1,1...` that counts what is read of it into `read`."
  ^InputStream [^long n ^AtomicLong read]
  (let [pos (AtomicLong.)]
    (proxy [InputStream] []
      (read
        ([] (let [p (.getAndIncrement pos)]
              (if (< p n) (do (.incrementAndGet read) (int (if (zero? p) (int \[) (if (even? p) (int \,) (int \1))))) -1)))
        ([^bytes buf off len]
         (let [p (.get pos)
               m (min (long len) (- n p))]
           (if (<= m 0)
             -1
             (do (dotimes [i m]
                   (let [q (+ p i)]
                     (aset buf (+ (long off) i) (byte (if (zero? q) (int \[) (if (even? q) (int \,) (int \1)))))))
                 (.addAndGet pos m)
                 (.addAndGet read m)
                 (int m)))))))))

(defn- json-request
  ([body] (json-request body {}))
  ([^String body headers]
   {:request-method :post
    :uri "/"
    :headers (merge {"content-type" "application/json"
                     "content-length" (str (alength (.getBytes body StandardCharsets/UTF_8)))}
                    headers)
    :body (stream body "UTF-8")}))

(def ^:private seen
  "A handler answering with what it got as :body-params and :body."
  (fn
    ([request] {:status 200 :body {:params (:body-params request) :body (:body request)}})
    ([request respond _] (respond {:status 200 :body {:params (:body-params request) :body (:body request)}}))))

(defn- async [handler request]
  (let [result (CompletableFuture.)]
    (handler request #(.complete result %) #(.completeExceptionally result %))
    (.get result 10 TimeUnit/SECONDS)))

(defn- error-of [response]
  [(:status response) (get (json/read (:body response)) "error")])

(deftest json-bodies-are-parsed
  (let [h (mw/wrap-json-body seen)]
    (is (= {:a [1 2] :b {:c "é"}} (get-in (h (json-request "{\"a\":[1,2],\"b\":{\"c\":\"é\"}}")) [:body :params])))
    (is (= {:a 1} (get-in (async h (json-request "{\"a\":1}")) [:body :params])))
    (testing "application/*+json is JSON too"
      (is (= {:x 1} (get-in (h (json-request "{\"x\":1}" {"content-type" "application/vnd.api+json"})) [:body :params])))))
  (testing "options"
    (is (= {"a" 1} (get-in ((mw/wrap-json-body seen {:keywords? false}) (json-request "{\"a\":1}")) [:body :params])))
    (is (= {"A" 1} (get-in ((mw/wrap-json-body seen {:key-fn str/upper-case}) (json-request "{\"a\":1}")) [:body :params])))
    (is (= 1.5M (get-in ((mw/wrap-json-body seen {:bigdecimals? true}) (json-request "1.5")) [:body :params])))
    (is (= [1 2] (get-in ((mw/wrap-json-body seen {:into :body}) (json-request "[1,2]")) [:body :body]))))
  (testing "the Content-Type's charset is honoured"
    (let [r ((mw/wrap-json-body seen) {:headers {"content-type" "application/json; charset=ISO-8859-1"
                                                 "content-length" "9"}
                                       :body (stream "{\"é\":\"à\"}" "ISO-8859-1")})]
      (is (= {:é "à"} (get-in r [:body :params])))))
  (testing "requests without a body pass as they are"
    (let [h (mw/wrap-json-body seen)]
      (is (= 200 (:status (h {:request-method :get :uri "/" :headers {} :body (stream "" "UTF-8")}))))
      (is (nil? (get-in (h {:headers {"content-length" "0" "content-type" "text/plain"} :body (stream "" "UTF-8")})
                        [:body :params])))
      (is (nil? (get-in (h {:headers {"content-type" "application/json" "transfer-encoding" "chunked"}
                            :body (stream "  " "UTF-8")})
                        [:body :params]))
          "an empty chunked JSON body is no value"))))

(deftest bodies-it-refuses
  (let [h (mw/wrap-json-body seen)]
    (testing "malformed JSON: 400 naming line and column"
      (let [[status message] (error-of (h (json-request "{\"a\":\n [1,}")))]
        (is (= 400 status))
        (is (str/includes? message "line 2, column 5") message))
      (is (= 400 (:status (async h (json-request "nope")))))
      (is (= 400 (:status (h (json-request "{} {}")))) "two values"))
    (testing "a body that is not JSON: 415"
      (let [[status message] (error-of (h (json-request "a=1" {"content-type" "application/x-www-form-urlencoded"})))]
        (is (= 415 status))
        (is (str/includes? message "application/x-www-form-urlencoded")))
      (is (= 415 (:status (h (json-request "{}" {"content-type" nil})))))
      (is (= 415 (:status (async h (json-request "x" {"content-type" "text/plain"}))))))
    (testing ":other-types :pass hands other bodies on"
      (let [r ((mw/wrap-json-body seen {:other-types :pass}) (json-request "a=1" {"content-type" "text/plain"}))]
        (is (= 200 (:status r)))
        (is (nil? (get-in r [:body :params])))))
    (testing ":on-error makes the answer"
      (let [h (mw/wrap-json-body seen {:on-error (fn [request {:keys [status message]}]
                                                   {:status status :body (str (:uri request) ": " message)})})]
        (is (str/starts-with? (:body (h (json-request "{"))) "/: Malformed JSON"))))))

(deftest bodies-over-the-limit
  (testing "a declared length over :max-bytes: 413 without reading a byte"
    (let [read (AtomicLong.)
          h (mw/wrap-json-body seen {:max-bytes 100})
          r (h {:headers {"content-type" "application/json" "content-length" "5000"} :body (counting 5000 read)})]
      (is (= 413 (first (error-of r))))
      (is (zero? (.get read)))))
  (testing "a chunked body over :max-bytes: 413 after reading at most one byte past it"
    (let [read (AtomicLong.)
          h (mw/wrap-json-body seen {:max-bytes 1000})
          r (h {:headers {"content-type" "application/json" "transfer-encoding" "chunked"}
                :body (counting 1000000 read)})]
      (is (= 413 (first (error-of r))))
      (is (<= (.get read) 1001))))
  (testing "a body of exactly :max-bytes passes"
    (let [body (str "[" (str/join "," (repeat 49 "1")) "]")]
      (is (= 99 (count body)))
      (is (= 49 (count (get-in ((mw/wrap-json-body seen {:max-bytes 99}) (json-request body)) [:body :params])))))))

(deftest bad-options
  (doseq [[opts k] [[{:max-bytes 0} :max-bytes] [{:into :params} :into] [{:other-types :ignore} :other-types]
                    [{:keywords? "yes"} :keywords?]]]
    (let [e (try (mw/wrap-json-body seen opts) nil (catch ExceptionInfo e e))]
      (is (= [:invalid-option k] ((juxt :onager/error :key) (ex-data e))) (pr-str opts))))
  (let [e (try (mw/wrap-json-response seen {:content-type "bad\nvalue"}) nil (catch ExceptionInfo e e))]
    (is (= :content-type (:key (ex-data e))))))

(defn- json-body [response]
  (json/read (String. ^bytes (:body response) StandardCharsets/UTF_8) {:keywords? true}))

(deftest json-responses
  (let [answer (fn [body & [headers]]
                 (mw/wrap-json-response (fn
                                          ([_] {:status 200 :headers (or headers {}) :body body})
                                          ([_ respond _] (respond {:status 200 :headers (or headers {}) :body body})))))
        get (fn [h & [accept]] (h {:request-method :get :uri "/" :headers (if accept {"accept" accept} {})}))]
    (testing "maps, vectors and sets become JSON bytes with a JSON Content-Type"
      (doseq [body [{:a 1 :b [1 2]} [1 "two" nil] #{:x}]]
        (let [r (get (answer body))]
          (is (= (if (set? body) ["x"] (json/read (json/write body) {:keywords? true})) (json-body r)))
          (is (= "application/json; charset=utf-8" (get-in r [:headers "Content-Type"]))))))
    (testing "a Content-Type the handler set stays"
      (is (= {"content-type" "application/vnd.x+json"}
             (:headers (get (answer {:a 1} {"content-type" "application/vnd.x+json"}))))))
    (testing "other bodies pass as they are"
      (is (= "text" (:body (get (answer "text")))))
      (let [s (map str (range 3))] (is (identical? s (:body (get (answer s))))))
      (is (nil? ((mw/wrap-json-response (constantly nil)) {}))))
    (testing "the async arity"
      (is (= {:a 1} (json-body (async (answer {:a 1}) {:headers {}})))))
    (testing "Accept is honoured: 406 when it refuses JSON"
      (is (= 200 (:status (get (answer {:a 1}) "application/json"))))
      (is (= 200 (:status (get (answer {:a 1}) "text/html,application/xhtml+xml,*/*;q=0.8"))))
      (is (= 200 (:status (get (answer {:a 1}) "application/*"))))
      (is (= 406 (:status (get (answer {:a 1}) "text/html"))))
      (is (= 406 (:status (get (answer {:a 1}) "application/json;q=0, */*"))))
      (is (= 406 (:status (async (answer {:a 1}) {:headers {"accept" "image/png"}}))))
      (is (= 200 (:status ((mw/wrap-json-response (constantly {:status 200 :body {:a 1}}) {:negotiate? false})
                           {:headers {"accept" "text/html"}}))))
      (is (= "plain" (:body (get (answer "plain") "text/html"))) "only JSON answers are negotiated"))
    (testing ":not-acceptable makes the 406, a data body as JSON, in both arities"
      (let [h (mw/wrap-json-response (fn
                                       ([_] {:status 200 :body {:a 1}})
                                       ([_ respond _] (respond {:status 200 :body {:a 1}})))
                                     {:not-acceptable (fn [request]
                                                        {:status 406
                                                         :body {:error "JSON only" :accept (get-in request [:headers "accept"])}})})
            request {:request-method :get :uri "/" :headers {"accept" "text/html"}}]
        (doseq [r [(h request) (async h request)]]
          (is (= 406 (:status r)))
          (is (= {:error "JSON only" :accept "text/html"} (json-body r)))
          (is (= "application/json; charset=utf-8" (get-in r [:headers "Content-Type"]))))
        (is (= {:a 1} (json-body (h (assoc-in request [:headers "accept"] "application/json")))))
        (is (= :not-acceptable (:key (ex-data (try (mw/wrap-json-response identity {:not-acceptable {:status 406}})
                                                   (catch clojure.lang.ExceptionInfo e e))))))))
    (testing "options"
      (is (= "{\n  \"a\": 1\n}" (String. ^bytes (:body ((mw/wrap-json-response (constantly {:status 200 :body {:a 1}})
                                                                                {:pretty? true}) {}))
                                         StandardCharsets/UTF_8))))
    (testing "acceptable? tells what Accept takes"
      (is (mw/acceptable? {:headers {"accept" "application/*;q=0.5"}} "application/json"))
      (is (not (mw/acceptable? {:headers {"accept" "text/*"}} "application/json")))
      (is (mw/acceptable? {:headers {}} "application/json")))))

(deftest behind-onager
  (let [app (-> (router/router [["/echo" {:post (fn [request] {:status 200 :body {:got (:body-params request)}})}]])
                (mw/wrap-json-body {:max-bytes 4096})
                (mw/wrap-json-response))
        async-app (fn [request respond raise] (respond (app request)))
        post (fn [s body & [headers]]
               (ts/request (ts/url s "/echo") {:method :post :body body
                                               :headers (merge {"Content-Type" "application/json"} headers)}))]
    (doseq [[label handler opts] [["virtual" app {}] ["event-loop" app {:handler-mode :event-loop}]
                                  ["async" async-app {:async? true}]]]
      (testing label
        (ts/with-server [s handler (merge {:vertx @ts/shared-vertx :max-body 2048} opts)]
          (is (= {:got {:a [1 2]}} (json/read (:body (post s "{\"a\":[1,2]}")) {:keywords? true})))
          (is (= "application/json; charset=utf-8" (ts/header (post s "{}") "content-type")))
          (let [r (post s "{\"a\":")]
            (is (= 400 (:status r)))
            (is (str/includes? (get (json/read (:body r)) "error") "line 1, column 6")))
          (is (= 415 (:status (post s "a=1" {"Content-Type" "application/x-www-form-urlencoded"}))))
          (testing "the server's :max-body (2048) holds under :max-bytes (4096)"
            (let [big (str "[" (str/join "," (repeat 2000 "1")) "]")]
              (is (= 413 (:status (post s big))) "declared length")
              (is (= 413 (:status (post s (ByteArrayInputStream. (.getBytes big StandardCharsets/UTF_8)))))
                  "chunked, so only reading finds it"))))))
    (testing ":max-bytes under the server's :max-body answers first"
      (ts/with-server [s (mw/wrap-json-body app {:max-bytes 100}) {:vertx @ts/shared-vertx}]
        (let [r (post s (ByteArrayInputStream. (.getBytes (str "[" (str/join "," (repeat 200 "1")) "]")
                                                          StandardCharsets/UTF_8)))]
          (is (= 413 (:status r)))
          (is (str/includes? (get (json/read (:body r)) "error") "100 bytes")))))))
