(ns onager.server.websocket-interop-test
  "Onager's WebSockets against clients no one here wrote: Python's websockets,
  and the Autobahn TestSuite's cases run by kosoku, in the default and the
  :event-loop handler modes, permessage-deflate included (scripts/python-ws
  installs both)."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.json :as json]
            [onager.server :as server]
            [onager.test-support :as ts]
            [onager.websocket :as ws]
            [onager.ws-support :as wss])
  (:import [io.netty.util ResourceLeakDetector ResourceLeakDetector$Level]))

(set! *warn-on-reflection* true)

(def ^:private echo
  (fn [request]
    (if (ws/websocket-request? request)
      {:ring.websocket/listener {:on-message (fn [socket message] (ws/send socket message))}}
      {:status 400})))

(deftest pythons-websockets-client
  (doseq [compression? [false true]]
    (testing (if compression? "with permessage-deflate" "without compression")
      (ts/with-server [s echo {:ws-compression? compression?}]
        (let [{:keys [exit out err]} (shell/sh "timeout" "60" (ts/tool "python-ws") "src/test/python/ws_client.py"
                                               (wss/ws-url s "/") "100")
              r (when (zero? (long exit)) (json/read out {:key-fn keyword}))]
          (is (zero? (long exit)) err)
          (is (= 102 (:right r)) "every message came back as sent")
          (is (= 1000 (:close r)))
          (if compression?
            (is (str/starts-with? (str (:extensions r)) "permessage-deflate"))
            (is (nil? (:extensions r)))))))))

(defn- autobahn
  "Runs every case of the Autobahn TestSuite (kosoku) against `server`; returns
  how many ran and the ones whose outcome is not OK, NON-STRICT or INFORMATIONAL."
  [server]
  (let [out (io/file "target" "autobahn" (str (server/port server)))
        kosoku (str (.getParent (io/file (ts/tool "python-ws"))) "/kosoku")
        {:keys [exit err]} (shell/sh "timeout" "600" kosoku (str "127.0.0.1:" (server/port server))
                                  "-p" "4" "-o" (str out))
        report (io/file out "index.json")]
    (is (.exists report) (str "kosoku wrote no report (exit " exit "): " err))
    (when (.exists report)
      (let [results (mapcat vals (vals (json/read (slurp report))))
            fine #{"OK" "NON-STRICT" "INFORMATIONAL"}]
        {:ran (count results)
         :bad (vec (for [c results
                         :when (not (and (fine (get c "behavior")) (#{"OK" "INFORMATIONAL"} (get c "behaviorClose"))))]
                     (select-keys c ["behavior" "behaviorClose" "reportfile"])))}))))

(defmacro ^:private with-sampled-leak-detection
  "Runs `body` with Netty's leak detector sampling buffers, as in production,
  instead of the test JVM's paranoid tracking of every one with its stack:
  the Autobahn cases move gigabytes, which paranoid tracking makes minutes
  longer. Leaks are still caught, in the buffers sampled."
  [& body]
  `(let [level# (ResourceLeakDetector/getLevel)]
     (ResourceLeakDetector/setLevel ResourceLeakDetector$Level/SIMPLE)
     (try ~@body (finally (ResourceLeakDetector/setLevel level#)))))

(deftest the-autobahn-testsuite
  ;; Its largest messages are 16 MiB (cases 9.*). The cases check the protocol, not the
  ;; compression ratio: level 1 keeps them short (the 12.* and 13.* cases, a thousand
  ;; compressed messages each, are most of a run's minutes). One run keeps about one core
  ;; busy, so the two modes run at once.
  (with-sampled-leak-detection
    (let [run (fn [mode]
                (ts/with-server [s echo {:handler-mode mode :ws-compression? true :ws-compression-level 1
                                         :ws-max-frame-size (* 20 1024 1024)
                                         :ws-max-message-size (* 20 1024 1024)}]
                  (autobahn s)))
          runs (mapv (fn [mode] [mode (future (run mode))]) [:virtual :event-loop])]
      (doseq [[mode r] runs]
        (testing (str (name mode) " mode, permessage-deflate on")
          (let [{:keys [ran bad]} @r]
            (is (= 517 ran) "every case ran")
            (is (empty? bad))))))))
