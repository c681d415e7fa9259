(ns onager.client.basics-test
  "The client against Onager's server: methods, headers, every request body
  and every :as, the three ways to wait, and the request keys clj-http users
  bring."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.client :as client]
            [onager.client-support :refer [raw-url read-head with-client with-raw-server write!]]
            [onager.json :as json]
            [onager.server :as server]
            [onager.test-support :refer [with-server url]])
  (:import [java.io ByteArrayInputStream File]
           [java.nio ByteBuffer]
           [java.nio.charset StandardCharsets]
           [java.util.concurrent CompletableFuture TimeUnit]))

(set! *warn-on-reflection* true)

(defn- echo
  "Answers with what it got: method, query, the request headers and the body."
  [req]
  {:status 200
   :headers {"content-type" "application/json"}
   :body (json/write {:method (name (:request-method req))
                      :query (:query-string req)
                      :headers (:headers req)
                      :body (some-> (:body req) slurp)})})

(defn- got [response] (json/read (:body response) {:keywords? true}))

(deftest methods-and-request-heads
  (with-server [s echo {}]
    (doseq [[f method] [[client/get "get"] [client/post "post"] [client/put "put"] [client/patch "patch"]
                        [client/delete "delete"] [client/options "options"]]]
      (testing method
        (let [r (f (url s "/x?a=1") {:headers {"x-one" "1" :x-two ["a" "b"]}})]
          (is (= 200 (:status r)))
          (is (= method (:method (got r))))
          (is (= "a=1" (:query (got r))))
          (is (= "1" (get-in (got r) [:headers :x-one])))
          (is (= "a, b" (get-in (got r) [:headers :x-two])) "a sequence sends the header once per value")
          (is (= "onager" (get-in (got r) [:headers :user-agent]))))))
    (testing "HEAD has no body"
      (let [r (client/head (url s "/x"))]
        (is (= 200 (:status r)))
        (is (= "" (:body r)))))
    (testing "a Ring-style request map"
      (let [r (client/request {:request-method :post :scheme :http :server-name "127.0.0.1"
                               :server-port (server/port s) :uri "/ring" :query-string "q=1"
                               :body "b"})]
        (is (= {:method "post" :query "q=1" :body "b"} (select-keys (got r) [:method :query :body])))))))

(deftest the-response-map
  (with-server [s (fn [_] {:status 201
                           :headers {"content-type" "text/plain; charset=utf-8" "set-cookie" ["a=1" "b=2"]}
                           :body "hé"})
                {}]
    (let [r (client/get (url s "/r"))]
      (is (= 201 (:status r)))
      (is (= "hé" (:body r)))
      (is (= :http-1.1 (:version r)))
      (is (= (url s "/r") (:url r)))
      (is (= [] (:trace-redirects r)))
      (is (= ["a=1" "b=2"] (get-in r [:headers "set-cookie"])) "a repeated header's values in a vector")
      (is (= "text/plain; charset=utf-8" (get-in r [:headers "content-type"])) "header names in lower case")
      (testing "the headers, made when first read, are a map like any other"
        (let [h (:headers r)
              plain (into {} h)]
          (is (map? h))
          (is (= plain h))
          (is (= (hash plain) (hash h)))
          (is (= (set (keys plain)) (set (keys h))))
          (is (= (count plain) (reduce-kv (fn [n _ _] (inc n)) 0 h)))
          (is (= "1" (get (assoc h "x-added" "1") "x-added")))
          (is (not (contains? (dissoc h "set-cookie") "set-cookie")))
          (is (= {:k 1} (meta (with-meta h {:k 1}))))
          (is (= plain (read-string (pr-str h))))))))
  (testing "names in any case, from a server that writes them capitalized"
    (with-raw-server [rs (fn [^java.net.Socket s _]
                           (read-head (.getInputStream s))
                           (write! (.getOutputStream s)
                                   (str "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Custom-Thing: a\r\n"
                                        "SET-COOKIE: a=1\r\nSet-Cookie: b=2\r\nContent-Length: 2\r\n\r\nok")))]
      (is (= {"content-type" "text/plain" "x-custom-thing" "a" "set-cookie" ["a=1" "b=2"] "content-length" "2"}
             (:headers (client/get (raw-url rs "/"))))))))

