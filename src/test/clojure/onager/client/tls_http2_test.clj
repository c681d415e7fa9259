(ns onager.client.tls-http2-test
  "The client over TLS (trust, host names, mutual TLS, :insecure?) and
  HTTP/2 (by ALPN over TLS, h2c by prior knowledge), against Onager's server."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.client :as client]
            [onager.client-support :refer [error-of http-proxy with-client with-raw-server]]
            [onager.server :as server]
            [onager.test-support :refer [with-server url]]
            [onager.tls :as tls])
  (:import [java.nio.file Files]
           [java.nio.file.attribute FileAttribute]
           [java.security.cert X509Certificate]
           [java.time Duration Instant]
           [onager.kernel.tls CertificateMaker CertificateMaker$Issued Pem]))

(set! *warn-on-reflection* true)

(defn- describe [req]
  {:status 200
   :body (str (name (:scheme req)) " " (:protocol req) " "
              (some-> ^X509Certificate (:ssl-client-cert req) .getSubjectX500Principal .getName))})

(defn- https [s path] (str "https://127.0.0.1:" (server/ssl-port s) path))

(defn- issue ^CertificateMaker$Issued [cn names ca? issuer]
  (CertificateMaker/make cn (vec names) (boolean ca?) issuer (.minus (Instant/now) (Duration/ofHours 1))
                         (Duration/ofDays 30)))

(defn- write-pem!
  "Writes `issued` as cert.pem and key.pem in a new folder: {:ssl-cert :ssl-key}."
  [^CertificateMaker$Issued issued]
  (let [dir (.toFile (Files/createTempDirectory "onager-client-tls" (make-array FileAttribute 0)))
        cert (io/file dir "cert.pem") key (io/file dir "key.pem")]
    (Pem/write issued (.toPath cert) (.toPath key))
    {:ssl-cert (str cert) :ssl-key (str key)}))

(defn- write-ca!
  "Writes the CA `issued`'s certificate to a new PEM file, for :ssl-ca; returns its path."
  [^CertificateMaker$Issued issued]
  (let [file (doto (java.io.File/createTempFile "onager-ca" ".pem") (.deleteOnExit))]
    (spit file (Pem/encode "CERTIFICATE" (.getEncoded (.certificate issued))))
    (str file)))

(deftest trust-and-host-names
  (let [files (tls/self-signed)]
    (with-server [s describe (merge {:port nil :ssl-port 0} files)]
      (testing "the system's trust does not know a self-signed certificate"
        (let [e (error-of #(client/get (https s "/")))]
          (is (= :tls (:onager/error e)))))
      (testing ":ssl-ca trusts it, and HTTP/2 is agreed by ALPN"
        (with-client [c {:ssl-ca (:ssl-cert files)}]
          (let [r (client/get (https s "/") {:client c})]
            (is (= "https HTTP/2.0 " (:body r)))
            (is (= :http-2 (:version r))))))
      (testing "without :http2? it is HTTP/1.1"
        (with-client [c {:ssl-ca (:ssl-cert files) :http2? false}]
          (let [r (client/get (https s "/") {:client c})]
            (is (= :http-1.1 (:version r)))
            (is (= "https HTTP/1.1 " (:body r))))))
      (testing ":insecure? trusts anything"
        (with-client [c {:insecure? true}]
          (is (= 200 (:status (client/get (https s "/") {:client c}))))))))
  (testing "a certificate for another name is refused"
    (let [files (write-pem! (issue "elsewhere.test" ["elsewhere.test"] false nil))]
      (with-server [s describe (merge {:port nil :ssl-port 0} files)]
        (with-client [c {:ssl-ca (:ssl-cert files)}]
          (let [e (error-of #(client/get (https s "/") {:client c}))]
            (is (= :tls (:onager/error e)))))
        (with-client [c {:insecure? true}]
          (is (= 200 (:status (client/get (https s "/") {:client c})))) ":insecure? skips the name too")))))

;; RFC 6066 §3: the client names the host it asks for, and a server with a certificate per
;; name answers with that one. Without the name it would get its default certificate, for
;; another name, which the host-name check refuses. The JDK sends a name with a dot in it
;; only, so the test's name reaches 127.0.0.1 through a proxy that knows it.
(deftest the-host-name-goes-by-sni
  (let [ca (issue "Test CA" [] true nil)
        ca-file (write-ca! ca)
        default (write-pem! (issue "default.test" ["default.test"] false ca))
        named (write-pem! (issue "sni.onager.test" ["sni.onager.test"] false ca))]
    (with-server [s describe (merge {:port nil :ssl-port 0 :sni {"sni.onager.test" named}} default)]
      (with-raw-server [p (http-proxy (atom []) nil {"sni.onager.test" "127.0.0.1"})]
        (doseq [http2? [true false]]
          (testing (if http2? "over h2" "over HTTP/1.1")
            (with-client [c {:ssl-ca ca-file :http2? http2? :proxy {:host "127.0.0.1" :port (:port p)}}]
              (let [r (client/get (str "https://sni.onager.test:" (server/ssl-port s) "/") {:client c})]
                (is (= 200 (:status r)))
                (is (= (if http2? :http-2 :http-1.1) (:version r)))))))))))

(deftest mutual-tls
  (let [ca (issue "Test CA" [] true nil)
        ca-file (write-ca! ca)
        server-files (write-pem! (issue "localhost" ["localhost" "127.0.0.1"] false nil))
        client-files (write-pem! (issue "client-1" [] false ca))]
    (with-server [s describe (merge {:port nil :ssl-port 0 :client-auth :require :ssl-ca ca-file} server-files)]
      (with-client [c (merge {:ssl-ca (:ssl-cert server-files)} client-files)]
        (is (str/ends-with? (:body (client/get (https s "/") {:client c})) "CN=client-1")))
      (with-client [c {:ssl-ca (:ssl-cert server-files)}]
        (let [e (error-of #(client/get (https s "/") {:client c}))]
          (is (contains? #{:tls :connection-closed} (:onager/error e)) "no certificate, no exchange"))))))

(deftest h2c-by-prior-knowledge
  (with-server [s describe {:h2c? true}]
    (with-client [c {:h2c? true}]
      (let [r (client/get (url s "/") {:client c})]
        (is (= :http-2 (:version r)))
        (is (= "http HTTP/2.0 " (:body r)))
        (is (= "14" (get-in r [:headers "content-length"])))
        (is (not-any? #(str/starts-with? % ":") (keys (:headers r)))
            "the response's fields, without HTTP/2's pseudo-header fields"))
      (testing "many requests at once share one connection"
        (let [futures (doall (for [_ (range 50)] (client/get (url s "/") {:client c :async? true})))]
          (is (every? #(= 200 (:status (deref %))) futures)))))))
