(ns onager.netty-defaults-app
  "A -main for a JVM of its own, in which Onager is the first to use Netty, for
  the tests of the Netty properties Onager sets (onager.kernel.vertx.NettyDefaults):
  \"server\" serves one request with a server of its own, \"client\" makes one
  with onager.client to a JDK HttpServer, so that nothing else starts Netty
  (given first, either is the first to). It prints the bodies and the property
  as Netty saw it."
  (:require [onager.client :as client]
            [onager.server :as server])
  (:import [com.sun.net.httpserver HttpExchange HttpHandler HttpServer]
           [java.net InetSocketAddress]
           [java.nio.charset StandardCharsets]))

(defn- jdk-server
  "A JDK HttpServer on 127.0.0.1 answering every request with \"ok\"."
  ^HttpServer []
  (doto (HttpServer/create (InetSocketAddress. "127.0.0.1" 0) 0)
    (.createContext "/" (reify HttpHandler
                          (handle [_ exchange]
                            (let [body (.getBytes "ok" StandardCharsets/UTF_8)]
                              (.sendResponseHeaders ^HttpExchange exchange 200 (alength body))
                              (with-open [out (.getResponseBody ^HttpExchange exchange)]
                                (.write out body))))))
    (.start)))

(defn- served-body
  "The body one request gets from a server of Onager's own."
  []
  (let [s (server/start (fn [_] {:status 200 :body "ok"}) {:host "127.0.0.1" :port 0})]
    (try (slurp (str "http://127.0.0.1:" (server/port s) "/"))
         (finally (server/stop s)))))

(defn- fetched-body
  "The body onager.client gets from a JDK HttpServer."
  []
  (let [jdk (jdk-server)
        c (client/client {})]
    (try (:body (client/get (str "http://127.0.0.1:" (.getPort (.getAddress jdk)) "/") {:client c :as :string}))
         (finally (client/close c) (.stop jdk 0)))))

(defn -main
  "For each of `whats`, \"server\" or \"client\" in turn, prints the body; then
  io.netty.jfr.enabled as Netty read it."
  [& whats]
  (doseq [what whats]
    (println (str what " body:") (case what "server" (served-body) "client" (fetched-body))))
  (println "io.netty.jfr.enabled:" (System/getProperty "io.netty.jfr.enabled"))
  (shutdown-agents))