(deftest a-requests-fields-stay-its-own
  (with-server [s echo {}]
    (with-client [c {}]
      (let [heads (fn [req] (:headers (got (client/request (merge {:client c :method :post :url (url s "/h")} req)))))]
        (is (= {:content-type "text/csv" :accept "application/json" :authorization "Bearer t"}
               (select-keys (heads {:content-type "text/csv" :accept :json :oauth-token "t" :body "a,b"})
                            [:content-type :accept :authorization])))
        (is (= "application/json" (:content-type (heads {:json-params {:a 1}}))))
        (is (str/starts-with? (:content-type (heads {:multipart [{:name "f" :content "x"}]})) "multipart/form-data"))
        (let [plain (heads {})]
          (is (= "onager" (:user-agent plain)) "the client's User-Agent")
          (is (= {} (select-keys plain [:content-type :accept :authorization]))
              "none of the fields the requests before set"))
        (is (= "mine" (:user-agent (heads {:headers {"User-Agent" "mine"}}))) "a request's own User-Agent")
        (is (= "onager" (:user-agent (heads {:headers {"x-a" "1"}}))))))))

(deftest request-bodies
  (with-server [s echo {}]
    (let [body-of (fn [req] (:body (got (client/post (url s "/b") req))))
          file (doto (File/createTempFile "onager-client" ".txt") (.deleteOnExit))]
      (spit file "from a file")
      (is (= "text" (body-of {:body "text"})))
      (is (= "bytes" (body-of {:body (.getBytes "bytes" StandardCharsets/UTF_8)})))
      (is (= "buffer" (body-of {:body (ByteBuffer/wrap (.getBytes "buffer" StandardCharsets/UTF_8))})))
      (is (= "from a file" (body-of {:body file})))
      (is (= "from a file" (body-of {:body (.toPath file)})))
      (is (= "streamed" (body-of {:body (ByteArrayInputStream. (.getBytes "streamed" StandardCharsets/UTF_8))})))
      (is (= "0123" (body-of {:body (map str (range 4))})) "a lazy seq, item by item")
      (is (= "ab" (body-of {:body ["a" (.getBytes "b" StandardCharsets/UTF_8)]})))
      (testing "a string in the charset its Content-Type names"
        (let [r (got (client/post (url s "/b") {:body "é" :headers {"content-type" "text/plain; charset=ISO-8859-1"}}))]
          (is (= "text/plain; charset=ISO-8859-1" (get-in r [:headers :content-type])))))
      (testing "form params, percent-encoded in UTF-8, a sequence repeating the name"
        (let [r (got (client/post (url s "/b") {:form-params {:a "1 2" "b" "é" :c [1 2]}}))]
          (is (= "a=1%202&b=%C3%A9&c=1&c=2" (:body r)))
          (is (= "application/x-www-form-urlencoded" (get-in r [:headers :content-type])))))
      (testing "JSON params"
        (let [r (got (client/post (url s "/b") {:json-params {:x [1 2]}}))]
          (is (= {:x [1 2]} (json/read (:body r) {:keywords? true})))
          (is (= "application/json" (get-in r [:headers :content-type])))))
      (testing "query params join the URL's own"
        (is (= "a=1&b=x%20y&c=1&c=2"
               (:query (got (client/get (url s "/q?a=1") {:query-params {:b "x y" :c [1 2]}}))))))
      (testing ":content-type and :accept keywords"
        (let [h (:headers (got (client/post (url s "/b") {:body "{}" :content-type :json :accept :json})))]
          (is (= "application/json" (:content-type h)))
          (is (= "application/json" (:accept h))))))))

(deftest response-bodies-as
  (let [payload {:a 1 :b ["x" nil]}]
    (with-server [s (fn [req]
                      (case (:uri req)
                        "/json" {:status 200 :headers {"content-type" "application/json"} :body (json/write payload)}
                        "/empty" {:status 200 :body ""}
                        "/latin1" {:status 200 :headers {"content-type" "text/plain; charset=ISO-8859-1"}
                                   :body (ByteArrayInputStream. (.getBytes "é" StandardCharsets/ISO_8859_1))}))
                  {}]
      (is (= payload (:body (client/get (url s "/json") {:as :json}))))
      (is (= {"a" 1 "b" ["x" nil]} (:body (client/get (url s "/json") {:as :json-string-keys}))))
      (is (nil? (:body (client/get (url s "/empty") {:as :json}))) "an empty body is nil")
      (is (= "é" (:body (client/get (url s "/latin1")))) "text in the Content-Type's charset")
      (is (= [(unchecked-byte 0xe9)] (vec (:body (client/get (url s "/latin1") {:as :bytes})))))
      (is (= [(unchecked-byte 0xe9)] (vec (:body (client/get (url s "/latin1") {:as :byte-array})))))
      (let [^ByteBuffer bb (:body (client/get (url s "/latin1") {:as :byte-buffer}))]
        (is (= 1 (.remaining bb))))
      (let [in (:body (client/get (url s "/json") {:as :stream}))]
        (is (instance? java.io.InputStream in))
        (is (= payload (json/read (slurp in) {:keywords? true})))))))

