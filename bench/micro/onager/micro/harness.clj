(ns onager.micro.harness
  "A warm, repeated measuring harness. Every candidate of a comparison runs in
  this one JVM: each is warmed up, then rounds alternate between them (the order
  rotating each round), one timed batch per candidate per round, so that the
  machine's drift hits all of them alike. A candidate's figure is the median of
  its rounds' ns/op; a ratio is the median of the rounds' ratios, each taken
  between batches that ran seconds apart at most.")

(set! *warn-on-reflection* true)

;; Results land here so that the JIT cannot drop the work as dead.
(def ^:private sink (object-array 16))

(defn- run-batch
  "Calls `f` `n` times; the elapsed nanoseconds."
  ^long [^clojure.lang.IFn f ^long n]
  (let [^objects sink sink
        start (System/nanoTime)]
    (loop [i 0]
      (when (< i n)
        (aset sink (bit-and i 15) (.invoke f))
        (recur (unchecked-inc i))))
    (- (System/nanoTime) start)))

(defn- batch-size
  "How many calls of `f` take about `target-ns`."
  ^long [f ^long target-ns]
  (loop [n 1]
    (let [t (run-batch f n)]
      (if (or (>= t (quot target-ns 4)) (> n (bit-shift-left 1 40)))
        (max 1 (long (* n (/ (double target-ns) (max 1 t)))))
        (recur (* 2 n))))))

(defn- warm-up [f ^long ms]
  (let [until (+ (System/nanoTime) (* ms 1000000))]
    (while (< (System/nanoTime) until)
      (run-batch f 1000))))

(defn median [xs]
  (let [v (vec (sort xs))
        n (count v)]
    (if (odd? n) (v (quot n 2)) (/ (+ (v (dec (quot n 2))) (v (quot n 2))) 2.0))))

(defn compare-candidates
  "Measures `candidates`, a vector of {:name string :f no-arg-fn}, the first
  being ours. `settings`: :warm-ms per candidate, :rounds, :sample-ms per
  batch. Returns each candidate's :samples (ns/op per round) and :median, and
  for each other candidate :ratio (the median over rounds of its ns/op over
  ours) and :ratio-of-medians."
  [candidates {:keys [warm-ms rounds sample-ms]}]
  (doseq [{:keys [f]} candidates] (warm-up f warm-ms))
  (let [sizes (mapv (fn [{:keys [f]}] (batch-size f (* (long sample-ms) 1000000))) candidates)
        n (count candidates)
        per-round (vec (for [r (range rounds)]
                         (let [order (map #(mod (+ r %) n) (range n))
                               timed (into {} (for [i order]
                                                (let [{:keys [f]} (candidates i)
                                                      size (long (sizes i))]
                                                  [i (/ (double (run-batch f size)) size)])))]
                           (mapv timed (range n)))))
        samples (fn [i] (mapv #(% i) per-round))
        ours (median (samples 0))]
    (vec (for [i (range n)
               :let [{:keys [name]} (candidates i)
                     s (samples i)
                     m (median s)]]
           (cond-> {:name name :median-ns m :min-ns (apply min s) :max-ns (apply max s) :samples s}
             (pos? i) (assoc :ratio (median (map (fn [row] (/ (row i) (row 0))) per-round))
                             :ratio-of-medians (/ m ours)))))))
