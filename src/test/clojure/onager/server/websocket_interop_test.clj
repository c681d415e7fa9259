(ns onager.server.websocket-interop-test
  "Onager's WebSockets against a client no one here wrote: Python's websockets
  (scripts/python-ws installs it), with and without permessage-deflate. The
  Autobahn TestSuite's cases are in onager.server.autobahn-test."
  (:require [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.autobahn-app :as autobahn-app]
            [onager.json :as json]
            [onager.test-support :as ts]
            [onager.ws-support :as wss]))

(set! *warn-on-reflection* true)

(deftest pythons-websockets-client
  (doseq [compression? [false true]]
    (testing (if compression? "with permessage-deflate" "without compression")
      (ts/with-server [s autobahn-app/handler {:ws-compression? compression?}]
        (let [{:keys [exit out err]} (shell/sh "timeout" "60" (ts/tool "python-ws") "src/test/python/ws_client.py"
                                               (wss/ws-url s "/") "100")
              r (when (zero? (long exit)) (json/read out {:key-fn keyword}))]
          (is (zero? (long exit)) err)
          (is (= 102 (:right r)) "every message came back as sent")
          (is (= 1000 (:close r)))
          (if compression?
            (is (str/starts-with? (str (:extensions r)) "permessage-deflate"))
            (is (nil? (:extensions r)))))))))
