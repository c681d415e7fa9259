(ns onager.client.redirects-test
  "Redirects: which are followed under each policy, what a redirect does to
  the method, the body and the credentials, and where relative locations
  lead. Two servers on two ports are two origins."
  (:require [clojure.test :refer [deftest is testing]]
            [onager.client :as client]
            [onager.client-support :refer [error-of]]
            [onager.json :as json]
            [onager.server :as server]
            [onager.test-support :refer [with-server url]]
            [onager.tls :as tls])
  (:import [java.io ByteArrayInputStream]
           [java.nio.charset StandardCharsets]))

(set! *warn-on-reflection* true)

(defn- landing [req]
  {:status 200
   :headers {"content-type" "application/json"}
   :body (json/write {:method (name (:request-method req))
                      :uri (:uri req)
                      :body (not-empty (some-> (:body req) slurp))
                      :authorization (get-in req [:headers "authorization"])
                      :cookie (get-in req [:headers "cookie"])
                      :content-type (get-in req [:headers "content-type"])})})

(defn- redirector
  "Answers /NNN?to=location with status NNN and that Location; anything else lands."
  [req]
  (if-let [[_ status] (re-matches #"/(\d{3})" (:uri req))]
    (do (some-> (:body req) slurp)
        {:status (parse-long status) :headers {"location" (subs (:query-string req) 3)} :body "moved"})
    (landing req)))

(defn- landed [response] (json/read (:body response) {:keywords? true}))

(deftest statuses-and-methods
  (with-server [s redirector {}]
    (doseq [[status method expected-method expected-body]
            [[301 :get "get" nil] [302 :get "get" nil] [303 :get "get" nil] [307 :get "get" nil] [308 :get "get" nil]
             [301 :post "get" nil] [302 :post "get" nil] [303 :post "get" nil]
             [307 :post "post" "kept"] [308 :post "post" "kept"]
             [303 :put "get" nil] [307 :put "put" "kept"]]]
      (testing (str status " after " method)
        (let [r (client/request {:method method :url (url s (str "/" status "?to=/landed")) :body (when (not= method :get) "kept")})]
          (is (= 200 (:status r)))
          (is (= [(url s "/landed")] (:trace-redirects r)))
          (is (= (url s "/landed") (:url r)))
          (is (= {:method expected-method :body expected-body}
                 (select-keys (landed r) [:method :body])))
          (when (= expected-method "get")
            (is (nil? (:content-type (landed r))) "the body's headers go with it")))))))

(deftest relative-locations
  (with-server [s redirector {}]
    (doseq [[location expected] [["/abs/path" "/abs/path"]
                                  ["sibling" "/sibling"]
                                  [(url s "/full") "/full"]
                                  [(str "//127.0.0.1:" (server/port s) "/scheme-relative") "/scheme-relative"]]]
      (testing location
        (is (= expected (:uri (landed (client/get (url s (str "/302?to=" location)))))))))))

(deftest policies-across-origins
  (with-server [a redirector {}]
    (with-server [b landing {}]
      (let [to-b (url a (str "/302?to=" (url b "/there")))
            to-a (url a "/302?to=/here")]
        (testing ":normal (the default) follows to another origin, without the credentials"
          (let [r (landed (client/get to-b {:basic-auth ["u" "p"] :headers {"cookie" "c=1"}}))]
            (is (= "/there" (:uri r)))
            (is (nil? (:authorization r)))
            (is (nil? (:cookie r)))))
        (testing "within one origin the credentials go on"
          (let [r (landed (client/get to-a {:basic-auth ["u" "p"] :headers {"cookie" "c=1"}}))]
            (is (= "Basic dTpw" (:authorization r)))
            (is (= "c=1" (:cookie r)))))
        (testing ":same-origin answers with the redirect to another origin"
          (let [r (client/get to-b {:redirects :same-origin})]
            (is (= 302 (:status r)))
            (is (= (url b "/there") (get-in r [:headers "location"]))))
          (is (= "/here" (:uri (landed (client/get to-a {:redirects :same-origin}))))))
        (testing ":none follows nothing"
          (is (= 302 (:status (client/get to-a {:redirects :none})))))
        (testing "a client's own policy"
          (let [c (client/client {:redirects :none})]
            (try (is (= 302 (:status (client/get to-a {:client c}))))
                 (finally (client/close c)))))))))

(deftest https-to-http
  (let [files (tls/self-signed)]
    (with-server [plain landing {}]
      (with-server [secure redirector (merge {:port nil :ssl-port 0} files)]
        (let [from (str "https://127.0.0.1:" (server/ssl-port secure) "/302?to=" (url plain "/down"))
              c (client/client {:ssl-ca (:ssl-cert files)})]
          (try
            (testing ":normal does not go from https to http"
              (is (= 302 (:status (client/get from {:client c})))))
            (testing ":all does"
              (is (= "/down" (:uri (landed (client/get from {:client c :redirects :all}))))))
            (finally (client/close c))))))))

(deftest limits-and-bodies-sent-once
  (with-server [s redirector {}]
    (testing ":max-redirects"
      (let [e (error-of #(client/get (url s "/302?to=/302?to=/landed") {:max-redirects 1}))]
        (is (= :too-many-redirects (:onager/error e))))
      (is (= 200 (:status (client/get (url s "/302?to=/302?to=/landed") {:max-redirects 2})))))
    (testing "a streamed body cannot go twice: the 307 is the answer"
      (let [r (client/post (url s "/307?to=/landed")
                           {:body (ByteArrayInputStream. (.getBytes "once" StandardCharsets/UTF_8))})]
        (is (= 307 (:status r)))))
    (testing "after a 303 a streamed body is not needed"
      (let [r (client/post (url s "/303?to=/landed")
                           {:body (ByteArrayInputStream. (.getBytes "once" StandardCharsets/UTF_8))})]
        (is (= "get" (:method (landed r))))))))
