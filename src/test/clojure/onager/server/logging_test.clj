(ns onager.server.logging-test
  "Onager, Vert.x and Netty log through SLF4J when it has a provider (Logback
  here), with no property to set: an application configures all three as it
  configures itself. doc/logging.md says the rest."
  (:require [clojure.test :refer [deftest is testing]]
            [onager.test-support :as ts])
  (:import [io.netty.util.internal.logging InternalLoggerFactory]
           [io.vertx.core.internal.logging LoggerFactory]))

(deftest vertx-and-netty-log-through-slf4j
  (let [records (ts/capture-logs
                 #(do (.warn (LoggerFactory/getLogger "io.vertx.logging-probe") "from Vert.x")
                      (.warn (InternalLoggerFactory/getInstance "io.netty.logging-probe") "from Netty {}" 4)))]
    (is (seq (ts/logged records :level :warn :logger "io.vertx.logging-probe" :message #"^from Vert\.x$"))
        (ts/messages records))
    (is (seq (ts/logged records :level :warn :logger "io.netty.logging-probe" :message #"^from Netty 4$"))
        (ts/messages records))))

(deftest onager-logs-a-failing-handler-through-slf4j
  (ts/with-server [s (fn [_] (throw (ex-info "handler failure for the log" {}))) {}]
    (let [response (atom nil)
          records (ts/capture-logs {:until #(seq (ts/logged % :level :error))}
                                   #(reset! response (ts/request (ts/url s "/x?y=1"))))
          [error :as errors] (ts/logged records :level :error)]
      (is (= 500 (:status @response)))
      (is (= 1 (count errors)) (ts/messages records))
      (testing "on onager.server.handler, one formatted line with the cause beside it"
        (is (= "onager.server.handler" (:logger error)))
        (is (= "handler for GET /x?y=1 failed; the client got 500" (:message error)))
        (is (= "handler failure for the log" (ex-message (:throwable error))))))))
