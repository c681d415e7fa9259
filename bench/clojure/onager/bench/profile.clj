(ns onager.bench.profile
  "A JFR profile of one server under one scenario, for tuning: the server runs
  with a JFR recording (the JDK's `profile` settings) through a warm-up and a
  measured run; then the JDK's `jfr view` prints where it allocates and where
  it spends CPU. The recording stays in the output directory for JDK Mission
  Control or `jfr print`."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.bench.proc :as proc]
            [onager.bench.run :as run]
            [onager.bench.servers :as servers]
            [onager.bench.tls :as tls]))

(set! *warn-on-reflection* true)

(def views
  "The `jfr view` reports printed after the run."
  ["allocation-by-site" "allocation-by-class" "hot-methods"])

(defn profile
  "Profiles `server` under `scenario`; writes NAME.jfr and NAME.txt to `dir`."
  [server scenario {:keys [cpus log-dir extra-flags tls-files] :as opts}]
  (let [tag (str (:id server) "-" (:id scenario))
        jfr (io/file log-dir (str tag ".jfr"))
        _ (io/make-parents jfr)
        h (servers/launch server (merge {:port (servers/free-port) :cpus (:server cpus) :log-dir log-dir
                                         :extra-flags (conj (vec extra-flags)
                                                            (str "-XX:StartFlightRecording=name=bench,settings=profile,filename="
                                                                 (.getAbsolutePath jfr)))}
                                        (tls/launch-opts scenario tls-files)))]
    (try
      (servers/await-ready h 120000)
      (let [r (run/measure h scenario opts)
            jcmd (str (System/getProperty "java.home") "/bin/jcmd")
            jfr-tool (str (System/getProperty "java.home") "/bin/jfr")]
        (proc/sh jcmd (str (:pid h)) "JFR.dump" "name=bench" (str "filename=" (.getAbsolutePath jfr)))
        (let [text (str/join "\n\n"
                             (cons (format "%s under %s: %.0f req/s, %.2f µs CPU/req, %.0f B allocated/req"
                                           (:id server) (:id scenario) (double (:rps r))
                                           (double (or (:cpu-us r) 0)) (double (or (:alloc-bytes r) 0)))
                                   (for [v views]
                                     (or (proc/sh jfr-tool "view" "--width" "180" v (.getPath jfr))
                                         (str "jfr view " v " failed")))))
              txt (io/file log-dir (str tag ".txt"))]
          (spit txt text)
          (println text)
          (println (str "\nRecording: " jfr "\nReport: " txt))))
      (finally (servers/stop h)))))
