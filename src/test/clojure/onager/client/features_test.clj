(ns onager.client.features-test
  "Cookies, proxies, multipart bodies and core.async channels."
  (:require [clojure.core.async :as async]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.client :as client]
            [onager.client-support :refer [error-of http-proxy socks5-proxy with-client with-raw-server]]
            [onager.server :as server]
            [onager.test-support :refer [with-server url]]
            [onager.tls :as tls])
  (:import [java.io ByteArrayInputStream File]
           [java.nio.charset StandardCharsets]))

(set! *warn-on-reflection* true)

(defn- cookie-app [req]
  (case (:uri req)
    "/login" {:status 302 :headers {"set-cookie" ["session=abc; Path=/" "theme=dark; Path=/prefs"]
                                   "location" "/home"} :body ""}
    "/home" {:status 200 :body (str (get-in req [:headers "cookie"]))}
    "/prefs/x" {:status 200 :body (str (get-in req [:headers "cookie"]))}
    "/logout" {:status 200 :headers {"set-cookie" "session=; Max-Age=0; Path=/"} :body ""}))

(deftest cookies
  (with-server [s cookie-app {}]
    (let [store (client/cookie-store)]
      (testing "a redirect's Set-Cookie is kept and sent on the way"
        (is (= "session=abc" (:body (client/get (url s "/login") {:cookie-store store})))))
      (testing "by path"
        (is (= #{"session=abc" "theme=dark"}
               (set (str/split (:body (client/get (url s "/prefs/x") {:cookie-store store})) #"; ")))))
      (is (= #{"session" "theme"} (set (map :name (client/cookies store)))))
      (testing "a cookie set to expire goes"
        (client/get (url s "/logout") {:cookie-store store})
        (is (= "" (:body (client/get (url s "/home") {:cookie-store store})))))
      (testing "a client's own store"
        (with-client [c {:cookie-store (client/cookie-store)}]
          (client/get (url s "/login") {:client c})
          (is (= "session=abc" (:body (client/get (url s "/home") {:client c}))))))
      (testing "without a store, none are kept"
        (client/get (url s "/login"))
        (is (= "" (:body (client/get (url s "/home")))))))))

(deftest proxies
  (with-server [s (fn [req] {:status 200 :body (str "via " (:uri req))}) {}]
    (testing "an HTTP proxy, by absolute URL"
      (let [seen (atom [])]
        (with-raw-server [p (http-proxy seen nil)]
          (with-client [c {:proxy {:host "127.0.0.1" :port (:port p)}}]
            (is (= "via /a" (:body (client/get (url s "/a") {:client c}))))
            (is (= [(str "GET " (url s "/a") " HTTP/1.1")] @seen))))))
    (testing "an HTTP proxy that wants credentials"
      (let [seen (atom [])]
        (with-raw-server [p (http-proxy seen "u:p")]
          (is (= "via /b" (:body (client/get (url s "/b") {:proxy {:host "127.0.0.1" :port (:port p)
                                                                   :username "u" :password "p"}}))))
          (is (= 407 (:status (client/get (url s "/b") {:proxy {:host "127.0.0.1" :port (:port p)}
                                                         :throw-exceptions? false})))))))
    (testing "https through an HTTP proxy: a CONNECT tunnel"
      (let [seen (atom []) files (tls/self-signed)]
        (with-server [t (fn [req] {:status 200 :body (str "tunnelled " (name (:scheme req)))})
                      (merge {:port nil :ssl-port 0} files)]
          (with-raw-server [p (http-proxy seen nil)]
            (with-client [c {:ssl-ca (:ssl-cert files) :proxy {:host "127.0.0.1" :port (:port p)}}]
              (is (= "tunnelled https" (:body (client/get (str "https://127.0.0.1:" (server/ssl-port t) "/")
                                                          {:client c}))))
              (is (= [(str "CONNECT 127.0.0.1:" (server/ssl-port t) " HTTP/1.1")] @seen)))))))
    (testing "SOCKS5"
      (let [seen (atom [])]
        (with-raw-server [p (socks5-proxy seen)]
          (is (= "via /c" (:body (client/get (url s "/c") {:proxy {:host "127.0.0.1" :port (:port p)
                                                                   :type :socks5}}))))
          (is (= [(str "127.0.0.1:" (server/port s))] @seen)))))
    (testing "hosts that go direct"
      (let [seen (atom [])]
        (with-raw-server [p (http-proxy seen nil)]
          (with-client [c {:proxy {:host "127.0.0.1" :port (:port p)} :non-proxy-hosts ["127.0.0.1"]}]
            (is (= "via /d" (:body (client/get (url s "/d") {:client c}))))
            (is (empty? @seen))))))
    (testing "a bad :proxy names the key"
      (is (= :proxy (:key (error-of #(client/get (url s "/") {:proxy {:host "x"}})))))
      (is (= :invalid-option (:onager/error (error-of #(client/client {:proxy {:port 1}}))))))))

(defn- multipart-echo [req]
  {:status 200
   :body (str (get-in req [:headers "content-type"]) "\n" (get-in req [:headers "content-length"]) "\n"
              (slurp (:body req)))})

(deftest multipart-bodies
  (with-server [s multipart-echo {}]
    (let [file (doto (File/createTempFile "onager-part" ".txt") (.deleteOnExit))]
      (spit file "file contents")
      (let [[content-type length body]
            (str/split (:body (client/post (url s "/m") {:multipart [{:name "title" :content "Hi \"you\""}
                                                                     {:name "data" :content (.getBytes "bytes" StandardCharsets/UTF_8)
                                                                      :mime-type "application/octet-stream"}
                                                                     {:name "upload" :content file :mime-type "text/plain"}]}))
                       #"\n" 3)
            boundary (second (re-find #"boundary=(\S+)" content-type))]
        (is (str/starts-with? content-type "multipart/form-data; boundary="))
        (is (= (count (.getBytes ^String body StandardCharsets/UTF_8)) (parse-long length)) "the length is known")
        (is (= (str "--" boundary "\r\n"
                    "Content-Disposition: form-data; name=\"title\"\r\n\r\nHi \"you\"\r\n"
                    "--" boundary "\r\n"
                    "Content-Disposition: form-data; name=\"data\"\r\nContent-Type: application/octet-stream\r\n\r\nbytes\r\n"
                    "--" boundary "\r\n"
                    "Content-Disposition: form-data; name=\"upload\"; filename=\"" (.getName file) "\"\r\n"
                    "Content-Type: text/plain\r\n\r\nfile contents\r\n"
                    "--" boundary "--\r\n")
               body))))
    (testing "a stream among the parts: chunked"
      (let [[_ length body] (str/split (:body (client/post (url s "/m") {:multipart [{:name "s" :content (ByteArrayInputStream. (.getBytes "streamed" StandardCharsets/UTF_8))}]}))
                                       #"\n" 3)]
        (is (= "" length))
        (is (str/includes? body "\r\n\r\nstreamed\r\n"))))
    (testing "a bad part names the key"
      (is (= :multipart (:key (error-of #(client/post (url s "/m") {:multipart [{:name "x" :content 42}]}))))))))

(deftest core-async-channels
  (with-server [s (fn [_] {:status 200 :body "ok"}) {}]
    (let [ch (client/request-chan {:url (url s "/")})]
      (is (= "ok" (:body (async/<!! ch)))))
    (let [ch (client/request-chan {:url "http://127.0.0.1:1/"})]
      (is (= :connect-failed (:onager/error (ex-data (async/<!! ch))))))))
