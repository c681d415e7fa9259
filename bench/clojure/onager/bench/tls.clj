(ns onager.bench.tls
  "The TLS scenarios' set-up: a self-signed certificate made for the run, and
  the command-line flags that give a server its TLS port. Raw Vert.x and the demo
  take the same flags, named after Onager's options:
  --tls-port N (the demo's, for `make run`) --ssl-cert PEM --ssl-key PEM
  --ssl-provider jdk|openssl (Onager's options :ssl-cert, :ssl-key, :ssl-provider)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.bench.proc :as proc]
            [onager.bench.servers :as servers]))

(set! *warn-on-reflection* true)

(defn certificate
  "Makes a self-signed certificate for localhost and 127.0.0.1 and its key (EC
  P-256, the curve browsers and servers use most) as PEM files in `dir`; returns
  {:cert path :key path}."
  [dir]
  (let [cert (io/file dir "tls" "cert.pem")
        key (io/file dir "tls" "key.pem")]
    (io/make-parents cert)
    (when-not (proc/sh "openssl" "req" "-x509" "-newkey" "ec" "-pkeyopt" "ec_paramgen_curve:P-256" "-nodes"
                       "-keyout" (.getPath key) "-out" (.getPath cert) "-days" "7" "-subj" "/CN=localhost"
                       "-addext" "subjectAltName=DNS:localhost,IP:127.0.0.1")
      (throw (ex-info "openssl could not make the benchmark's certificate (is openssl installed?)" {})))
    {:cert (.getAbsolutePath cert) :key (.getAbsolutePath key)}))

(defn openssl-available?
  "True when the project's class path has netty-tcnative-boringssl-static, without
  which neither raw Vert.x nor Onager can use OpenSSL."
  []
  (let [f (io/file "target/classpath.txt")]
    (and (.exists f) (str/includes? (slurp f) "netty-tcnative-boringssl-static"))))

(defn launch-opts
  "What `servers/launch` needs beyond the clear-text port for `scenario`: for a
  TLS scenario a free TLS port and the flags naming it, the certificate and the
  provider; nothing for the others. `files` is what `certificate` returned."
  [scenario files]
  (when-let [provider (:tls scenario)]
    (let [port (servers/free-port)]
      {:ssl-port port
       :args ["--tls-port" (str port) "--ssl-cert" (:cert files) "--ssl-key" (:key files)
              "--ssl-provider" (name provider)]})))
