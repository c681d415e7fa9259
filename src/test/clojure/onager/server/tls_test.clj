(ns onager.server.tls-test
  "TLS on :ssl-port: real clients (the JDK's HttpClient and SSLSocket, curl,
  openssl s_client) against certificates made at test time."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing do-report]]
            [onager.server :as server]
            [onager.test-support :as ts]
            [onager.tls :as tls])
  (:import [java.io File]
           [java.net Socket URI]
           [java.net.http HttpClient HttpClient$Version HttpRequest HttpResponse$BodyHandlers]
           [java.nio.charset StandardCharsets]
           [java.nio.file Files]
           [java.nio.file.attribute FileAttribute]
           [java.security KeyStore]
           [java.security.cert X509Certificate]
           [java.time Duration Instant]
           [javax.net.ssl KeyManagerFactory SSLContext SSLSocket TrustManagerFactory]
           [io.netty.handler.ssl OpenSsl]
           [onager.kernel.tls CertificateMaker CertificateMaker$Issued Pem]))

(set! *warn-on-reflection* true)

;; ---- certificates ----

(defn- temp-dir ^File []
  (.toFile (Files/createTempDirectory "onager-tls-test" (make-array FileAttribute 0))))

(defn- issue
  "A certificate for `cn` (and `names`), signed by `issuer` or by itself; valid
  from `from-hours` ago (default 1) for `days` (default 30)."
  ^CertificateMaker$Issued [cn & {:keys [names ca? issuer from-hours days] :or {from-hours 1 days 30}}]
  (CertificateMaker/make cn (vec (or names [cn])) (boolean ca?) issuer
                         (.minus (Instant/now) (Duration/ofHours from-hours)) (Duration/ofDays days)))

(defn- write!
  "Writes `issued` as cert.pem and key.pem in `dir` (a new folder by default):
  server options {:ssl-cert :ssl-key}."
  ([issued] (write! issued (temp-dir)))
  ([^CertificateMaker$Issued issued dir]
   (let [cert (io/file dir "cert.pem") key (io/file dir "key.pem")]
     (Pem/write issued (.toPath cert) (.toPath key))
     {:ssl-cert (str cert) :ssl-key (str key)})))

(defn- localhost ^CertificateMaker$Issued []
  (issue "localhost" :names ["localhost" "127.0.0.1"]))

(defn- trust-store ^KeyStore [& certs]
  (let [ks (doto (KeyStore/getInstance "PKCS12") (.load nil nil))]
    (doseq [[i ^X509Certificate c] (map-indexed vector certs)] (.setCertificateEntry ks (str "c" i) c))
    ks))

(defn- ssl-context
  "An SSLContext trusting `certs`, presenting `client` (an Issued, with its
  issuer chain `chain`) when given."
  ^SSLContext [certs & {:keys [^CertificateMaker$Issued client chain]}]
  (let [tmf (doto (TrustManagerFactory/getInstance (TrustManagerFactory/getDefaultAlgorithm))
              (.init ^KeyStore (apply trust-store certs)))
        kms (when client
              (let [ks (doto (KeyStore/getInstance "PKCS12") (.load nil nil))
                    pw (.toCharArray "pw")]
                (.setKeyEntry ks "client" (.key client) pw
                              (into-array X509Certificate (cons (.certificate client) chain)))
                (.getKeyManagers (doto (KeyManagerFactory/getInstance (KeyManagerFactory/getDefaultAlgorithm))
                                   (.init ks pw)))))]
    (doto (SSLContext/getInstance "TLS") (.init kms (.getTrustManagers tmf) nil))))

;; ---- clients ----

(defn- https-get
  "GETs `path` over TLS on a new HttpClient (new connections) that uses `ctx`:
  {:status :body}."
  [server ^SSLContext ctx path]
  (with-open [client (-> (HttpClient/newBuilder)
                         (.version HttpClient$Version/HTTP_1_1)
                         (.sslContext ctx)
                         (.connectTimeout (Duration/ofSeconds 5))
                         (.build))]
    (let [r (.send client (-> (HttpRequest/newBuilder (URI. (str "https://127.0.0.1:" (server/ssl-port server) path)))
                              (.timeout (Duration/ofSeconds 10))
                              (.build))
                   (HttpResponse$BodyHandlers/ofString))]
      {:status (.statusCode r) :body (.body r)})))

