(ns onager.server.tls-options
  "The TLS options of `onager.server/start`, a part of its options table, and
  the checks that span several of them. Their names follow ring-jetty-adapter's
  where it has the option (:ssl-port, :keystore, :key-password, :truststore,
  :trust-password, :client-auth, :ssl-context)."
  (:require [clojure.string :as str])
  (:import [java.io File]
           [java.security KeyStore]
           [javax.net.ssl SSLContext]))

(set! *warn-on-reflection* true)

(defn- path? [v] (or (and (string? v) (seq v)) (instance? File v)))

(defn- opt-path? [v] (or (nil? v) (path? v)))

(defn- opt-string? [v] (or (nil? v) (and (string? v) (seq v))))

(def ^:private protocols #{"TLSv1.3" "TLSv1.2" "TLSv1.1" "TLSv1"})

(def certificate-keys
  "The options that name a certificate and its key, at the top level and in
  each :sni entry."
  [:ssl-cert :ssl-key :key-password :keystore :keystore-type :ssl-context])

(defn- certificate-problem
  "What is wrong with the certificate options of `m` (where they come from is
  `where`, as \":sni \\\"x\\\" \"), or nil: exactly one of :ssl-cert with
  :ssl-key, :keystore, :ssl-context."
  [m where]
  (let [sources (filter #(some? (get m %)) [:ssl-cert :keystore :ssl-context])]
    (cond
      (and (:ssl-cert m) (nil? (:ssl-key m))) (str where ":ssl-cert needs :ssl-key (the PEM file of its private key)")
      (and (:ssl-key m) (nil? (:ssl-cert m))) (str where ":ssl-key needs :ssl-cert (the PEM file of its certificate)")
      (empty? sources) (str where "a certificate is needed: :ssl-cert and :ssl-key (PEM files), :keystore, or :ssl-context")
      (next sources) (str where "one certificate source, not " (str/join " and " sources)))))

(defn- sni-entry? [[k v]]
  (and (string? k) (re-matches #"(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*" k)
       (map? v) (every? (set certificate-keys) (keys v))
       (opt-path? (:ssl-cert v)) (opt-path? (:ssl-key v)) (opt-string? (:key-password v))
       (or (nil? (:keystore v)) (path? (:keystore v)) (instance? KeyStore (:keystore v)))
       (opt-string? (:keystore-type v))
       (or (nil? (:ssl-context v)) (instance? SSLContext (:ssl-context v)))
       (nil? (certificate-problem v ""))))

(def table
  "The TLS options, in the order the docs show them. See `onager.options`."
  [{:key :ssl-port
    :default nil
    :valid? #(or (nil? %) (and (int? %) (<= 0 % 65535)))
    :allowed "an integer from 0 to 65535, or nil"
    :doc (str "TCP port to listen on with TLS (HTTPS), beside :port (give :port nil for TLS only); 0 binds a "
              "free port, which `onager.server/ssl-port` tells. nil: no TLS. Requests on it have :scheme :https. "
              "It needs a certificate: :ssl-cert and :ssl-key, :keystore, or :ssl-context.")}
   {:key :ssl-cert
    :default nil
    :valid? opt-path?
    :allowed "a file path (string or java.io.File), or nil"
    :doc "PEM file of the server's certificate, followed by its chain (the leaf first); with :ssl-key."}
   {:key :ssl-key
    :default nil
    :valid? opt-path?
    :allowed "a file path (string or java.io.File), or nil"
    :doc (str "PEM file of the certificate's private key: PKCS #8 (BEGIN PRIVATE KEY, or BEGIN ENCRYPTED PRIVATE "
              "KEY with :key-password) or PKCS #1 RSA (BEGIN RSA PRIVATE KEY).")}
   {:key :key-password
    :default nil
    :valid? opt-string?
    :allowed "a non-empty string, or nil"
    :doc "Password of an encrypted :ssl-key, or of the :keystore and its key."}
   {:key :keystore
    :default nil
    :valid? #(or (opt-path? %) (instance? KeyStore %))
    :allowed "a file path (string or java.io.File), a java.security.KeyStore, or nil"
    :doc (str "PKCS #12 or JKS keystore holding the certificate, its chain and its key (the first key entry), "
              "instead of PEM files; its password is :key-password.")}
   {:key :keystore-type
    :default nil
    :default-doc "found from the file"
    :valid? opt-string?
    :allowed "a keystore type such as \"PKCS12\" or \"JKS\", or nil"
    :doc "The :keystore's type; nil lets the JDK tell it from the file."}
   {:key :ssl-context
    :default nil
    :valid? #(or (nil? %) (instance? SSLContext %))
    :allowed "a javax.net.ssl.SSLContext, or nil"
    :doc (str "A ready SSLContext (its key and trust managers) instead of files: the JDK provider only, and "
              "`reload-ssl!` cannot reload it. :ssl-protocols, :ssl-ciphers and :client-auth still apply.")}
   {:key :client-auth
    :default :none
    :valid? #{:none :request :require}
    :allowed ":none, :request or :require (ring-jetty's :want is :request, its :need :require)"
    :doc (str "Mutual TLS: :request asks the client for a certificate, :require refuses the handshake without "
              "one. Either needs :ssl-ca or :truststore for the issuers trusted. The client's certificate is the "
              "request's :ssl-client-cert (a java.security.cert.X509Certificate; nil when it sent none).")}
   {:key :ssl-ca
    :default nil
    :valid? opt-path?
    :allowed "a file path (string or java.io.File), or nil"
    :doc "PEM file of the certificate authorities whose client certificates are trusted (:client-auth)."}
   {:key :truststore
    :default nil
    :valid? #(or (opt-path? %) (instance? KeyStore %))
    :allowed "a file path (string or java.io.File), a java.security.KeyStore, or nil"
    :doc "PKCS #12 or JKS keystore of the trusted client certificate issuers, instead of :ssl-ca."}
   {:key :trust-password
    :default nil
    :valid? opt-string?
    :allowed "a non-empty string, or nil"
    :doc "The :truststore's password."}
   {:key :ssl-protocols
    :default ["TLSv1.3" "TLSv1.2"]
    :valid? #(and (sequential? %) (seq %) (every? protocols %))
    :allowed "a non-empty vector of \"TLSv1.3\", \"TLSv1.2\", \"TLSv1.1\", \"TLSv1\""
    :doc "The TLS versions accepted; older ones are refused in the handshake (RFC 8996 deprecates 1.0 and 1.1)."}
   {:key :ssl-ciphers
    :default nil
    :default-doc "the provider's secure defaults"
    :valid? #(or (nil? %) (and (sequential? %) (seq %) (every? (fn [c] (and (string? c) (seq c))) %)))
    :allowed "a non-empty vector of cipher suite names (IANA, as \"TLS_AES_128_GCM_SHA256\"), or nil"
    :doc "The cipher suites accepted, in the server's order of preference."}
   {:key :sni
    :default nil
    :valid? #(or (nil? %) (and (map? %) (seq %) (every? sni-entry? %)))
    :allowed (str "a map of server names (\"example.com\", \"*.example.com\") to maps of :ssl-cert and :ssl-key "
                  "(with :key-password), :keystore (with :key-password, :keystore-type) or :ssl-context, or nil")
    :doc (str "Certificates by the server name the client asks for (SNI); a wildcard matches one label. "
              "Clients naming another server, or none, get the top-level certificate.")}
   {:key :ssl-provider
    :default :jdk
    :valid? #{:jdk :openssl}
    :allowed ":jdk or :openssl"
    :doc (str "The TLS implementation: the JDK's, or OpenSSL (BoringSSL), which needs "
              "io.netty/netty-tcnative-boringssl-static for the platform on the class path.")}
   {:key :ssl-reload-on-change?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: the certificate, key and trust files are checked every second and read again when they "
              "change; new connections get the new certificate, open ones keep theirs (see `reload-ssl!`).")}])

(def foreign
  "ring-jetty options that Onager names otherwise or does not need, with what to do instead."
  {:ssl? "Give :ssl-port for the TLS listener (and :port nil to listen with TLS only)."
   :http? "Give :port nil to listen with TLS only."
   :keystore-password "The keystore's password is :key-password (as in ring-jetty)."
   :truststore-password "The truststore's password is :trust-password (as in ring-jetty)."
   :exclude-ciphers "Give :ssl-ciphers, the suites accepted."
   :exclude-protocols "Give :ssl-protocols, the versions accepted."
   :keystore-scan-interval "Give :ssl-reload-on-change? true (or call onager.server/reload-ssl!)."})

(defn- fail [k v message]
  (throw (ex-info message {:onager/error :invalid-option :key k :value v :allowed message})))

(defn check
  "Throws an ex-info (:onager/error :invalid-option) when the validated
  options `opts` do not fit together: none of :port, :ssl-port and :unix-socket, TLS
  options without :ssl-port, or not exactly one certificate source. `given`
  are the options as the caller gave them."
  [given opts]
  (let [tls-keys (remove #{:ssl-port} (map :key table))]
    (when (and (nil? (:port opts)) (nil? (:ssl-port opts)) (nil? (:unix-socket opts)))
      (fail :port nil (str "Options :port and :ssl-port are both nil, and there is no :unix-socket: give a "
                           "port or a socket to listen on.")))
    (if (nil? (:ssl-port opts))
      (when-let [k (first (filter #(some? (get given %)) tls-keys))]
        (fail k (get given k) (str "Option " k " is a TLS option, and :ssl-port is not given: give :ssl-port "
                                   "for the TLS listener.")))
      (when-let [problem (certificate-problem opts "")]
        (fail :ssl-port (:ssl-port opts) (str "Option :ssl-port " (:ssl-port opts) ": " problem "."))))))
