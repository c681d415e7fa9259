(ns onager.server.h2spec-test
  "h2spec (scripts/h2spec installs it), the HTTP/2 conformance suite, in strict
  mode against a server on h2c (prior knowledge) and on h2 over TLS (ALPN, a
  self-signed certificate made by openssl for the test): each of its 146 cases
  must pass, none failed, errored or skipped. A failure names every case that did
  not pass, with h2spec's account of what it expected and what it got."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [clojure.xml :as xml]
            [onager.server :as server]
            [onager.test-support :as ts])
  (:import [java.io File]
           [java.nio.file Files]
           [java.nio.file.attribute FileAttribute]))

(def ^:private cases "The cases of h2spec 2.2.1 in strict mode." 146)

(def ^:private body
  "A response body of some size: the cases on flow control need DATA frames to
  watch, and are skipped when the response has none."
  (apply str (repeat 64 "Hello, h2spec! ")))

(defn- app
  "Reads the request body (h2spec sends some) and answers 200 with `body`."
  [request]
  (some-> ^java.io.InputStream (:body request) .readAllBytes)
  {:status 200 :headers {"Content-Type" "text/plain; charset=utf-8"} :body body})

(defn- outcome
  "A testcase element of the JUnit XML as {:name :status :message}; :status is
  :passed, or the tag of its child (:failure, :error, :skipped)."
  [{:keys [attrs content]}]
  (let [child (first (filter map? content))]
    {:name (str (:package attrs) " " (:classname attrs))
     :status (or (:tag child) :passed)
     :message (some->> (:content child) (filter string?) (str/join) str/trim)}))

(defn- outcomes
  "Every testcase in h2spec's JUnit report `file`."
  [^File file]
  (for [suite (:content (xml/parse file))
        tc (:content suite)
        :when (= :testcase (:tag tc))]
    (outcome tc)))

(defn- h2spec
  "Runs h2spec in strict mode against 127.0.0.1:`port` (`tls?`: over TLS, the
  certificate not checked); returns its outcomes and its printed report."
  [port tls?]
  (let [dir (.toFile (Files/createTempDirectory "h2spec" (make-array FileAttribute 0)))
        report (io/file dir "report.xml")
        {:keys [out err]} (apply shell/sh "timeout" "300" (ts/tool "h2spec") "-h" "127.0.0.1" "-p" (str port)
                                 "-S" "-j" (.getPath report) (when tls? ["-t" "-k"]))
        printed (str/replace (str out err) #"\u001b\[[0-9;]*[A-Za-z]" "")]
    (try
      (if (.exists report)
        {:outcomes (vec (outcomes report)) :printed printed}
        (throw (ex-info (str "h2spec wrote no report:\n" printed) {})))
      (finally
        (run! #(.delete ^File %) (reverse (file-seq dir)))))))

(defn- passes-all [{:keys [outcomes printed]}]
  (let [bad (remove #(= :passed (:status %)) outcomes)]
    (is (= cases (count outcomes)) (str "h2spec ran " (count outcomes) " cases, not " cases ":\n" printed))
    (is (zero? (count bad))
        (str (count bad) " of " (count outcomes) " h2spec cases did not pass:\n"
             (str/join "\n" (for [{:keys [name status message]} bad]
                              (str "- " (clojure.core/name status) ": " name
                                   (when (seq message) (str "\n    " (str/replace message #"\n\s*" "\n    "))))))))))

(defn- self-signed
  "A self-signed certificate for localhost and 127.0.0.1 with its key, as PEM
  files in a new directory: {:cert path :key path :dir dir}."
  []
  (let [dir (.toFile (Files/createTempDirectory "h2spec-tls" (make-array FileAttribute 0)))
        cert (io/file dir "cert.pem")
        key (io/file dir "key.pem")
        {:keys [exit err]} (shell/sh "openssl" "req" "-x509" "-newkey" "ec" "-pkeyopt" "ec_paramgen_curve:P-256"
                                     "-nodes" "-keyout" (.getPath key) "-out" (.getPath cert) "-days" "2"
                                     "-subj" "/CN=localhost" "-addext" "subjectAltName=DNS:localhost,IP:127.0.0.1")]
    (when-not (zero? (long exit))
      (throw (ex-info (str "openssl could not make a certificate: " err) {})))
    {:cert (.getPath cert) :key (.getPath key) :dir dir}))

(deftest h2c-prior-knowledge
  (testing "h2spec -S on the clear-text port"
    (ts/with-server [s app {}]
      (passes-all (h2spec (server/port s) false)))))

(deftest h2-over-tls
  (testing "h2spec -S -t on the TLS port, h2 chosen by ALPN"
    (let [{:keys [cert key ^File dir]} (self-signed)]
      (try
        (ts/with-server [s app {:ssl-port 0 :ssl-cert cert :ssl-key key}]
          (passes-all (h2spec (server/ssl-port s) true)))
        (finally
          (run! #(.delete ^File %) (reverse (file-seq dir))))))))
