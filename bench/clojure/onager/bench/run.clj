(ns onager.bench.run
  "The throughput benchmark: for each scenario, every server is started, then
  the measured runs go round the servers (A B C A B C ...) so that whatever
  else the machine does hits all of them alike. Each run is a warm-up and a
  measurement; around the measurement the harness reads the server's CPU time
  (/proc) and heap allocation (its probe).

  A server that names a twin (`:beside` in onager.bench.servers) is measured
  once more each round at the same time as the twin: both on the server CPU,
  each loaded by its own generator, so that what else the machine does in
  those seconds falls on both alike. Their req/s ratio is then a ratio of the
  CPU each request costs, free of the drift between runs taken seconds apart."
  (:require [clojure.string :as str]
            [onager.bench.load :as load]
            [onager.bench.proc :as proc]
            [onager.bench.servers :as servers]
            [onager.bench.stats :as stats]
            [onager.bench.tls :as tls]))

(set! *warn-on-reflection* true)

(defn- log [& xs]
  (apply println xs)
  (flush))

(defn- fmt [x digits]
  (if (nil? x) "–" (format (str "%." digits "f") (double x))))

(defn measure
  "One run of `scenario` against the started server `handle`: `warmup`
  seconds of load not counted, then `duration` seconds measured. Returns
  wrk's figures plus :cpu-us (server CPU µs per request, user + system),
  :user-us (the user part alone: the JVM's own work, less disturbed by other
  processes than the kernel's part), :alloc-bytes (heap bytes allocated per
  request), :gc (collections during the run) and :rss-kb (resident memory at
  the end)."
  [handle scenario {:keys [warmup duration wrk]}]
  (let [port (:port handle)]
    (when (pos? (long warmup))
      (load/run-load scenario handle warmup wrk))
    ;; A server that queued work during the warm-up (a bounded pool) must have
    ;; caught up before the measured run: one request must get through first.
    (servers/http-ok? port "/plaintext" 60000)
    (Thread/sleep 200)
    (let [a0 (servers/probe handle)
          c0 (servers/cpu-times handle)
          r (load/run-load scenario handle duration wrk)
          c1 (servers/cpu-times handle)
          a1 (servers/probe handle)
          n (long (:requests r))]
      (when-not (servers/alive? handle)
        (throw (ex-info (str (:id (:server handle)) " died during " (:id scenario) ":\n" (servers/log-tail handle)) {})))
      (assoc r
             :cpu-us (when (and c0 c1 (pos? n))
                       (/ (* 1e6 (- (+ (double (:user c1)) (double (:system c1)))
                                    (+ (double (:user c0)) (double (:system c0)))))
                          n))
             :user-us (when (and c0 c1 (pos? n)) (/ (* 1e6 (- (double (:user c1)) (double (:user c0)))) n))
             :alloc-bytes (when (and a0 a1 (pos? n)) (/ (double (- (long (:alloc a1)) (long (:alloc a0)))) n))
             :gc (when (and a0 a1) (- (long (:gc a1)) (long (:gc a0))))
             :rss-kb (proc/rss-kb (:pid handle))))))

(defn- measure-beside
  "One run of `scenario` against the started servers `a` and `b` at once, as
  `measure` does one: a pair of its results."
  [a b scenario opts]
  (let [fa (future (measure a scenario opts))
        rb (measure b scenario opts)]
    [@fa rb]))

(def ^:private figures
  "The figures summarised per server: key in a run -> key in the summary."
  {:rps :rps
   :p50 [:latency_us :p50]
   :p99 [:latency_us :p99]
   :cpu-us :cpu-us
   :user-us :user-us
   :alloc-bytes :alloc-bytes})

(defn- figure
  "Figure `k` of `run`. A latency of 0 means wrk recorded none (it times a
  pipelined batch only now and then): not measured."
  [run k]
  (let [path (figures k)
        v (if (vector? path) (get-in run path) (get run path))]
    (if (and (vector? path) (= :latency_us (first path)) (some? v) (zero? (double v))) nil v)))

