(ns onager.server.handler-test
  "Where handlers run (README \"Where handlers run\"), both arities, and what happens when they fail."
  (:require [clojure.edn :as edn]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.test-support :as ts])
  (:import [io.vertx.core Context]))

(defn- thread-facts []
  (let [t (Thread/currentThread)]
    {:virtual (.isVirtual t)
     :event-loop (Context/isOnEventLoopThread)
     :name (.getName t)}))

(defn- facts-handler [_]
  {:status 200 :body (pr-str (thread-facts))})

(defn- facts [s]
  (edn/read-string (:body (ts/request (ts/url s "/")))))

(deftest virtual-mode-runs-on-virtual-threads
  (testing "the default for sync handlers"
    (ts/with-server [s facts-handler {}]
      (is (= {:virtual true :event-loop false} (dissoc (facts s) :name)))))
  (ts/with-server [s facts-handler {:handler-mode :virtual}]
    (is (:virtual (facts s)))))

(deftest event-loop-mode-runs-on-the-event-loop
  (ts/with-server [s facts-handler {:handler-mode :event-loop}]
    (is (= {:virtual false :event-loop true} (dissoc (facts s) :name)))))

(deftest worker-mode-runs-on-platform-workers
  (ts/with-server [s facts-handler {:handler-mode :worker :worker-threads 3}]
    (let [f (facts s)]
      (is (= {:virtual false :event-loop false} (dissoc f :name)))
      (is (str/starts-with? (:name f) "onager-worker-"))))
  (testing "the pool is bounded by :worker-threads"
    (let [names (atom #{})]
      (ts/with-server [s (fn [_] (swap! names conj (.getName (Thread/currentThread))) (Thread/sleep 20) {:status 200})
                       {:handler-mode :worker :worker-threads 2}]
        (doall (pmap (fn [_] (ts/request (ts/url s "/"))) (range 20)))
        (is (<= 1 (count @names) 2) (pr-str @names))))))

(deftest async-handlers
  (testing "run on the event loop by default"
    (ts/with-server [s (fn [_ respond _] (respond (facts-handler nil))) {:async? true}]
      (is (:event-loop (facts s)))))
  (testing "run where :handler-mode says"
    (ts/with-server [s (fn [_ respond _] (respond (facts-handler nil))) {:async? true :handler-mode :virtual}]
      (is (:virtual (facts s))))
    (ts/with-server [s (fn [_ respond _] (respond (facts-handler nil))) {:async? true :handler-mode :worker}]
      (is (str/starts-with? (:name (facts s)) "onager-worker-"))))
  (testing "may respond later, from any thread"
    (ts/with-server [s (fn [_ respond _]
                         (future (Thread/sleep 50) (respond {:status 201 :body "later"})))
                     {:async? true}]
      (let [r (ts/request (ts/url s "/"))]
        (is (= [201 "later"] [(:status r) (:body r)])))))
  (testing "a second respond is ignored: the client gets the first"
    (ts/with-server [s (fn [_ respond _]
                         (respond {:status 200 :body "first"})
                         (respond {:status 500 :body "second"}))
                     {:async? true}]
      (is (= "first" (:body (ts/request (ts/url s "/"))))))))

(defn- severe [records]
  (ts/logged records :level :error))

(deftest failures-give-500-without-details
  (let [boom (ex-info "secret detail 42" {:password "hunter2"})]
    (ts/each-combo [s (fn [r]
                        (case (:uri r)
                          "/ok" {:status 200 :body "still serving"}
                          "/throw" (throw boom)
                          "/nil" nil
                          "/string" "not a response"))
                    {}]
      (doseq [path ["/throw" "/nil" "/string"]]
        (testing path
          (let [response (atom nil)
                records (ts/capture-logs #(reset! response (ts/request (ts/url s path))))
                logged (severe records)]
            (is (= 500 (:status @response)))
            (is (= "Internal Server Error\n" (:body @response)))
            (is (not (str/includes? (pr-str @response) "secret")))
            (testing "logged once, with the cause"
              (is (= 1 (count logged)) (ts/messages records))
              (is (= "onager.server.handler" (:logger (first logged))))
              (is (str/includes? (:message (first logged)) (str "GET " path)) "names the request")
              (when (= path "/throw")
                (is (identical? boom (:throwable (first logged))))))
            (testing "and the server goes on"
              (is (= "still serving" (:body (ts/request (ts/url s "/ok"))))))))))))

(deftest raise-gives-500
  (let [boom (RuntimeException. "raised detail")]
    (ts/with-server [s (fn [_ _ raise] (raise boom)) {:async? true}]
      (let [response (atom nil)
            logged (severe (ts/capture-logs #(reset! response (ts/request (ts/url s "/")))))]
        (is (= 500 (:status @response)))
        (is (not (str/includes? (:body @response) "raised detail")))
        (is (= 1 (count logged)))
        (is (identical? boom (:throwable (first logged))))))))

(defn- greeting [_] {:status 200 :body "hello"})

(deftest a-var-handler-picks-up-redefinition
  (ts/with-server [s #'greeting {}]
    (is (= "hello" (:body (ts/request (ts/url s "/")))))
    (with-redefs [greeting (fn [_] {:status 200 :body "redefined"})]
      (is (= "redefined" (:body (ts/request (ts/url s "/"))))))))
