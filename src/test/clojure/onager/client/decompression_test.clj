(ns onager.client.decompression-test
  "Compressed responses: asked for, decompressed, and limited by :max-body
  as they decompress, so that a small bomb cannot fill the heap."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.client :as client]
            [onager.client-support :refer [error-of with-client]]
            [onager.test-support :refer [deflate gzip with-server url]])
  (:import [com.aayushatharva.brotli4j Brotli4jLoader]
           [com.aayushatharva.brotli4j.encoder Encoder]
           [java.nio.charset StandardCharsets]))

(set! *warn-on-reflection* true)

(def ^:private text (.getBytes (str/join (repeat 2000 "compressible text ")) StandardCharsets/UTF_8))

(def ^:private bomb (gzip (byte-array (* 64 1024 1024))))

(defn- app [req]
  (let [accepts (get-in req [:headers "accept-encoding"] "")]
    (case (:uri req)
      "/gzip" {:status 200 :headers {"content-encoding" "gzip" "x-accepted" accepts} :body (gzip text)}
      "/deflate" {:status 200 :headers {"content-encoding" "deflate"} :body (deflate text)}
      "/br" (if (str/includes? accepts "br")
              {:status 200 :headers {"content-encoding" "br"} :body (do (Brotli4jLoader/ensureAvailability)
                                                                        (Encoder/compress ^bytes text))}
              {:status 406 :body (str "br not offered: " accepts)})
      "/bomb" {:status 200 :headers {"content-encoding" "gzip"} :body bomb})))

(deftest compressed-responses
  (with-server [s app {}]
    (testing "asked for and decompressed"
      (let [r (client/get (url s "/gzip"))]
        (is (re-find #"gzip" (get-in r [:headers "x-accepted"])))
        (is (= (String. ^bytes text StandardCharsets/UTF_8) (:body r))))
      (is (= (String. ^bytes text StandardCharsets/UTF_8) (:body (client/get (url s "/deflate"))))))
    (testing "Brotli too, when the application has brotli4j (the tests do)"
      (let [r (client/get (url s "/br") {:throw-exceptions? false})]
        (is (= 200 (:status r)) (:body r))
        (is (= (String. ^bytes text StandardCharsets/UTF_8) (:body r)))))
    (testing ":decompress? false leaves the bytes as they came"
      (with-client [c {:decompress? false}]
        (let [r (client/get (url s "/gzip") {:client c :as :bytes})]
          (is (= "" (get-in r [:headers "x-accepted"])))
          (is (= (seq (gzip text)) (seq (:body r)))))))
    (testing "a bomb stops at :max-body, counted decompressed"
      (is (< (alength ^bytes bomb) (* 1024 1024)))
      (let [e (error-of #(client/get (url s "/bomb") {:max-body (* 1024 1024)}))]
        (is (= :too-large (:onager/error e)))))))
