(ns onager.middleware.params-test
  "onager.middleware/wrap-params against ring-core 1.8's wrap-params (and
  wrap-keyword-params), run side by side in this JVM on the same requests:
  property tests over generated query strings and form bodies, the cases that
  matter spelt out, and a form posted to a real server."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [clojure.test.check :as tc]
            [clojure.test.check.generators :as gen]
            [clojure.test.check.properties :as prop]
            [onager.middleware :as mw]
            [onager.test-support :as ts]
            [ring.middleware.keyword-params :as ring-kw]
            [ring.middleware.params :as ring-params])
  (:import [clojure.lang ExceptionInfo]
           [java.io ByteArrayInputStream]
           [java.util.concurrent CompletableFuture TimeUnit]))

(set! *warn-on-reflection* true)

(def ^:private param-keys [:query-params :form-params :params])

(defn- body [^String s ^String charset]
  (ByteArrayInputStream. (.getBytes s charset)))

(defn- request
  "A request with query string `qs`, and a form body `form` in `charset` when given."
  [qs form charset content-type]
  (cond-> {:request-method (if form :post :get) :uri "/" :headers {}}
    qs (assoc :query-string qs)
    content-type (assoc-in [:headers "content-type"] content-type)
    form (assoc :body (body form charset))))

(defn- ours [req & [opts]] (select-keys ((mw/wrap-params identity (or opts {})) req) param-keys))
(defn- ring's [req & [opts]] (select-keys ((ring-params/wrap-params identity (or opts {})) req) param-keys))

(defn- same-as-ring?
  "Runs a request made by (make) through both (each needs its own body stream)."
  [make & [opts]]
  (= (ring's (make) opts) (ours (make) opts)))

;; ---- generators ----

(def ^:private gen-piece
  "Pieces of query strings: names, values, separators, escapes good and bad."
  (gen/frequency
   [[6 (gen/elements ["a" "b" "key" "x1" "café" "a.b" "1x" "-" "_k" "é" "✓" "日本" "😀" "?" "a?b"])]
    [3 (gen/elements ["=" "&" "&&" "=="])]
    [3 (gen/elements ["%20" "+" "%2B" "%26" "%3D" "%C3%A9" "%C2%A0" "%E9" "%E2%9C%93" "%F0%9F%98%80" "%ff"])]
    ;; UTF-8 cut short, overlong, a surrogate, a lone continuation byte
    [2 (gen/elements ["%C3" "%E2%9C" "%F0%9F%98" "%C0%80" "%C1%BF" "%ED%A0%80" "%A9" "%C3%C3"])]
    [1 (gen/elements ["%" "%4" "%zz" "%%" "%-1" "%+1" "%G0"])]
    [1 gen/string-alphanumeric]]))

(def ^:private gen-query (gen/fmap str/join (gen/vector gen-piece 0 20)))

(def ^:private content-types
  [nil
   "application/x-www-form-urlencoded"
   "application/x-www-form-urlencoded; charset=UTF-8"
   "application/x-www-form-urlencoded;charset=ISO-8859-1"
   "application/x-www-form-urlencoded; charset=\"UTF-16\""
   "application/x-www-form-urlencoded; charset=US-ASCII"
   "application/x-www-form-urlencoded; charset=windows-1252"
   "text/plain; charset=ISO-8859-1"
   "application/json"])

(defn- charset-of [content-type]
  (or (second (re-find #"charset=\"?([^\";]+)" (str content-type))) "UTF-8"))

(deftest query-strings-parse-as-ring-core-parses-them
  (let [result (tc/quick-check
                400
                (prop/for-all [qs gen-query
                               ct (gen/elements content-types)]
                  (same-as-ring? #(request qs nil nil ct))))]
    (is (:pass? result) (pr-str (:shrunk result)))))

(deftest form-bodies-parse-as-ring-core-parses-them
  (let [result (tc/quick-check
                300
                (prop/for-all [qs (gen/one-of [(gen/return nil) gen-query])
                               form gen-query
                               ct (gen/elements content-types)
                               encoding (gen/elements [nil "UTF-8" "ISO-8859-1" "US-ASCII"])]
                  (let [opts (when encoding {:encoding encoding})
                        charset (or encoding (charset-of ct))]
                    (same-as-ring? #(request qs form charset ct) opts))))]
    (is (:pass? result) (pr-str (:shrunk result)))))

(deftest keyword-keys-as-wrap-keyword-params-makes-them
  (let [ring-kw (ring-params/wrap-params (ring-kw/wrap-keyword-params identity))
        ours-kw (mw/wrap-params identity {:keywords? true})
        result (tc/quick-check
                300
                (prop/for-all [qs gen-query]
                  (let [req (request qs nil nil nil)]
                    (= (select-keys (ring-kw req) param-keys) (select-keys (ours-kw req) param-keys)))))]
    (is (:pass? result) (pr-str (:shrunk result))))
  (is (= {:a "1" :b-c "2" "1x" "3" "a.b" "4" :é "5" "" "6"}
         (:params (ours {:query-string "a=1&b-c=2&1x=3&a.b=4&%C3%A9=5&=6"} {:keywords? true})))))

(deftest the-cases-that-matter
  (testing "repeated keys become vectors, in order; the query string wins in :params"
    (let [r (ours (request "a=1&b=2&a=3&a=4" "a=form&c=5&c=6" "UTF-8" "application/x-www-form-urlencoded"))]
      (is (= {"a" ["1" "3" "4"] "b" "2"} (:query-params r)))
      (is (= {"a" "form" "c" ["5" "6"]} (:form-params r)))
      (is (= {"a" ["1" "3" "4"] "b" "2" "c" ["5" "6"]} (:params r)))))
  (testing "a key given many times (its values' array grows by one, then doubles), alone and among many keys"
    (let [values (map str (range 30))
          alone (str/join "&" (map #(str "t=" %) values))
          mixed (str/join "&" (mapcat (fn [v] [(str "t=" v) (str "k" (mod (parse-long v) 12) "=" v)]) values))]
      (is (= {"t" (vec values)} (:query-params (ours (request alone nil nil nil)))))
      (is (= (vec values) (get (:query-params (ours (request mixed nil nil nil))) "t")))
      (doseq [qs [alone mixed (str/join "&" (take 9 (str/split mixed #"&")))]]
        (is (same-as-ring? #(request qs nil nil nil)) qs))))
  (testing "decoding: + is a space, escapes in the charset, bad escapes drop their pair"
    (is (= {"q" "a b+c" "e" "é"} (:query-params (ours (request "q=a+b%2Bc&e=%C3%A9&bad=%zz" nil nil nil)))))
    (is (= {"e" "é"} (:query-params (ours (request "e=%E9" nil nil "text/plain; charset=ISO-8859-1")))))
    (testing "(a + before the first % is a space already when the escapes are decoded)"
      (is (= {"q" "clojure web server" "a b" "+" "x" "1 " " " "  "}
             (:query-params (ours (request "q=clojure+web+server&a+b=%2B&x=1+&+=++" nil nil nil)))))
      (is (= {"q" "a b c+d e" "k y" "é f"} (:query-params (ours (request "q=a+b%20c%2Bd+e&k+y=%C3%A9+f" nil nil nil)))))
      (doseq [qs ["q=a+\u263a+b" "\u263a+a=b+c" "a+\u263a=%41+b" "q=\u263a+%E2%9C%93+x" "a+b=c+d&a+b=e+f" "++=++&+=+"]]
        (is (same-as-ring? #(request qs nil nil nil)) qs))
      (is (same-as-ring? #(request nil "q=a+b&n+m=c+%C3%A9+d" "UTF-8" "application/x-www-form-urlencoded")))))
  (testing "no = at all: no parameters; a name without = has the value \"\""
    (is (= {} (:query-params (ours (request "justtext" nil nil nil)))))
    (is (= {"flag" "" "x" "1"} (:query-params (ours (request "flag&x=1" nil nil nil))))))
  (testing "short values (one character, two digits: shared strings) and values just past them"
    (doseq [qs ["a=1&b=x&c=%&d=07&e=99&f=9a&g=a9&h=100&i=&j=+&k=%41&l=\u00e9&m=\u00e99&n=:0&o=0:&p=/9&q=9/"
                "a=\u263a&b=\u263a1&c=1\u263a"]]
      (is (same-as-ring? #(request qs nil nil nil)) qs))
    (is (= {"a" "1" "b" "07" "c" "" "d" "\u00e9"} (:query-params (ours (request "a=1&b=07&c=&d=\u00e9" nil nil nil))))))
  (testing "a lone pair (parsed without the map builder) as ring-core parses it"
    (is (= {"id" "42"} (:query-params (ours (request "id=42" nil nil nil)))))
    (doseq [qs ["=" "a=" "=b" "%zz=1" "a=%zz" "a+b=c+d" "&a=1" "a=1&"]]
      (is (same-as-ring? #(request qs nil nil nil)) qs)))
  (testing "a request without query string or form gets empty maps"
    (is (= {:query-params {} :form-params {} :params {}} (ours (request nil nil nil nil)))))
  (testing "many keys make a hash map that equals ring's"
    (let [qs (str/join "&" (map #(str "k" % "=" %) (range 40)))]
      (is (= 40 (count (:query-params (ours (request qs nil nil nil))))))
      (is (same-as-ring? #(request qs nil nil nil)))))
  (testing "parameters already there are kept, and :params merged into"
    (let [r ((mw/wrap-params identity) {:query-string "a=1" :query-params {"pre" "set"} :params {"old" "x"}})]
      (is (= {"pre" "set"} (:query-params r)))
      (is (= {"old" "x"} (:params r)))
      (is (= {} (:form-params r)))))
  (testing "a media type is matched ignoring case (ring-core compares it exactly)"
    (is (= {"a" "1"} (:form-params (ours (request nil "a=1" "UTF-8" "Application/X-WWW-Form-Urlencoded"))))))
  (testing "a charset the JVM lacks decodes as UTF-8 (ring-core would drop every pair)"
    (is (= {"e" "é"} (:query-params (ours (request "e=%C3%A9" nil nil "text/plain; charset=x-no-such")))))))

(deftest every-kind-of-request-map
  (let [qs "a=1&b=2&a=3"
        same? (fn [req]
                (let [ours ((mw/wrap-params identity) req)
                      ring ((ring-params/wrap-params identity) req)]
                  (and (= ring ours) (= (meta ring) (meta ours)))))]
    (testing "an array map, with and without metadata, small and about to outgrow array maps"
      (is (same? {:query-string qs :uri "/"}))
      (is (same? (with-meta {:query-string qs :uri "/"} {:tag :x})))
      (is (same? (into {:query-string qs} (map (fn [i] [(keyword (str "k" i)) i])) (range 6)))))
    (testing "array maps of every size up to where the new keys make a hash map, with and without a key already there"
      (doseq [n (range 8)
              :let [req (into {:query-string qs} (map (fn [i] [(keyword (str "k" i)) i])) (range n))]
              extra [nil [:params {"p" "0"}] [:query-params {"q" "1"}] [:form-params nil]]]
        (is (same? (cond-> req extra (conj extra))) [n extra])))
    (testing "a hash map, a sorted map, and keys already there (nil too)"
      (is (same? (into {:query-string qs} (map (fn [i] [(keyword (str "k" i)) i])) (range 20))))
      (is (same? (into (sorted-map) {:query-string qs :uri "/"})))
      (is (same? {:query-string qs :params nil :form-params nil}))
      (is (same? {:query-string qs :params {"z" "0"} :form-params {"f" "1"}})))
    (testing "the Content-Type's charset found in every kind of map"
      (doseq [req [{:query-string "e=%E9"}
                   (into {:query-string "e=%E9"} (map (fn [i] [(keyword (str "k" i)) i])) (range 20))
                   (into (sorted-map) {:query-string "e=%E9" :uri "/"})]
              :let [req (assoc req :headers {"host" "h" "content-type" "text/plain; charset=ISO-8859-1"})]]
        (is (= {"e" "é"} (:query-params ((mw/wrap-params identity) req))) (type req))
        (is (same? req) (type req))))))

(deftest async-arity-and-options
  (let [handler (mw/wrap-params (fn [request respond _] (respond (:params request))))
        result (CompletableFuture.)]
    (handler {:query-string "x=1&x=2"} #(.complete result %) #(.completeExceptionally result %))
    (is (= {"x" ["1" "2"]} (.get result 5 TimeUnit/SECONDS))))
  (testing "a body that fails to read goes to raise"
    (let [handler (mw/wrap-params (fn [_ respond _] (respond :never)))
          result (CompletableFuture.)
          failing (proxy [java.io.InputStream] [] (read ([] (throw (java.io.IOException. "broken")))
                                                    ([_ _ _] (throw (java.io.IOException. "broken")))))]
      (handler {:headers {"content-type" "application/x-www-form-urlencoded"} :body failing}
               #(.complete result %) #(.completeExceptionally result %))
      (is (thrown-with-msg? Exception #"broken" (.get result 5 TimeUnit/SECONDS)))))
  (testing "bad options name the key, the value and what is allowed"
    (let [e (try (mw/wrap-params identity {:encoding "no-such-charset"}) nil (catch ExceptionInfo e e))]
      (is (= [:invalid-option :encoding "no-such-charset"] ((juxt :onager/error :key :value) (ex-data e))))
      (is (str/includes? (ex-message e) "the name of a charset")))
    (is (= :unknown-option (:onager/error (ex-data (try (mw/wrap-params identity {:keyword? true}) (catch ExceptionInfo e e))))))))

(deftest a-form-posted-to-a-server
  (ts/with-server [s (mw/wrap-params (fn [request] {:status 200 :body (pr-str ((juxt :query-params :form-params) request))}))
                   {:vertx @ts/shared-vertx}]
    (let [r (ts/request (ts/url s "/submit?page=2&tag=a&tag=b")
                        {:method :post
                         :headers {"Content-Type" "application/x-www-form-urlencoded; charset=UTF-8"}
                         :body "name=J%C3%BCrgen+M&agree=on"})]
      (is (= (pr-str [{"page" "2" "tag" ["a" "b"]} {"name" "Jürgen M" "agree" "on"}]) (:body r))))))
