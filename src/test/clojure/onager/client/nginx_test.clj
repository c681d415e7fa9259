(ns onager.client.nginx-test
  "The client against nginx (Debian), a server no one here wrote: HTTP/2
  over TLS by ALPN, many requests at once on it, a large static file, gzip,
  and HTTP/1.1 in clear text."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing use-fixtures]]
            [onager.client :as client]
            [onager.client-support :refer [free-port with-client]]
            [onager.nginx-support :as nginx-support]
            [onager.tls :as tls])
  (:import [java.io File InputStream]
           [java.nio.file Files]
           [java.nio.file.attribute FileAttribute]))

(set! *warn-on-reflection* true)

(def ^:private nginx (atom nil))

(def ^:private big-size (* 8 1024 1024))

(defn- config [^File dir tls-port plain-port {:keys [ssl-cert ssl-key]}]
  (let [d (.getAbsolutePath dir)]
    (str (nginx-support/main-directives dir)
         "events { worker_connections 256; }\n"
         "http {\n" (nginx-support/http-directives dir "  ")
         "  gzip on; gzip_types text/plain; gzip_min_length 1;\n"
         "  server {\n    listen 127.0.0.1:" tls-port " ssl http2;\n"
         "    ssl_certificate " ssl-cert ";\n    ssl_certificate_key " ssl-key ";\n"
         "    location = /hello { default_type text/plain; return 200 \"hello from nginx\"; }\n"
         "    location = /old { return 302 /hello; }\n"
         "    location /files/ { alias " d "/files/; default_type text/plain; }\n"
         "  }\n"
         "  server {\n    listen 127.0.0.1:" plain-port ";\n"
         "    location / { default_type text/plain; return 200 \"plain\"; }\n  }\n}\n")))

(defn- with-nginx [f]
  (let [dir (.toFile (Files/createTempDirectory "onager-nginx" (make-array FileAttribute 0)))
        files (tls/self-signed {:dir (io/file dir "tls")})
        tls-port (free-port)
        plain-port (free-port)]
    (io/make-parents (io/file dir "files" "x"))
    (spit (io/file dir "files" "text.txt") (str/join (repeat 5000 "a line of text\n")))
    (with-open [out (io/output-stream (io/file dir "files" "big.bin"))]
      (.write out (byte-array big-size (byte 42))))
    (let [process (nginx-support/start dir (config dir tls-port plain-port files) [tls-port plain-port])]
      (try
        (reset! nginx {:tls (str "https://127.0.0.1:" tls-port) :plain (str "http://127.0.0.1:" plain-port)
                       :ca (:ssl-cert files)})
        (f)
        (finally (nginx-support/stop process))))))

(use-fixtures :once with-nginx)

(deftest http2-over-tls
  (with-client [c {:ssl-ca (:ca @nginx)}]
    (let [r (client/get (str (:tls @nginx) "/hello") {:client c})]
      (is (= :http-2 (:version r)))
      (is (= "hello from nginx" (:body r))))
    (testing "many requests at once, on one connection"
      (let [fs (doall (for [_ (range 100)] (client/get (str (:tls @nginx) "/hello") {:client c :async? true})))]
        (is (every? #(= "hello from nginx" (:body (deref %))) fs))))
    (testing "a redirect"
      (is (= [(str (:tls @nginx) "/hello")] (:trace-redirects (client/get (str (:tls @nginx) "/old") {:client c})))))
    (testing "gzip"
      (let [r (client/get (str (:tls @nginx) "/files/text.txt") {:client c})]
        (is (= (* 5000 15) (count (:body r))))))
    (testing "a large file, whole and as a stream"
      (is (= big-size (alength ^bytes (:body (client/get (str (:tls @nginx) "/files/big.bin") {:client c :as :bytes})))))
      (with-open [^InputStream in (:body (client/get (str (:tls @nginx) "/files/big.bin") {:client c :as :stream}))]
        (let [buf (byte-array 65536)]
          (is (= big-size (loop [n 0] (let [k (.read in buf)] (if (neg? k) n (recur (+ n k))))))))))))

(deftest http1-in-clear-text
  (let [r (client/get (str (:plain @nginx) "/"))]
    (is (= :http-1.1 (:version r)))
    (is (= "plain" (:body r)))))