(deftest authentication
  (with-server [s echo {}]
    (let [auth (fn [req] (get-in (got (client/get (url s "/a") req)) [:headers :authorization]))]
      (is (= "Basic dXNlcjpww6Fzcw==" (auth {:basic-auth ["user" "páss"]})) "RFC 7617, in UTF-8")
      (is (= "Basic dXNlcjpwYXNz" (auth {:basic-auth "user:pass"})))
      (is (= "Bearer t0k" (auth {:oauth-token "t0k"})))
      (is (= "Basic dXNlcjpwQHNz"
             (get-in (got (client/get (str/replace (url s "/a") "http://" "http://user:p%40ss@")))
                     [:headers :authorization]))
          "user information in the URL"))))

(deftest three-ways-to-wait
  (with-server [s (fn [_] {:status 200 :body "ok"}) {}]
    (testing "a CompletableFuture"
      (let [f (client/get (url s "/") {:async? true})]
        (is (instance? CompletableFuture f))
        (is (= "ok" (:body (.get ^CompletableFuture f 10 TimeUnit/SECONDS))))))
    (testing "respond and raise, on the client's event loop"
      (let [p (promise)
            f (client/get (url s "/") {} #(deliver p [:respond (:body %) (.getName (Thread/currentThread))])
                          #(deliver p [:raise %]))]
        (is (instance? CompletableFuture f))
        (let [[which body thread] (deref p 10000 [:none])]
          (is (= :respond which))
          (is (= "ok" body))
          (is (str/includes? thread "eventloop")))))
    (testing "raise gets the error"
      (let [p (promise)]
        (client/get "http://127.0.0.1:1/" {} #(deliver p [:respond %]) #(deliver p [:raise (:onager/error (ex-data %))]))
        (is (= [:raise :connect-failed] (deref p 10000 [:none])))))))

(deftest a-client-of-its-own
  (with-server [s (fn [_] {:status 200 :body "ok"}) {}]
    (with-client [c {:user-agent nil :as :bytes}]
      (let [r (client/get (url s "/") {:client c})]
        (is (bytes? (:body r)) "the client's own :as")
        (is (= "ok" (String. ^bytes (:body r) StandardCharsets/UTF_8)))))
    (testing "sharing the server's Vert.x"
      (with-client [c {:vertx (server/vertx s)}]
        (is (= "ok" (:body (client/get (url s "/") {:client c}))))))
    (testing "closing it leaves a shared Vert.x open"
      (is (= "ok" (:body (client/get (url s "/"))))))))

(deftest large-bodies-both-ways
  (with-server [s (fn [req] {:status 200 :body (:body req)}) {:max-body (* 64 1024 1024)}]
    (let [big (byte-array (* 8 1024 1024) (byte 7))
          r (client/post (url s "/big") {:body (io/input-stream big) :as :bytes})]
      (is (= (alength big) (alength ^bytes (:body r))))
      (is (every? #(= 7 %) (take 1000 (:body r)))))))

(deftest no-waiting-on-an-event-loop
  (with-server [s (fn [_] {:status 200 :body "ok"}) {:handler-mode :event-loop}]
    (with-server [front (fn [_] (try (client/get (url s "/")) {:status 200 :body "waited"}
                                     (catch IllegalStateException e {:status 200 :body (.getMessage e)})))
                  {:handler-mode :event-loop}]
      (is (re-find #"cannot run on a Vert.x event loop" (:body (client/get (url front "/")))))))
  (testing "asynchronously it can"
    (with-server [s (fn [_] {:status 200 :body "inner"}) {}]
      (with-server [front (fn [_ respond raise]
                            (client/get (url s "/") {} #(respond {:status 200 :body (str "outer " (:body %))}) raise))
                    {:async? true}]
        (is (= "outer inner" (:body (client/get (url front "/")))))))))
