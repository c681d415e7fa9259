(ns onager.test-jvm
  "Servers and clients in JVMs of their own, for what a test cannot do to its
  own JVM: a small heap, running out of it, a signal."
  (:require [clojure.string :as str])
  (:import [java.io File]
           [java.lang ProcessHandle]
           [java.util.concurrent TimeUnit]))

(set! *warn-on-reflection* true)

(def leak-detection
  "The JVM options that watch every Netty buffer, as the test JVM does; a leak
  shows in the log as a line starting with LEAK:."
  ["-Dio.netty.leakDetection.level=paranoid"])

(def ^:dynamic *niceness*
  "When set, the JVMs started run at this nice(1) level: 19 lets a test's
  JVMs use only the CPU the other tests leave idle."
  nil)

(defn- launch
  "Starts `main-ns`'s -main with `args` in a new JVM with `jvm-opts` and this
  JVM's class path (or the one `jvm-opts` give with \"-cp\"), its output going to
  a temporary file: {:process :log}."
  [jvm-opts main-ns args]
  (let [java (-> (ProcessHandle/current) .info .command .get)
        log (File/createTempFile "onager-jvm" ".log")
        ;; The demo's logging (examples/logback.xml, on the test class path): what such a JVM
        ;; logs goes to its output, where the tests read it, not to the tests' log file.
        command (concat (when *niceness* ["nice" "-n" (str *niceness*)])
                        [java "--enable-native-access=ALL-UNNAMED" "-Dlogback.configurationFile=logback.xml"] jvm-opts
                        (when-not (some #{"-cp"} jvm-opts) ["-cp" (System/getProperty "java.class.path")])
                        ["clojure.main" "-m" (str main-ns)]
                        args)
        process (-> (ProcessBuilder. ^java.util.List (vec command))
                    (.redirectErrorStream true)
                    (.redirectOutput log)
                    (.start))]
    (.deleteOnExit log)
    {:process process :log log}))

(defn start
  "Runs `main-ns`'s -main with `args` in a new JVM with `jvm-opts` and this
  JVM's class path; returns {:process :port :log} once it prints that it
  listens (\"listening on http://127.0.0.1:PORT/\")."
  [jvm-opts main-ns & args]
  (let [{:keys [^Process process ^File log]} (launch jvm-opts main-ns args)
        ;; A niced JVM starts only as fast as the other tests leave it CPU.
        deadline (+ (System/currentTimeMillis) (if *niceness* 600000 60000))]
    (loop []
      (let [text (slurp log)]
        (if-let [[_ port] (re-find #"listening on http://127.0.0.1:(\d+)/" text)]
          {:process process :port (parse-long port) :log log}
          (if (and (.isAlive process) (< (System/currentTimeMillis) deadline))
            (do (Thread/sleep 100) (recur))
            (do (.destroyForcibly process)
                (throw (ex-info (str "the server JVM did not start:\n" text) {})))))))))

(defn stop
  "Ends the JVM: SIGTERM, then SIGKILL if it is still there after 20 s."
  [{:keys [^Process process]}]
  (.destroy process)
  (when-not (.waitFor process 20 TimeUnit/SECONDS)
    (.destroyForcibly process)
    (.waitFor process 10 TimeUnit/SECONDS)))

(defn log-text
  "What the JVM has printed so far."
  [{:keys [log]}]
  (slurp log))

(defn leaks
  "The LEAK: lines of the JVM's log."
  [jvm]
  (filter #(str/includes? % "LEAK:") (str/split-lines (log-text jvm))))

(defn run
  "Runs `main-ns`'s -main with `args` in a new JVM with `jvm-opts` and this
  JVM's class path, waits for it to end (killing it after `timeout-ms`), and
  returns {:exit code :out what-it-printed}."
  [timeout-ms jvm-opts main-ns & args]
  (let [{:keys [^Process process log]} (launch jvm-opts main-ns args)]
    (when-not (.waitFor process timeout-ms TimeUnit/MILLISECONDS)
      (.destroyForcibly process)
      (.waitFor process 10 TimeUnit/SECONDS))
    {:exit (.exitValue process) :out (slurp log)}))
