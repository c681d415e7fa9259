(ns onager.bench.client-load
  "The Clojure clients of the client benchmark, driven by the same loop as the
  Java ones (onager.bench.client.LoadLoop): Onager's, and clj-http 2.3's
  (Debian's, on Apache HttpClient 4), each loaded only when asked for, since
  each runs with its own class path.

    clojure.main -m onager.bench.client-load onager|clj-http get URL CALLERS WARMUP-S DURATION-S
    ... onager download URL SIZE | onager upload URL SIZE"
  (:import [onager.bench.client LoadLoop LoadLoop$Call]))

(set! *warn-on-reflection* true)

(defmacro ^:private call [& body]
  `(reify LoadLoop$Call (call [_#] (long (do ~@body)))))

(defn- onager [mode url args]
  (let [request (requiring-resolve 'onager.client/request)
        c ((requiring-resolve 'onager.client/client) {:insecure? true :max-connections 64})
        sep (if (.contains ^String url "?") "&" "?")
        download (fn [size] (LoadLoop/drain (:body (request {:client c :url (str url sep "size=" size) :as :stream}))))
        upload (fn [size] (request {:client c :method :post :url url :headers {"content-length" (str size)}
                                    :body (LoadLoop/zeros size)})
                 size)]
    (case mode
      "get" (let [[callers warmup duration] (map parse-long args)]
              (LoadLoop/closedLoop callers (* 1000 warmup) (* 1000 duration)
                                   (call (alength ^bytes (:body (request {:client c :url url :as :bytes}))))))
      "download" (let [size (parse-long (first args))]
                   (LoadLoop/transfer (call (download (quot size 4))) (call (download size))))
      "upload" (let [size (parse-long (first args))]
                 (LoadLoop/transfer (call (upload (quot size 4))) (call (upload size)))))))

(defn- clj-http [mode url args]
  (let [get (requiring-resolve 'clj-http.client/get)
        manager ((requiring-resolve 'clj-http.conn-mgr/make-reusable-conn-manager)
                 {:threads 64 :default-per-route 64 :insecure? true})]
    (case mode
      "get" (let [[callers warmup duration] (map parse-long args)]
              (LoadLoop/closedLoop callers (* 1000 warmup) (* 1000 duration)
                                   (call (alength ^bytes (:body (get url {:connection-manager manager
                                                                          :as :byte-array})))))))))

(defn -main
  "Runs the client `kind` in `mode`; see the namespace's docstring."
  [kind mode url & args]
  (case kind
    "onager" (onager mode url args)
    "clj-http" (clj-http mode url args))
  (System/exit 0))
