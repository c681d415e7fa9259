(ns onager.health-test
  "Liveness and readiness probes, and readiness following the server's stop:
  503 from the moment stop begins, while the server still answers for
  :shutdown-delay-ms."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.health :as health]
            [onager.json :as json]
            [onager.server :as server]
            [onager.test-support :as ts])
  (:import [java.net URI]
           [java.net.http HttpClient HttpRequest HttpResponse$BodyHandlers]
           [java.time Duration]))

(set! *warn-on-reflection* true)

(def ^:private ^HttpClient http (-> (HttpClient/newBuilder) (.connectTimeout (Duration/ofSeconds 5)) (.build)))

(defn- fetch
  "GET `url`: {:status :headers :body (JSON read with keyword keys, or the text)}."
  [url]
  (let [r (.send http (.build (HttpRequest/newBuilder (URI. url))) (HttpResponse$BodyHandlers/ofString))
        body (.body r)]
    {:status (.statusCode r)
     :headers (into {} (for [[k vs] (.map (.headers r))] [k (first vs)]))
     :body (if (str/starts-with? body "{") (json/read body {:keywords? true}) body)}))

(defn- app [h]
  (let [live (health/live-handler h)
        ready (health/ready-handler h)]
    (fn [request]
      (case (:uri request)
        "/live" (live request)
        "/ready" (ready request)
        {:status 200 :headers {"Content-Type" "text/plain"} :body "work"}))))

(deftest readiness-reports-each-check
  (let [database (atom true)
        h (health/health {:checks {:database #(deref database) :cache (constantly :warm)}})]
    (ts/with-server [s (app h) {}]
      (testing "every check passes: 200, JSON naming each, not cached"
        (let [r (fetch (ts/url s "/ready"))]
          (is (= 200 (:status r)))
          (is (= {:status "up" :checks {:cache "up" :database "up"}} (:body r)))
          (is (= "application/json" (get-in r [:headers "content-type"])))
          (is (= "no-store" (get-in r [:headers "cache-control"])))))
      (testing "a check returning false fails readiness, not liveness"
        (reset! database false)
        (let [r (fetch (ts/url s "/ready"))]
          (is (= 503 (:status r)))
          (is (= {:status "down" :checks {:cache "up" :database "down"}} (:body r))))
        (is (= {:status "up" :checks {}} (:body (fetch (ts/url s "/live")))))))))

(deftest a-check-that-throws-or-hangs-fails-and-is-logged
  (let [release (promise)
        h (health/health {:checks {:broken #(throw (IllegalStateException. "the pool is closed"))
                                   :hung #(deref release)}
                          :timeout-ms 300})]
    (try
      (ts/with-server [s (app h) {}]
        (let [r (atom nil)
              records (ts/capture-logs {:until #(= 2 (count (ts/logged % :logger "onager.health")))}
                                       #(reset! r (fetch (ts/url s "/ready"))))]
          (is (= 503 (:status @r)))
          (is (= {:status "down" :checks {:broken "down" :hung "down"}} (:body @r)))
          (let [[failed] (ts/logged records :logger "onager.health" :message #"health check broken failed")]
            (is (= :warn (:level failed)))
            (is (str/includes? (str (:throwable failed)) "the pool is closed")))
          (is (= [:warn] (map :level (ts/logged records :logger "onager.health"
                                                :message #"health check hung took longer than :timeout-ms"))))))
      (finally (deliver release true)))))

(deftest liveness-runs-its-own-checks
  (let [h (health/health {:checks {:never (constantly false)} :liveness-checks {:threads (constantly true)}})]
    (ts/with-server [s (app h) {}]
      (is (= {:status 200 :body {:status "up" :checks {:threads "up"}}}
             (select-keys (fetch (ts/url s "/live")) [:status :body])))
      (is (= 503 (:status (fetch (ts/url s "/ready"))))))))

(deftest the-async-handlers-answer-on-an-event-loop-server
  (let [h (health/health {:checks {:slow #(do (Thread/sleep 50) true)}})
        ready (health/ready-handler h)
        live (health/live-handler h)]
    (ts/with-server [s (fn [request respond raise]
                         ((if (= "/ready" (:uri request)) ready live) request respond raise))
                     {:async? true :handler-mode :event-loop}]
      (is (= {:status "up" :checks {:slow "up"}} (:body (fetch (ts/url s "/ready")))))
      (is (= 200 (:status (fetch (ts/url s "/live"))))))))

(deftest readiness-fails-as-soon-as-stop-begins-and-the-server-serves-on
  (let [h (health/health {})]
    (is (health/ready? h))
    (let [s (ts/start (app h) {:health h :shutdown-delay-ms 1500})
          stopping (atom nil)
          records (ts/capture-logs {:until #(seq (ts/logged % :message #":shutdown-delay-ms"))}
                                   #(reset! stopping (future (server/stop s))))]
      (testing "stop says how long it serves on"
        (is (seq (ts/logged records :logger "onager.server" :level :info
                            :message #"stopping on 127.0.0.1:\d+ in 1500 ms \(:shutdown-delay-ms\)"))
            (ts/messages records)))
      (Thread/sleep 200)
      (testing "during :shutdown-delay-ms readiness is 503, liveness 200, and requests are served"
        (is (not (health/ready? h)))
        (let [r (fetch (ts/url s "/ready"))]
          (is (= 503 (:status r)))
          (is (= {:status "stopping" :checks {}} (:body r))))
        (is (= 200 (:status (fetch (ts/url s "/live")))))
        (is (= "work" (:body (fetch (ts/url s "/work")))) "a new connection, still accepted")
        (is (not (realized? @stopping))))
      (is (nil? (deref @stopping 10000 :timeout)))
      (is (ts/refused? (server/port s)) "then the server stops")
      (testing "a server started again with it makes it ready again"
        (ts/with-server [_ (app h) {:health h}]
          (is (health/ready? h)))))))

(deftest bad-options-are-refused-with-their-message
  (doseq [[opts allowed] [[{:checks {:db "not a function"}} "a map of check names"]
                          [{:checks [:db]} "a map of check names"]
                          [{:liveness-checks {1 (constantly true)}} "a map of check names"]
                          [{:timeout-ms 0} "an integer from 1 to 600000"]
                          [{:timout-ms 5} "Did you mean :timeout-ms?"]]]
    (let [e (try (health/health opts) nil (catch clojure.lang.ExceptionInfo e e))]
      (is (some? e) (pr-str opts))
      (is (str/includes? (str (ex-message e)) allowed) (ex-message e))))
  (let [e (try (server/start (fn [_]) {:port 0 :health {:checks {}}}) nil
               (catch clojure.lang.ExceptionInfo e e))]
    (is (str/includes? (ex-message e) ":health"))
    (is (str/includes? (ex-message e) "a health object made by onager.health/health"))))
