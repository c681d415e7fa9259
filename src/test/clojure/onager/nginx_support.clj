(ns onager.nginx-support
  "nginx (Debian), started by a test with a configuration of its own: every
  file it writes (pid, logs, temporary bodies) in the test's folder, in the
  foreground, so that the test ends it."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.client-support :refer [await-listening]])
  (:import [java.io File]
           [java.util.concurrent TimeUnit]))

(set! *warn-on-reflection* true)

(defn main-directives
  "The main-context directives that keep nginx in the foreground, one process,
  its pid and error log in `dir`."
  [^File dir]
  (let [d (.getAbsolutePath dir)]
    (str "daemon off;\nmaster_process off;\npid " d "/nginx.pid;\nerror_log " d "/error.log;\n")))

(defn http-directives
  "The http-context directives that put nginx's temporary files in `dir` and
  turn its access log off, each line indented by `indent`."
  [^File dir indent]
  (let [d (.getAbsolutePath dir)]
    (str indent "access_log off;\n"
         (str/join (for [t ["client_body" "proxy" "fastcgi" "uwsgi" "scgi"]]
                     (str indent t "_temp_path " d "/" t ";\n"))))))

(defn start
  "Writes `config` to `dir`/nginx.conf, starts nginx on it, and returns its
  Process once each of `ports` accepts connections (or throws with what nginx
  said, ending it). Its output goes to `dir`/out.log, its errors to
  `dir`/error.log."
  ^Process [^File dir config ports]
  (let [conf (io/file dir "nginx.conf")
        error-log (io/file dir "error.log")]
    (spit conf config)
    (let [process (-> (ProcessBuilder. ^java.util.List (vector "nginx" "-p" (.getPath dir) "-e" (.getPath error-log)
                                                               "-c" (.getPath conf)))
                      (.redirectErrorStream true)
                      (.redirectOutput (io/file dir "out.log"))
                      (.start))]
      (try
        (doseq [port ports]
          (await-listening port process #(str "nginx did not start:\n" (slurp (io/file dir "out.log"))
                                              (when (.exists error-log) (slurp error-log)))))
        process
        (catch Throwable t
          (.destroyForcibly process)
          (throw t))))))

(defn stop
  "Ends the nginx `process` and waits for it."
  [^Process process]
  (.destroy process)
  (.waitFor process 10 TimeUnit/SECONDS))