(defn- tls-socket
  "A TLS socket to the server's TLS port, handshake done."
  ^SSLSocket [server ^SSLContext ctx]
  (let [s ^SSLSocket (.createSocket (.getSocketFactory ctx) "127.0.0.1" (int (server/ssl-port server)))]
    (.setSoTimeout s 10000)
    (.startHandshake s)
    s))

(defn- exchange!
  "Sends a keep-alive GET of `path` on `socket` and reads the one response (its
  body is its Content-Length long): its text."
  [^Socket socket path]
  (let [out (.getOutputStream socket)
        in (.getInputStream socket)]
    (.write out (.getBytes (str "GET " path " HTTP/1.1\r\nHost: localhost\r\n\r\n") StandardCharsets/ISO_8859_1))
    (.flush out)
    (let [sb (StringBuilder.)]
      (loop []
        (let [c (.read in)]
          (when (neg? c) (throw (ex-info "connection closed" {:so-far (str sb)})))
          (.append sb (char c))
          (let [text (str sb)
                end (str/index-of text "\r\n\r\n")
                len (some->> text (re-find #"(?i)content-length: (\d+)") second parse-long)]
            (if (and end len (>= (count text) (+ end 4 len)))
              text
              (recur))))))))

(defn- serial
  "The serial number of the certificate the server presented on `socket`."
  [^SSLSocket socket]
  (.getSerialNumber ^X509Certificate (first (.getPeerCertificates (.getSession socket)))))

(defn- s-client
  "openssl s_client against the TLS port with `args`: {:exit :out} (stdout and stderr)."
  [server & args]
  (let [r (apply shell/sh "openssl" "s_client" "-connect" (str "127.0.0.1:" (server/ssl-port server))
                 (concat args [:in ""]))]
    {:exit (:exit r) :out (str (:out r) (:err r))}))

(defn- curl [& args]
  (apply shell/sh "curl" "-s" "--max-time" "10" args))

(defn- raw-tls-port
  "Writes `bytes` to the TLS port on a plain socket and reads until it closes."
  [server ^bytes bytes]
  (with-open [socket (ts/connect (server/ssl-port server))]
    (doto (.getOutputStream socket) (.write bytes) (.flush))
    (ts/read-all socket)))

;; ---- handlers ----

(defn- describe
  "Answers the request's scheme, and its client certificate's subject or nil."
  [request]
  {:status 200
   :headers {"Content-Type" "text/plain"}
   :body (str (name (:scheme request)) " "
              (if (contains? request :ssl-client-cert)
                (or (some-> ^X509Certificate (:ssl-client-cert request) .getSubjectX500Principal .getName) "nil")
                "absent")
              " " (instance? X509Certificate (:ssl-client-cert request)))})

(defn- start [opts]
  (ts/start describe (merge {:port nil :ssl-port 0} opts)))

;; ---- tests ----

(deftest clear-text-and-tls-ports-share-the-handler
  (let [cert (localhost)]
    (ts/with-server [s describe (merge {:ssl-port 0} (write! cert))]
      (is (pos? (server/port s)))
      (is (pos? (server/ssl-port s)))
      (is (not= (server/port s) (server/ssl-port s)))
      (is (= "http absent false" (:body (ts/request (ts/url s "/")))))
      (is (= {:status 200 :body "https nil false"} (https-get s (ssl-context [(.certificate cert)]) "/")))))
  (testing "TLS only"
    (let [cert (localhost)
          s (start (write! cert))]
      (try
        (is (= -1 (server/port s)))
        (is (= "https nil false" (:body (https-get s (ssl-context [(.certificate cert)]) "/"))))
        (finally (server/stop s))))))

(deftest curl-and-the-self-signed-generator
  (let [files (tls/self-signed {:dir (temp-dir)})
        s (start files)]
    (try
      (let [url (str "https://localhost:" (server/ssl-port s) "/")]
        (testing "curl --cacert trusts the generated certificate for localhost and 127.0.0.1"
          (is (= "https nil false" (:out (curl "--cacert" (:ssl-cert files) url))))
          (is (= "https nil false" (:out (curl "--cacert" (:ssl-cert files)
                                              (str "https://127.0.0.1:" (server/ssl-port s) "/"))))))
        (testing "without it curl refuses, and -k goes on"
          (is (not= 0 (:exit (curl url))))
          (is (= "https nil false" (:out (curl "-k" url))))))
      (testing "the key file is its owner's only"
        (is (= "rw-------"
               (java.nio.file.attribute.PosixFilePermissions/toString
                (Files/getPosixFilePermissions (.toPath (io/file (:ssl-key files)))
                                               (make-array java.nio.file.LinkOption 0))))))
      (finally (server/stop s)))))

(deftest protocols-and-alpn
  (let [s (start (write! (localhost)))]
    (try
      (testing "TLS 1.3 and 1.2 by default"
        (is (re-find #"New, TLSv1\.3" (:out (s-client s "-tls1_3")))))
      (is (re-find #"New, TLSv1\.2" (:out (s-client s "-tls1_2"))))
      (testing "TLS 1.1 and 1.0 refused (the client allowed them, security level 0)"
        (doseq [v ["-tls1_1" "-tls1"]]
          (let [{:keys [exit out]} (s-client s v "-cipher" "DEFAULT:@SECLEVEL=0")]
            (is (not= 0 exit) v)
            (is (not (re-find #"subject=" out)) v))))
      (testing "ALPN offers h2, then http/1.1"
        (is (re-find #"ALPN protocol: h2" (:out (s-client s "-alpn" "h2,http/1.1"))))
        (is (re-find #"ALPN protocol: http/1\.1" (:out (s-client s "-alpn" "http/1.1")))))
      (finally (server/stop s))))
  (testing ":ssl-protocols [\"TLSv1.3\"] refuses TLS 1.2"
    (let [s (start (merge (write! (localhost)) {:ssl-protocols ["TLSv1.3"]}))]
      (try
        (is (not= 0 (:exit (s-client s "-tls1_2"))))
        (is (re-find #"TLSv1\.3" (:out (s-client s "-tls1_3"))))
        (finally (server/stop s))))))

(deftest sni-picks-the-certificate-by-server-name
  (let [s (start (merge (write! (issue "default.test"))
                        {:sni {"a.example.com" (write! (issue "a.example.com"))
                               "*.wild.example.com" (write! (issue "star.wild.example.com"))}}))
        subject (fn [& args] (second (re-find #"subject=CN ?= ?(\S+)" (:out (apply s-client s args)))))]
    (try
      (is (= "a.example.com" (subject "-servername" "a.example.com")))
      (is (= "star.wild.example.com" (subject "-servername" "x.wild.example.com")))
      (testing "another name, or none, gets the default certificate"
        (is (= "default.test" (subject "-servername" "b.example.com")))
        (is (= "default.test" (subject "-noservername"))))
      (finally (server/stop s)))))

(deftest mutual-tls
  (let [ca (issue "Test CA" :ca? true :names [])
        ca-dir (temp-dir)
        ca-file (str (io/file ca-dir "ca.pem"))
        _ (spit ca-file (Pem/encode "CERTIFICATE" (.getEncoded (.certificate ca))))
        client (issue "client-1" :issuer ca)
        stranger-ca (issue "Other CA" :ca? true :names [])
        stranger (issue "stranger" :issuer stranger-ca)
        server-cert (localhost)
        trusting (ssl-context [(.certificate server-cert)])
        with-cert (ssl-context [(.certificate server-cert)] :client client :chain [(.certificate ca)])]
    (testing ":require"
      (let [s (start (merge (write! server-cert) {:client-auth :require :ssl-ca ca-file}))]
        (try
          (is (= {:status 200 :body "https CN=client-1 true"} (https-get s with-cert "/")))
          (let [logs (ts/capture-logs
                      {:until #(seq (ts/logged % :message #"TLS handshake"))}
                      #(is (thrown? java.io.IOException (https-get s trusting "/"))
                           "a client without a certificate is refused"))]
            (is (seq (ts/logged logs :level :debug :logger "onager.server.client" :message #"TLS handshake")))
            (is (empty? (ts/loud logs)) (ts/messages logs)))
          (is (thrown? java.io.IOException
                       (https-get s (ssl-context [(.certificate server-cert)] :client stranger
                                                 :chain [(.certificate stranger-ca)]) "/"))
              "a certificate from an issuer not trusted is refused")
          (finally (server/stop s)))))
    (testing ":request, with a truststore"
      (let [ts-file (io/file ca-dir "trust.p12")
            _ (with-open [out (io/output-stream ts-file)]
                (.store (trust-store (.certificate ca)) out (.toCharArray "secret")))
            s (start (merge (write! server-cert) {:client-auth :request :truststore (str ts-file)
                                                  :trust-password "secret"}))]
        (try
          (is (= "https nil false" (:body (https-get s trusting "/"))) "no certificate: :ssl-client-cert nil")
          (is (= "https CN=client-1 true" (:body (https-get s with-cert "/"))))
          (finally (server/stop s)))))))

(deftest handshake-failures-are-logged-at-debug-and-disturb-no-one
  (let [cert (localhost)
        s (start (write! cert))
        good (ssl-context [(.certificate cert)])
        open (tls-socket s good)]
    (try
      (is (re-find #"^HTTP/1.1 200" (exchange! open "/before")))
      (let [logs (ts/capture-logs
                  {:until #(<= 3 (count (ts/logged % :message #"TLS handshake")))}
                  (fn []
                    (testing "garbage bytes"
                      (is (:closed? (raw-tls-port s (byte-array (range 64))))))
                    (testing "a plain HTTP request"
                      (is (:closed? (raw-tls-port s (.getBytes "GET / HTTP/1.1\r\nHost: x\r\n\r\n")))))
                    (testing "a client that does not trust the certificate"
                      (is (thrown? javax.net.ssl.SSLHandshakeException
                                   (https-get s (ssl-context [(.certificate (localhost))]) "/"))))
                    (testing "a client that breaks a record after the handshake"
                      (with-open [plain (ts/connect (server/ssl-port s))]
                        (let [over ^SSLSocket (.createSocket (.getSocketFactory good) plain "127.0.0.1"
                                                             (int (server/ssl-port s)) false)]
                          (.startHandshake over)
                          (is (re-find #"^HTTP/1.1 200" (exchange! over "/")))
                          ;; An application data record whose bytes no key made.
                          (doto (.getOutputStream plain) (.write (byte-array (concat [23 3 3 0 24] (range 24)))) (.flush))
                          (is (:closed? (ts/read-all plain))))))))]
        (is (<= 3 (count (ts/logged logs :level :debug :logger "onager.server.client" :message #"TLS handshake")))
            (ts/messages logs))
        (is (empty? (ts/loud logs)) (ts/messages logs)))
      (testing "a good client is served, on a new connection and on the one open before"
        (is (= 200 (:status (https-get s good "/"))))
        (is (re-find #"^HTTP/1.1 200" (exchange! open "/after"))))
      (finally (.close open) (server/stop s)))))

(deftest a-handshake-that-does-not-finish-is-cut-at-the-header-timeout
  (doseq [[what opts] [["one certificate" {}]
                       ["certificates by name" {:sni {"a.example.com" (write! (issue "a.example.com"))}}]]]
    (testing what
      (let [cert (localhost)
            s (start (merge (write! cert) {:header-timeout-ms 300} opts))]
        (try
          (testing "a client that connects and sends nothing"
            (with-open [socket (ts/connect (server/ssl-port s))]
              (.setSoTimeout socket 5000)
              (is (:closed? (ts/read-all socket)))))
          (testing "a client that stops in the middle of its ClientHello"
            ;; A handshake record's header announcing 512 bytes, and 10 of them.
            (with-open [socket (ts/connect (server/ssl-port s))]
              (.setSoTimeout socket 5000)
              (doto (.getOutputStream socket) (.write (byte-array (concat [22 3 1 2 0] (range 10)))) (.flush))
              (is (:closed? (ts/read-all socket)))))
          (testing "a client that finishes its handshake is served"
            (is (= 200 (:status (https-get s (ssl-context [(.certificate cert)]) "/")))))
          (finally (server/stop s)))))))

(deftest certificates-reload-without-a-restart
  (let [dir (temp-dir)
        one (localhost) two (localhost) three (localhost)
        files (write! one dir)
        trusting (ssl-context [(.certificate one) (.certificate two) (.certificate three)])
        s (start (merge files {:ssl-reload-on-change? false}))]
    (try
      (let [open (tls-socket s trusting)]
        (is (= (.getSerialNumber (.certificate one)) (serial open)))
        (is (re-find #"^HTTP/1.1 200" (exchange! open "/")))
        (write! two dir)
        (is (= (.getSerialNumber (.certificate one)) (with-open [c (tls-socket s trusting)] (serial c)))
            "a file changed, without a reload: the certificate in use stays")
        (server/reload-ssl! s)
        (testing "reload-ssl!: new connections get the new certificate"
          (is (= (.getSerialNumber (.certificate two)) (with-open [c (tls-socket s trusting)] (serial c)))))
        (testing "the connection open before is not dropped, and keeps its certificate"
          (is (re-find #"^HTTP/1.1 200" (exchange! open "/again")))
          (is (= (.getSerialNumber (.certificate one)) (serial open))))
        (.close open))
      (testing "a reload of files that cannot be used throws, and the certificate in use stays"
        (spit (:ssl-key files) "not a key")
        (let [e (try (server/reload-ssl! s) nil (catch clojure.lang.ExceptionInfo e e))]
          (is (= :invalid-tls (:onager/error (ex-data e))))
          (is (str/includes? (ex-message e) (str ":ssl-key " (:ssl-key files)))))
        (is (= (.getSerialNumber (.certificate two)) (with-open [c (tls-socket s trusting)] (serial c)))))
      (finally (server/stop s))))
  (testing ":ssl-reload-on-change? reloads when the files change"
    (let [dir (temp-dir)
          one (localhost) two (localhost)
          trusting (ssl-context [(.certificate one) (.certificate two)])
          s (start (merge (write! one dir) {:ssl-reload-on-change? true}))]
      (try
        (let [open (tls-socket s trusting)]
          (is (re-find #"^HTTP/1.1 200" (exchange! open "/")))
          (let [logs (ts/capture-logs
                      {:until #(seq (ts/logged % :message #"reloaded")) :timeout-ms 10000}
                      #(write! two dir))]
            (is (seq (ts/logged logs :level :info :logger "onager.server" :message #"TLS certificates reloaded"))))
          (is (= (.getSerialNumber (.certificate two)) (with-open [c (tls-socket s trusting)] (serial c))))
          (is (re-find #"^HTTP/1.1 200" (exchange! open "/again")) "the open connection is kept")
          (.close open))
        (finally (server/stop s))))))

(defn- start-failure
  "The ex-info start throws for `opts` (on a free TLS port), or nil."
  [opts]
  (try (server/stop (start opts)) nil
       (catch clojure.lang.ExceptionInfo e e)))

(deftest bad-certificate-files-fail-start-naming-option-and-file
  (let [dir (temp-dir)
        good (write! (localhost))
        other (write! (localhost))
        garbage (doto (io/file dir "garbage.pem") (spit "hello"))
        missing (str (io/file dir "missing.pem"))
        expired (write! (issue "localhost" :from-hours 72 :days 1))
        check (fn [opts option file words]
                (let [e (start-failure opts)]
                  (is (some? e) (pr-str opts))
                  (when e
                    (is (= :invalid-tls (:onager/error (ex-data e))) (ex-message e))
                    (is (str/includes? (ex-message e) (str option " " file)) (ex-message e))
                    (is (re-find words (ex-message e)) (ex-message e)))))]
    (check (assoc good :ssl-cert missing) ":ssl-cert" missing #"no such file")
    (check (assoc good :ssl-cert (str garbage)) ":ssl-cert" garbage #"no PEM certificate")
    (check (assoc good :ssl-key (str garbage)) ":ssl-key" garbage #"no PEM private key")
    (check (assoc good :ssl-key (:ssl-key other)) ":ssl-key" (:ssl-key other) #"does not match")
    (check expired ":ssl-cert" (:ssl-cert expired) #"expired")
    (check (merge good {:client-auth :require :ssl-ca (str garbage)}) ":ssl-ca" garbage #"no PEM certificate")
    (testing "a keystore with a wrong password"
      (let [p12 (io/file dir "server.p12")
            cert (localhost)
            ks (doto (KeyStore/getInstance "PKCS12") (.load nil nil)
                 (.setKeyEntry "server" (.key cert) (.toCharArray "right")
                               (into-array X509Certificate [(.certificate cert)])))]
        (with-open [out (io/output-stream p12)] (.store ks out (.toCharArray "right")))
        (check {:keystore (str p12) :key-password "wrong"} ":keystore" p12 #"password")
        (testing "and with the right one it serves"
          (let [s (start {:keystore (str p12) :key-password "right"})]
            (try (is (= 200 (:status (https-get s (ssl-context [(.certificate cert)]) "/"))))
                 (finally (server/stop s)))))))
    (testing "the sni entries' files are named with their server name"
      (let [e (start-failure (assoc good :sni {"a.test" (assoc good :ssl-cert missing)}))]
        (is (str/includes? (str (ex-message e)) (str ":sni \"a.test\" :ssl-cert " missing)) (ex-message e))))
    (testing ":client-auth without the issuers to trust"
      (is (re-find #":client-auth.*:ssl-ca" (str (ex-message (start-failure (assoc good :client-auth :require))))))))
  (testing "options that do not fit together"
    (let [msg (fn [opts] (try (server/start describe (merge {:host "127.0.0.1"} opts)) nil
                              (catch clojure.lang.ExceptionInfo e (ex-message e))))]
      (is (re-find #":ssl-port" (str (msg {:port 0 :ssl-cert "c.pem" :ssl-key "k.pem"}))))
      (is (re-find #"both nil" (str (msg {:port nil}))))
      (is (re-find #"certificate is needed" (str (msg {:port nil :ssl-port 0}))))
      (is (re-find #":ssl-cert needs :ssl-key" (str (msg {:port nil :ssl-port 0 :ssl-cert "c.pem"}))))
      (is (re-find #":key-password" (str (msg {:keystore-password "x"})))))))

(deftest keys-and-certificates-openssl-writes
  (let [dir (temp-dir)
        f #(str (io/file dir %))
        run (fn [& args] (let [r (apply shell/sh args)] (is (zero? (:exit r)) (:err r)) r))]
    (run "openssl" "req" "-x509" "-newkey" "rsa:2048" "-nodes" "-keyout" (f "pk8.pem") "-out" (f "cert.pem")
         "-days" "2" "-subj" "/CN=localhost" "-addext" "subjectAltName=DNS:localhost,IP:127.0.0.1")
    (run "openssl" "rsa" "-in" (f "pk8.pem") "-traditional" "-out" (f "pkcs1.pem"))
    (run "openssl" "pkcs8" "-topk8" "-in" (f "pk8.pem") "-v2" "aes-256-cbc" "-passout" "pass:s3cret"
         "-out" (f "enc.pem"))
    (let [cert (first (Pem/certificates (.toPath (io/file (f "cert.pem")))))
          ctx (ssl-context [cert])]
      (doseq [[what opts] {"PKCS #1 RSA" {:ssl-key (f "pkcs1.pem")}
                           "encrypted PKCS #8" {:ssl-key (f "enc.pem") :key-password "s3cret"}}]
        (testing what
          (let [s (start (merge {:ssl-cert (f "cert.pem")} opts))]
            (try (is (= 200 (:status (https-get s ctx "/"))))
                 (finally (server/stop s))))))
      (testing "an encrypted key with a wrong password"
        (is (re-find #":ssl-key \S+enc\.pem: wrong :key-password"
                     (str (ex-message (start-failure {:ssl-cert (f "cert.pem") :ssl-key (f "enc.pem")
                                                      :key-password "nope"})))))))))

(deftest openssl-provider
  (if-not (OpenSsl/isAvailable)
    (do-report {:type :skip :message (str "netty-tcnative cannot load here: " (OpenSsl/unavailabilityCause))})
    (let [cert (localhost)
          s (start (merge (write! cert) {:ssl-provider :openssl}))]
      (try
        (is (= "https nil false" (:body (https-get s (ssl-context [(.certificate cert)]) "/"))))
        (is (re-find #"ALPN protocol: h2" (:out (s-client s "-alpn" "h2,http/1.1"))))
        (is (not= 0 (:exit (s-client s "-tls1_1" "-cipher" "DEFAULT:@SECLEVEL=0"))))
        (finally (server/stop s))))))
