(ns onager.server.slow-clients-test
  "slowhttptest (scripts/install-tools test installs it) against the demo app:
  hundreds of connections that send their heads a header a second (slowloris)
  or read their responses a few bytes at a time (slow read), for up to 12
  seconds, while its probe checks that the server still answers others."
  (:require [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.demo :as demo]
            [onager.test-support :as ts]))

(defn- slowhttptest
  "Runs slowhttptest with `args` against `url`; returns its report without colours."
  [url & args]
  (let [{:keys [exit out err]} (apply shell/sh "timeout" "60" "slowhttptest" (concat args ["-u" url]))]
    (when-not (zero? exit)
      (throw (ex-info (str "slowhttptest failed (exit " exit "): " err out) {:exit exit})))
    (str/replace out #"\u001b\[[0-9;]*[A-Za-z]" "")))

(defn- availability [report]
  (map second (re-seq #"service available:\s+(\w+)" report)))

(defn- last-count [report field]
  (some-> (last (re-seq (re-pattern (str field ":\\s+(\\d+)")) report)) second parse-long))

(def ^:private app (demo/handler (io/file "examples/static")))

(deftest slowloris
  (testing "1000 connections send a header a second and never end their heads"
    (ts/with-server [s app {:header-timeout-ms 6000}]
      (let [report (slowhttptest (ts/url s "/plaintext")
                                 "-H" "-c" "1000" "-r" "250" "-i" "1" "-x" "24" "-l" "12" "-p" "3")
            seen (availability report)]
        (testing "the server keeps answering others all along"
          (is (>= (count seen) 3) report)
          (is (every? #{"YES"} seen) report))
        (testing "and closes the slow connections once :header-timeout-ms has passed"
          (is (re-find #"Exit status: No open connections left" report) report))
        (is (= 200 (:status (ts/request (ts/url s "/plaintext")))))))))

(deftest slow-read
  (testing "300 connections ask for 1 MiB three times each and read 32 bytes a second through a tiny window"
    (ts/with-server [s app {}]
      (let [report (slowhttptest (ts/url s "/download?size=1048576")
                                 "-X" "-c" "300" "-r" "150" "-w" "512" "-y" "1024" "-n" "1" "-z" "32"
                                 "-k" "3" "-l" "12" "-p" "3")
            seen (availability report)]
        (is (>= (count seen) 3) report)
        (is (every? #{"YES"} seen) report)
        (is (= 200 (:status (ts/request (ts/url s "/plaintext")))))))))
