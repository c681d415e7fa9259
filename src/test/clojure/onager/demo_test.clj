(ns onager.demo-test
  "The demo app's endpoints, sync in every mode and async."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.demo :as demo]
            [onager.health :as health]
            [onager.server]
            [onager.test-support :as ts])
  (:import [java.util.zip CRC32]))

(def ^:private root (io/file "examples/static"))

(def ^:private setups
  [["virtual" (demo/handler root) {}]
   ["event-loop" (demo/handler root) {:handler-mode :event-loop}]
   ["worker" (demo/handler root) {:handler-mode :worker}]
   ["async" (demo/async-handler root) {:async? true}]
   ;; As -main runs it: the static folder from the class path (examples/ is on the tests').
   ["virtual, static/ from the class path" (demo/handler "static") {}]])

(defmacro ^:private each-setup [[s] & body]
  `(doseq [[name# handler# opts#] setups]
     (testing name#
       (ts/with-server [~s handler# (merge {:vertx @ts/shared-vertx} opts#)]
         ~@body))))

(defn- crc32 [^String s]
  (let [c (CRC32.)] (.update c (.getBytes s)) (Long/toHexString (.getValue c))))

(deftest endpoints
  (each-setup [s]
    (let [get (fn [path] (ts/request (ts/url s path)))]
      (is (= [200 "Hello, World!"] ((juxt :status :body) (get "/plaintext"))))
      (is (= "text/plain; charset=utf-8" (ts/header (get "/plaintext") "content-type")))
      (is (= [200 "{\"message\":\"Hello, World!\"}"] ((juxt :status :body) (get "/json"))))
      (is (= "application/json" (ts/header (get "/json") "content-type")))
      (is (= "slept 5 ms\n" (:body (get "/sleep?ms=5"))))
      (is (= "line 0\nline 1\nline 2\n" (:body (get "/stream?n=3"))))
      (is (= "chunked" (ts/header (get "/stream?n=3") "transfer-encoding")))
      (is (= "abcdefghijklmnopqrstuvwxyzabcd" (:body (get "/download?size=30"))))
      (is (= "abcdefghijklmnopqrstuvwxyzabcd" (:body (get "/download?size=30&as=seq"))))
      (testing "the health probes the deployment examples poll"
        (is (= [200 "{\"status\":\"up\",\"checks\":{}}"] ((juxt :status :body) (get "/health/live"))))
        ;; Readiness is the demo's -main's: 503 while the last server it ran is stopped.
        (is (= (if (health/ready? demo/health) 200 503) (:status (get "/health/ready")))))
      (is (= 404 (:status (get "/nothing-here")))))
    (testing "/echo streams the body back with its content type"
      (let [r (ts/request (ts/url s "/echo") {:method :post :body "echo me" :headers {"Content-Type" "text/x-test"}})]
        (is (= [200 "echo me" "text/x-test"] [(:status r) (:body r) (ts/header r "content-type")]))))
    (testing "/upload counts and checksums the body"
      (let [body (apply str (repeat 1000 "upload "))]
        (is (= (str (count body) " bytes, crc32 " (crc32 body) "\n")
               (:body (ts/request (ts/url s "/upload") {:method :post :body body}))))))
    (testing "/static serves files from the folder, and nothing outside it"
      (let [r (ts/request (ts/url s "/static/index.html"))]
        (is (= 200 (:status r)))
        (is (str/includes? (:body r) "<h1>Onager demo</h1>"))
        (is (= "text/html" (ts/header r "content-type"))))
      (doseq [path ["/static/../../pom.xml" "/static/%2e%2e/%2e%2e/pom.xml" "/static/missing.txt"]]
        (let [{:keys [text]} (ts/raw s (str "GET " path " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))]
          (is (= [404] (ts/statuses text)) path)
          (is (not (str/includes? text "<project"))))))))

(deftest the-docstring-names-commands-that-exist
  (let [doc (:doc (meta (the-ns 'onager.demo)))
        makefile (slurp "Makefile")]
    (testing "make targets"
      (let [targets (map second (re-seq #"make (?:-s )?([a-z-]+)" doc))]
        (is (= #{"run" "classpath" "uberjar" "aot-cache"} (set targets)))
        (doseq [t targets]
          (is (re-find (re-pattern (str "(?m)^" t ":")) makefile) (str "no target " t)))))
    (testing "scripts"
      (doseq [[_ script] (re-seq #"\$\((scripts/[a-z-]+)\)" doc)]
        (is (.canExecute (io/file script)) script)))
    (testing "the main and the options it names"
      (is (str/includes? doc "clojure.main -m onager.demo"))
      (let [sample {"--port" ["8080"] "--tls-port" ["8443"] "--mode" ["worker"] "--async" [] "--static" ["examples/static"]
                    "--max-body" ["1000"] "--train" [] "--ssl-cert" ["cert.pem"] "--ssl-key" ["key.pem"]
                    "--ssl-provider" ["openssl"] "--shutdown-delay-ms" ["5000"]
                    "--transport" ["nio"] "--metrics" []}
            flags (map second (re-seq #"\[(--[a-z-]+)" doc))]
        (is (= (set (keys sample)) (set flags)))
        (doseq [f flags]
          (is (map? (#'demo/parse-args (cons f (sample f)))) f))))))

(deftest the-deployment-examples-poll-the-demo's-probes
  (doseq [f ["examples/deploy/kubernetes.yaml" "examples/deploy/haproxy.cfg"]]
    (let [paths (set (re-seq #"/health/[a-z]+" (slurp f)))]
      (is (seq paths) f)
      (is (every? #{"/health/live" "/health/ready"} paths) f))))

(deftest metrics-flag
  (doseq [async? [false true]]
    (testing (if async? "async" "sync")
      (let [s (apply demo/-main (cond-> ["--port" "0" "--metrics" "--mode" "event-loop"] async? (conj "--async")))]
        (try
          (is (= 200 (:status (ts/request (ts/url s "/plaintext")))))
          (let [r (ts/request (ts/url s "/metrics"))]
            (is (= 200 (:status r)))
            (is (str/starts-with? (ts/header r "content-type") "text/plain; version=0.0.4"))
            (is (re-find #"http_server_requests_seconds_count\{.*route=\"UNMATCHED\".*\} [1-9]" (:body r))))
          (finally (onager.server/stop s)))))))
