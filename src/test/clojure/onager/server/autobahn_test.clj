(ns ^{:onager.test/beside true} onager.server.autobahn-test
  "The Autobahn TestSuite's 517 cases, run by kosoku (scripts/python-ws
  installs it), against Onager's WebSocket echo server (onager.autobahn-app),
  permessage-deflate included: all of them in the default handler mode, and
  in the :event-loop mode all but the groups that move large messages and
  compress (9.*, 12.*, 13.*). Those test the codec, which the two modes share,
  and take most of the suite's CPU; the modes differ in where the listener
  runs, which every other group tests in both.

  The cases take minutes of CPU, in the servers and in kosoku alike. They run
  in processes of their own at nice 19, and this namespace runs beside the
  others (:onager.test/beside, see onager.test-runner): the suite's other
  tests, which mostly wait on timeouts and sockets, keep the CPU they need,
  and the cases take what is left."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.test :refer [deftest is testing]]
            [onager.json :as json]
            [onager.test-jvm :as jvm]
            [onager.test-support :as ts]))

(set! *warn-on-reflection* true)

(def ^:private niceness 19)

(def ^:private codec-groups
  "The cases that test the codec alone, with most of the suite's CPU: run in one mode."
  ["9.*" "12.*" "13.*"])

(defn- kosoku
  "Runs kosoku against the server on `port` with `args`, niced, writing its
  report to `out`; returns each case's id with its outcome, or {:error why}."
  [port out args]
  (let [kosoku (str (.getParent (io/file (ts/tool "python-ws"))) "/kosoku")
        ;; Bounded, though generous: niced, the cases wait while the other tests run.
        {:keys [exit err]} (apply shell/sh "timeout" "1500" "nice" "-n" (str niceness)
                                  kosoku (str "127.0.0.1:" port) "-o" (str out) args)
        report (io/file out "index.json")]
    (if-not (.exists report)
      {:error (str "kosoku wrote no report (exit " exit "): " err)}
      {:cases (into {} (mapcat identity (vals (json/read (slurp report)))))})))

(defn- bad-cases
  "The cases of `cases` whose outcome is not OK, NON-STRICT or INFORMATIONAL, with
  why their close was not clean and which of kosoku's timeouts expired, from
  their reports in `out`."
  [out cases]
  (let [fine #{"OK" "NON-STRICT" "INFORMATIONAL"}]
    (into (sorted-map)
          (for [[id c] cases
                :when (not (and (fine (get c "behavior")) (#{"OK" "INFORMATIONAL"} (get c "behaviorClose"))))]
            [id (merge (select-keys c ["behavior" "behaviorClose"])
                       (-> (json/read (slurp (io/file out (get c "reportfile"))))
                           (select-keys ["wasNotCleanReason" "wasOpenHandshakeTimeout"
                                         "wasCloseHandshakeTimeout" "wasServerConnectionDropTimeout"])))]))))

(defn- autobahn
  "Runs the cases against the server on `port`, but those that match a glob of
  `excluded`; returns how many ran, the ones whose outcome was not OK,
  NON-STRICT or INFORMATIONAL when run again (:bad), and the ones that failed
  the first time, with why (:retried).

  kosoku waits a second for the server's close frame and for the server to
  close the connection, as Autobahn does. Niced beside the other tests, the
  server can wait longer than that for a CPU, so a case that fails runs once
  more, alone, and only a case that fails twice counts."
  [port excluded]
  (let [out (io/file "target" "autobahn" (str port))
        {:keys [error cases]} (kosoku port out (concat ["-p" "4"] (mapcat (fn [glob] ["-x" glob]) excluded)))]
    (if error
      {:error error}
      (let [first-bad (bad-cases out cases)
            again (io/file out "again")
            rerun (when (seq first-bad) (kosoku port again (mapcat (fn [id] ["-i" id]) (keys first-bad))))]
        (if-let [error (:error rerun)]
          {:error error}
          {:ran (count cases)
           :bad (if rerun (bad-cases again (:cases rerun)) {})
           :retried first-bad})))))

(defn- run-mode
  "The cases against an echo server in handler mode `mode`, in a JVM of its
  own whose Netty leak detector samples buffers as in production (tracking
  every one, the test JVM's way, would make the gigabytes they move minutes
  slower); the outcome of the cases but `excluded` with the server's LEAK: lines."
  [mode excluded]
  (let [server (binding [jvm/*niceness* niceness]
                 (jvm/start ["-Dio.netty.leakDetection.level=simple"] 'onager.autobahn-app (name mode)))]
    (try
      (assoc (autobahn (:port server) excluded) :leaks (vec (jvm/leaks server)))
      (finally (jvm/stop server)))))

(deftest the-autobahn-testsuite
  (let [runs (mapv (fn [[mode excluded cases]] [mode cases (future (run-mode mode excluded))])
                   [[:virtual [] 517] [:event-loop codec-groups 247]])]
    (doseq [[mode cases r] runs]
      (testing (str (name mode) " mode, permessage-deflate on")
        (let [{:keys [error ran bad retried leaks]} @r]
          (when (seq retried)
            (println (str "Autobahn, " (name mode) " mode: failed at first, so run again alone: " retried)))
          (is (nil? error))
          (is (= cases ran) "every case chosen ran")
          (is (empty? bad))
          (is (empty? leaks) "no buffer leaked"))))))
