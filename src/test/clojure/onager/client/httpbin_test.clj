(ns onager.client.httpbin-test
  "The client against httpbin (PyPI), a server no one here wrote: query and
  form encoding, JSON, redirects, basic and bearer auth, cookies, gzip and
  deflate, streams, statuses and a slow answer."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing use-fixtures]]
            [onager.client :as client]
            [onager.client-support :refer [await-listening error-of free-port]]
            [onager.test-support :as ts])
  (:import [java.io InputStream]
           [java.util.concurrent TimeUnit]))

(set! *warn-on-reflection* true)

(def ^:private base (atom nil))

(defn- with-httpbin [f]
  (let [port (free-port)
        log (java.io.File/createTempFile "httpbin" ".log")
        process (-> (ProcessBuilder. ^java.util.List
                                     (vector (ts/tool "python-httpbin") "-c"
                                             (str "from httpbin import app; app.run(host='127.0.0.1', port=" port
                                                  ", threaded=True)")))
                    (.redirectErrorStream true)
                    (.redirectOutput log)
                    (.start))]
    (try
      (await-listening port process #(str "httpbin did not start:\n" (slurp log)))
      (reset! base (str "http://127.0.0.1:" port))
      (f)
      (finally
        (.destroy process)
        (.waitFor process 10 TimeUnit/SECONDS)
        (.delete log)))))

(use-fixtures :once with-httpbin)

(defn- at [path] (str @base path))

(deftest encodings-and-json
  (is (= {:a "x y" :b ["1" "2"] :c "é"}
         (:args (:body (client/get (at "/get") {:query-params {:a "x y" :b [1 2] :c "é"} :as :json})))))
  (is (= {:a "1 2" :b "é"} (:form (:body (client/post (at "/post") {:form-params {:a "1 2" :b "é"} :as :json})))))
  (is (= {:n [1 2] :s "é"} (:json (:body (client/post (at "/post") {:json-params {:n [1 2] :s "é"} :as :json})))))
  (is (= "onager" (get-in (client/get (at "/headers") {:as :json}) [:body :headers :User-Agent]))))

(deftest redirects
  (let [r (client/get (at "/redirect/3"))]
    (is (= 200 (:status r)))
    (is (= 3 (count (:trace-redirects r)))))
  (is (= 200 (:status (client/get (at "/absolute-redirect/2")))))
  (is (= :too-many-redirects (:onager/error (error-of #(client/get (at "/redirect/3") {:max-redirects 2})))))
  (is (= 302 (:status (client/get (at "/redirect/1") {:redirects :none})))))

(deftest auth
  (is (= 200 (:status (client/get (at "/basic-auth/u/p") {:basic-auth ["u" "p"]}))))
  (is (= 401 (:status (client/get (at "/basic-auth/u/p") {:throw-exceptions? false}))))
  (is (= "t0k" (:token (:body (client/get (at "/bearer") {:oauth-token "t0k" :as :json}))))))

(deftest cookies
  (let [store (client/cookie-store)]
    (is (= {:flavour "oat"} (:cookies (:body (client/get (at "/cookies/set?flavour=oat") {:cookie-store store
                                                                                           :as :json})))))
    (is (= ["flavour"] (map :name (client/cookies store))))))

(deftest compression
  (is (true? (:gzipped (:body (client/get (at "/gzip") {:as :json})))))
  (is (true? (:deflated (:body (client/get (at "/deflate") {:as :json}))))))

(deftest bodies-and-statuses
  (is (= 1024 (alength ^bytes (:body (client/get (at "/bytes/1024") {:as :bytes})))))
  (let [lines (with-open [^InputStream in (:body (client/get (at "/stream/20") {:as :stream}))]
                (str/split-lines (slurp in)))]
    (is (= 20 (count lines))))
  (let [e (error-of #(client/get (at "/status/418")))]
    (is (= [:status 418] [(:onager/error e) (:status e)])))
  (testing "a slow answer"
    (let [e (error-of #(client/get (at "/delay/3") {:idle-timeout-ms 500}))]
      (is (= :timeout (:onager/error e))))))
