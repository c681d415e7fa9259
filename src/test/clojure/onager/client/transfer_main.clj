(ns onager.client.transfer-main
  "A client in a JVM of its own, for the transfer tests' small heap:
  `download URL` reads the response as a stream and prints how many bytes
  came; `upload URL SIZE` streams SIZE zero bytes up and prints the answer."
  (:require [onager.client :as client]
            [onager.test-support :as ts])
  (:import [java.io InputStream]))

(set! *warn-on-reflection* true)

(defn -main [mode url & [size]]
  (case mode
    "download" (with-open [^InputStream in (:body (client/get url {:as :stream}))]
                 (let [buf (byte-array 65536)]
                   (loop [total 0]
                     (let [n (.read in buf)]
                       (if (neg? n)
                         (println "downloaded" total "bytes")
                         (recur (+ total n)))))))
    "upload" (println "uploaded:" (:body (client/post url {:body (ts/zeros (parse-long size))}))))
  (shutdown-agents)
  (System/exit 0))
