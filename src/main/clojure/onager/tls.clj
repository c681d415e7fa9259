(ns onager.tls
  "TLS helpers for development: a self-signed certificate to serve HTTPS on
  this machine.

    (require '[onager.tls :as tls])
    (def s (server/start #'app (merge {:port 8080 :ssl-port 8443} (tls/self-signed))))

  Browsers and clients do not trust it until told to: curl --cacert the
  :ssl-cert file (or -k), the JDK with a trust store holding it. For
  production, use a certificate from a CA (Let's Encrypt's certbot writes the
  PEM files :ssl-cert and :ssl-key take)."
  (:import [java.io File]
           [java.nio.file Files Path]
           [java.nio.file.attribute FileAttribute]
           [java.time Duration Instant]
           [onager.kernel.tls CertificateMaker Pem]))

(set! *warn-on-reflection* true)

(defn self-signed
  "Makes a self-signed certificate (EC P-256, SHA-256) and its private key, and
  writes them as PEM files: returns {:ssl-cert cert-path :ssl-key key-path},
  server options as they are. Options:
    :dir    the folder to write cert.pem and key.pem in (made when missing;
            default a new temporary folder); the key file is readable by its
            owner only
    :names  the host names and IP addresses it is for, the first its common
            name (default [\"localhost\" \"127.0.0.1\" \"::1\"])
    :days   how long it is valid, from an hour ago (default 365)"
  ([] (self-signed {}))
  ([{:keys [dir names days] :or {names ["localhost" "127.0.0.1" "::1"] days 365}}]
   (let [folder (if dir
                  (.toPath (doto (File. (str dir)) (.mkdirs)))
                  (Files/createTempDirectory "onager-tls" (make-array FileAttribute 0)))
         cert (.resolve ^Path folder "cert.pem")
         key (.resolve ^Path folder "key.pem")
         issued (CertificateMaker/make (first names) (vec names) false nil
                                       (.minus (Instant/now) (Duration/ofHours 1)) (Duration/ofDays days))]
     (Pem/write issued cert key)
     {:ssl-cert (str cert) :ssl-key (str key)})))
