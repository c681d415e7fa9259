(ns onager.server.decompression-test
  "Compressed request bodies (:decompress-requests? true): the handler reads them
  decompressed, and :max-body limits what they decompress to, so a small body
  that inflates enormously gets 413 instead of the heap."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.test-support :as ts])
  (:import [java.io IOException]
           [java.nio.charset StandardCharsets]
           [onager.kernel.request BodyTooLargeException]))

(defn- utf8 ^bytes [^String s] (.getBytes s StandardCharsets/UTF_8))

(defn- describe [r]
  {:status 200
   :body (pr-str [(slurp (:body r)) (get-in r [:headers "content-encoding"]) (:content-length r)])})

(defn- post [s encoding ^bytes body]
  (ts/request (ts/url s "/") {:method :post :headers {"Content-Encoding" encoding} :body body}))

(deftest gzip-and-deflate-bodies-are-read-decompressed
  (ts/each-combo [s describe {:decompress-requests? true}]
    (let [text (apply str (repeat 1000 "héllo "))]
      (testing "gzip: the body decompressed, without Content-Encoding or a Content-Length"
        (is (= [200 (pr-str [text nil nil])] ((juxt :status :body) (post s "gzip" (ts/gzip (utf8 text)))))))
      (testing "deflate"
        (is (= [200 (pr-str [text nil nil])] ((juxt :status :body) (post s "deflate" (ts/deflate (utf8 text))))))))))

(deftest a-body-that-inflates-past-max-body-gets-413
  (ts/each-combo [s (fn [r] {:status 200 :body (str (count (slurp (:body r))))})
                  {:decompress-requests? true :max-body (* 1024 1024)}]
    (let [bomb (ts/gzip (byte-array (* 64 1024 1024)))]
      (testing (str "a " (alength bomb) "-byte body that inflates to 64 MiB")
        (is (< (alength bomb) (* 1024 1024)))
        (is (= 413 (:status (post s "gzip" bomb)))))
      (testing "up to :max-body decompressed is fine"
        (is (= [200 (str (* 1024 1024))] ((juxt :status :body) (post s "gzip" (ts/gzip (byte-array (* 1024 1024))))))))))
  (testing "the handler's read throws BodyTooLargeException"
    (let [thrown (promise)]
      (ts/with-server [s (fn [r] (try (slurp (:body r)) {:status 200}
                                      (catch IOException e (deliver thrown e) (throw e))))
                       {:decompress-requests? true :max-body 1000}]
        (is (= 413 (:status (post s "gzip" (ts/gzip (byte-array 100000))))))
        (is (instance? BodyTooLargeException (deref thrown 1000 nil)))))))

(deftest a-body-that-is-not-valid-gzip-gets-400
  (ts/each-combo [s describe {:decompress-requests? true}]
    (is (= 400 (:status (post s "gzip" (utf8 "this is not gzip at all")))))
    (is (= 400 (:status (post s "deflate" (utf8 "nor deflate")))))
    (is (= 200 (:status (ts/request (ts/url s "/")))))))

(deftest other-bodies-arrive-as-sent
  (let [zipped (ts/gzip (utf8 "zipped"))]
    (testing "without the option, a gzip body reaches the handler compressed, with its headers"
      (ts/with-server [s (fn [r] {:status 200 :body (pr-str [(count (.readAllBytes ^java.io.InputStream (:body r)))
                                                              (get-in r [:headers "content-encoding"])])})
                       {}]
        (is (= (pr-str [(alength zipped) "gzip"]) (:body (post s "gzip" zipped))))))
    (testing "with it, a coding the server does not decode is left to the handler"
      (ts/with-server [s (fn [r] {:status 200 :body (get-in r [:headers "content-encoding"])})
                       {:decompress-requests? true}]
        (is (= "br" (:body (post s "br" zipped))))
        (is (= "gzip, gzip" (:body (post s "gzip, gzip" zipped))))))))