(defn summarise
  "Adds to each server of a scenario result the median and min–max of every
  figure, and of its ratio to the baseline's figure in the same round."
  [servers-results]
  (let [base (some #(when (= servers/baseline-id (:id %)) %) servers-results)]
    (mapv (fn [{:keys [runs] :as s}]
            (assoc s
                   :summary (into {} (for [k (keys figures)]
                                       [k (stats/spread (map #(figure % k) runs))]))
                   :ratio (when base
                            (into {} (for [k (keys figures)]
                                       [k (stats/spread (map (fn [r b] (stats/ratio (figure r k) (figure b k)))
                                                             runs (:runs base)))])))
                   :errors (reduce + (map :error-count runs))))
          servers-results)))

(defn- beside-round
  "`acc` (runs by server id) with this round's runs of each server in
  `handles` that has its :beside twin among them, measured at once with the
  twin: under [:beside id], each with the twin's run under :twin."
  [acc round runs handles scenario opts]
  (let [by-id (into {} (map (juxt (comp :id :server) identity)) handles)]
    (reduce
     (fn [acc h]
       (let [id (:id (:server h))
             twin (some-> (:beside (:server h)) by-id)]
         (if-not twin
           acc
           (let [[r t] (measure-beside h twin scenario opts)]
             (log (format "   round %d/%d %-26s %10s req/s beside %s at %s req/s: %s"
                          round runs id (fmt (:rps r) 0) (:id (:server twin)) (fmt (:rps t) 0)
                          (fmt (stats/ratio (:rps r) (:rps t)) 3)))
             (update acc [:beside id] (fnil conj []) (assoc r :twin t))))))
     acc handles)))

(defn run-scenario
  "Runs `scenario` on `server-defs` (the baseline among them): starts them
  all, loads each for `settle` seconds, makes `runs` rounds, stops them.
  Returns the scenario with its servers' runs and summaries."
  [scenario server-defs {:keys [runs settle wrk cpus log-dir extra-flags tls-files servers-named?] :as opts}]
  (let [only (:only scenario)
        defs (remove #(or (contains? (:skip scenario) (:id %))
                          ;; A server run on demand goes where SERVER or the scenario's :also sends it.
                          (and (:on-demand? %) (not servers-named?) (not (contains? (:also scenario) (:id %))))
                          ;; A server run on another commit's kernel (id@sha) goes where its own goes.
                          (and only (not (only (first (str/split (:id %) #"@"))))))
                     server-defs)
        handles (atom [])]
    (log (str "== " (:id scenario) ": " (:doc scenario)))
    (try
      (doseq [s defs]
        (let [h (servers/launch s (merge {:port (servers/free-port) :cpus (:server cpus) :log-dir log-dir
                                           :extra-flags extra-flags}
                                          (tls/launch-opts scenario tls-files)))]
          (swap! handles conj h)
          (let [ms (servers/await-ready h 120000)]
            (log (format "   started %-26s pid %d in %.0f ms%s" (:id s) (:pid h) ms
                         (if-let [t (servers/transport h)] (str ", transport " t) ""))))))
      ;; On one core a JVM is still compiling 20 s into its load (raw Vert.x's 1 MiB
      ;; download, 5 s windows: 3039 req/s from its 5th second, 3884 from its 30th):
      ;; without this, each server's first round measured how soon its JIT settled.
      (when (pos? (long settle))
        (doseq [h @handles]
          (load/run-load scenario h settle wrk)))
      (let [results (reduce
                     (fn [acc round]
                       (-> (reduce
                            (fn [acc h]
                              (let [r (measure h scenario opts)
                                    id (:id (:server h))]
                                (log (format "   round %d/%d %-26s %10s req/s  p99 %7s ms  %6s µs CPU/req (user %5s)  %8s B/req%s"
                                             round runs id (fmt (:rps r) 0)
                                             (fmt (some-> (get-in r [:latency_us :p99]) (/ 1000.0)) 2)
                                             (fmt (:cpu-us r) 2) (fmt (:user-us r) 2) (fmt (:alloc-bytes r) 0)
                                             (if (pos? (long (:error-count r))) (str "  errors " (:errors r)) "")))
                                (update acc id (fnil conj []) r)))
                            acc @handles)
                           (beside-round round runs @handles scenario opts)))
                     {} (range 1 (inc (long runs))))]
        (assoc (select-keys scenario [:id :label :doc :path :connections :depth :upload :streams :tool :ws-mode :tls :close?])
               :servers (summarise (for [h @handles
                                         :let [s (:server h)]]
                                     (cond-> {:id (:id s) :label (:label s) :transport (servers/transport h)
                                              :runs (results (:id s))}
                                       (results [:beside (:id s)])
                                       (assoc :beside (:beside s) :beside-runs (results [:beside (:id s)])))))))
      (finally
        (run! servers/stop @handles)))))

(defn run-all
  "Runs every scenario of `scenario-defs` on `server-defs`; returns their results."
  [scenario-defs server-defs opts]
  (mapv #(run-scenario % server-defs opts) scenario-defs))
