(ns onager.server.request-test
  "The request map, key by key against the Ring 1.x SPEC, in every handler mode
  and arity; and the map itself behaving as a persistent map."
  (:require [clojure.edn :as edn]
            [clojure.test :refer [deftest is testing]]
            [onager.server :as server]
            [onager.test-support :as ts]))

(defn- reply
  "A handler answering (f request) as EDN."
  [f]
  (fn [request] {:status 200 :headers {"Content-Type" "application/edn"} :body (pr-str (f request))}))

(defn- read-reply [response]
  (is (= 200 (:status response)) (:body response))
  (edn/read-string (:body response)))

(defn- raw-reply
  "Sends raw request text, returns the EDN body of the (single) response."
  [s text]
  (let [{:keys [text]} (ts/raw s text)
        body (second (re-find #"(?s)\r\n\r\n(.*)$" text))]
    (is (= [200] (ts/statuses text)) text)
    (edn/read-string body)))

(deftest server-port
  (ts/each-combo [s (reply (fn [r] [(:server-port r) (instance? Integer (:server-port r))]))]
    (is (= [(server/port s) true] (read-reply (ts/request (ts/url s "/")))))))

(deftest server-name
  (ts/each-combo [s (reply :server-name)]
    (testing "from the Host header, without its port"
      (is (= "127.0.0.1" (read-reply (ts/request (ts/url s "/")))))
      (is (= "example.test" (raw-reply s "GET / HTTP/1.1\r\nHost: example.test:1234\r\nConnection: close\r\n\r\n"))))
    (testing "the server's address when the request has no Host (HTTP/1.0)"
      (is (= "127.0.0.1" (raw-reply s "GET / HTTP/1.0\r\n\r\n"))))
    (testing "from an absolute-form target, which wins over Host (RFC 9112 §3.2.2)"
      (is (= "a.example" (raw-reply s "GET http://a.example/x HTTP/1.1\r\nHost: b.example\r\nConnection: close\r\n\r\n")))
      (is (= "a.example" (raw-reply s "GET http://a.example:8081?q HTTP/1.1\r\nHost: b.example\r\nConnection: close\r\n\r\n")))
      (is (= "a.example" (raw-reply s (str "GET http://a.example/x HTTP/1.0\r\nConnection: close\r\n\r\n")))))
    (testing "from Host when the target's authority is empty"
      (is (= "b.example" (raw-reply s "GET http:///x HTTP/1.1\r\nHost: b.example\r\nConnection: close\r\n\r\n"))))))

(deftest an-absolute-form-target
  (ts/each-combo [s (reply (juxt :server-name :server-port :uri :query-string #(get-in % [:headers "host"])))]
    (testing ":server-port stays the port the request came in on (Ring SPEC); Host stays in :headers"
      (is (= ["a.example" (server/port s) "/x" "q=1" "b.example"]
             (raw-reply s "GET http://a.example:8081/x?q=1 HTTP/1.1\r\nHost: b.example\r\nConnection: close\r\n\r\n"))))))

(deftest remote-addr
  (ts/each-combo [s (reply :remote-addr)]
    (is (= "127.0.0.1" (read-reply (ts/request (ts/url s "/")))))
    (testing "X-Forwarded-For is not trusted unless asked for"
      (is (= "127.0.0.1" (read-reply (ts/request (ts/url s "/") {:headers {"X-Forwarded-For" "6.6.6.6"}})))))))

(deftest uri
  (ts/each-combo [s (reply :uri)]
    (is (= "/" (read-reply (ts/request (ts/url s "/")))))
    (testing "the path as sent: not decoded, without the query"
      (is (= "/a/b%20c/%E2%82%AC" (read-reply (ts/request (ts/url s "/a/b%20c/%E2%82%AC?x=1"))))))
    (testing "absolute-form request targets give the path alone"
      (is (= "/p/q" (raw-reply s "GET http://example.test/p/q?x=1 HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n"))))))

(deftest query-string
  (ts/each-combo [s (reply (fn [r] [(contains? r :query-string) (:query-string r)]))]
    (testing "without ? and not decoded"
      (is (= [true "x=1&y=a%20b&z"] (read-reply (ts/request (ts/url s "/p?x=1&y=a%20b&z"))))))
    (testing "nil when the URI has none"
      (is (= [true nil] (read-reply (ts/request (ts/url s "/p"))))))))

(deftest scheme
  (ts/each-combo [s (reply :scheme)]
    (is (= :http (read-reply (ts/request (ts/url s "/")))))))

(deftest request-method
  (ts/each-combo [s (reply :request-method)]
    (doseq [m [:get :post :put :delete :patch :options]]
      (is (= m (read-reply (ts/request (ts/url s "/") {:method m})))))
    (testing "HEAD: the method is seen, the body is not sent"
      (let [r (ts/raw s "HEAD / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")]
        (is (= [200] (ts/statuses (:text r))))
        (is (re-find #"(?i)content-length: 5\r\n" (:text r)))
        (is (.endsWith ^String (:text r) "\r\n\r\n"))))
    (testing "extension methods become lower-case keywords"
      (is (= :propfind (raw-reply s "PROPFIND / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))))))

(deftest protocol
  (ts/each-combo [s (reply :protocol)]
    (is (= "HTTP/1.1" (read-reply (ts/request (ts/url s "/")))))
    (is (= "HTTP/1.0" (raw-reply s "GET / HTTP/1.0\r\n\r\n")))))

(deftest headers
  (ts/each-combo [s (reply :headers)]
    (let [h (raw-reply s (str "GET / HTTP/1.1\r\nHost: h.test\r\nX-Mixed-Case: A\r\n"
                              "Accept: text/html\r\nAccept: application/json\r\n"
                              "Cookie: a=1\r\nCookie: b=2\r\nConnection: close\r\n\r\n"))]
      (is (map? h))
      (testing "names are lower case"
        (is (= "A" (get h "x-mixed-case")))
        (is (not (contains? h "X-Mixed-Case"))))
      (testing "repeated headers are joined with a comma"
        (is (= "text/html, application/json" (get h "accept"))))
      (testing "cookie headers are joined with a semicolon (Ring 1.11+)"
        (is (= "a=1; b=2" (get h "cookie"))))
      (is (= "h.test" (get h "host"))))))

(deftest body
  (ts/each-combo [s (reply (fn [r] [(instance? java.io.InputStream (:body r)) (slurp (:body r))]))]
    (testing "an InputStream with the request body"
      (is (= [true "hello, body"] (read-reply (ts/request (ts/url s "/") {:method :post :body "hello, body"})))))
    (testing "an empty InputStream when there is no body"
      (is (= [true ""] (read-reply (ts/request (ts/url s "/"))))))
    (testing "a chunked body"
      (is (= [true "hello world"]
             (raw-reply s (str "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                               "6\r\nhello \r\n5\r\nworld\r\n0\r\n\r\n")))))))

(deftest deprecated-keys
  (testing ":content-type, :content-length and :character-encoding, as ring-servlet fills them"
    (ts/each-combo [s (reply (juxt :content-type :content-length :character-encoding))]
      (is (= ["text/plain; charset=ISO-8859-1" 3 "ISO-8859-1"]
             (read-reply (ts/request (ts/url s "/") {:method :post :body "abc"
                                                     :headers {"Content-Type" "text/plain; charset=ISO-8859-1"}}))))
      (is (= [nil nil nil] (raw-reply s "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))))))

(deftest ssl-client-cert
  (testing "absent on plain HTTP"
    (ts/each-combo [s (reply #(contains? % :ssl-client-cert))]
      (is (false? (read-reply (ts/request (ts/url s "/"))))))))

(def ^:private spec-keys
  #{:server-port :server-name :remote-addr :uri :query-string :scheme :request-method :protocol
    :headers :body :content-type :content-length :character-encoding})

(deftest the-map-is-a-persistent-map
  (ts/with-server [s (reply (fn [r]
                              (let [plain (into {} r)
                                    more (assoc r :user "ann")
                                    replaced (assoc r :uri "/other")
                                    fewer (dissoc r :uri)]
                                {:keys (set (keys r))
                                 :count (count r)
                                 :equal-to-plain (= r plain)
                                 :plain-equal (= plain r)
                                 :hash (= (hash r) (hash plain))
                                 :assoc [(:user more) (count more) (contains? more :user) (:uri more)]
                                 :replace [(:uri replaced) (count replaced) (:uri r)]
                                 :dissoc [(contains? fewer :uri) (count fewer) (:uri fewer)]
                                 :dissoc-absent (identical? r (dissoc r :nope))
                                 :reassoc [(:uri (assoc fewer :uri "/back")) (count (assoc fewer :uri "/back"))]
                                 :lookup [(get r :nope :default) (r :uri) (:uri r) (find r :uri)]
                                 :meta (meta (with-meta r {:m 1}))
                                 :meta-kept (:m (meta (assoc (with-meta r {:m 1}) :a 1)))
                                 :empty (empty r)
                                 :merge (:x (merge r {:x 1}))
                                 :select (select-keys r [:uri :request-method])
                                 :update (:uri (update r :uri str "/x"))
                                 :reduce-kv (reduce-kv (fn [n _ _] (inc n)) 0 r)
                                 :printed (boolean (re-find #":request-method :get" (pr-str r)))
                                 :java-map [(.get ^java.util.Map r :uri) (.size ^java.util.Map r)]})))
                    {}]
    (let [m (read-reply (ts/request (ts/url s "/p?q=1")))]
      (is (= spec-keys (:keys m)))
      (is (= (count spec-keys) (:count m)))
      (is (:equal-to-plain m))
      (is (:plain-equal m))
      (is (:hash m))
      (is (= ["ann" (inc (count spec-keys)) true "/p"] (:assoc m)))
      (is (= ["/other" (count spec-keys) "/p"] (:replace m)))
      (is (= [false (dec (count spec-keys)) nil] (:dissoc m)))
      (is (:dissoc-absent m))
      (is (= ["/back" (count spec-keys)] (:reassoc m)))
      (is (= [:default "/p" "/p" [:uri "/p"]] (:lookup m)))
      (is (= {:m 1} (:meta m)))
      (is (= 1 (:meta-kept m)))
      (is (= {} (:empty m)))
      (is (= 1 (:merge m)))
      (is (= {:uri "/p" :request-method :get} (:select m)))
      (is (= "/p/x" (:update m)))
      (is (= (count spec-keys) (:reduce-kv m)))
      (is (:printed m))
      (is (= ["/p" (count spec-keys)] (:java-map m))))))

(deftest values-are-computed-once-per-request
  (testing "reading :headers twice gives the very same map"
    (ts/with-server [s (reply (fn [r] (identical? (:headers r) (:headers (assoc r :x 1))))) {}]
      (is (true? (read-reply (ts/request (ts/url s "/"))))))))
