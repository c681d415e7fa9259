(ns onager.micro.harness
  "A warm, repeated measuring harness. Every candidate of the comparisons it is
  given runs in this JVM (onager.micro.fork gives each JVM one comparison): all
  are warmed up first (so that the JIT has settled for all of them before any
  is measured), then rounds go over every comparison, one
  timed batch per candidate per round, the candidates' order rotating, so that
  the machine's drift hits all of them alike. A candidate's figure is the median
  of its rounds' ns/op; a ratio is the median of the rounds' ratios, each taken
  between batches that ran moments apart. Each candidate runs in a loop of its
  own (see batch-loop), and its bytes allocated per call are counted too."
  (:import [java.lang.management ManagementFactory]))

(set! *warn-on-reflection* true)

;; Results land here so that the JIT cannot drop the work as dead.
(def ^:private sink (object-array 16))

(def ^:private batch-form
  '(fn [^clojure.lang.IFn f ^objects sink]
     (fn batch ^long [^long n]
       (let [start (System/nanoTime)]
         (loop [i 0]
           (when (< i n)
             (aset sink (bit-and i 15) (.invoke f))
             (recur (unchecked-inc i))))
         (unchecked-subtract (System/nanoTime) start)))))

(defn- batch-loop
  "A loop that calls `f` n times and returns the elapsed nanoseconds, compiled
  anew for each candidate, as JMH generates a loop per benchmark: its call of
  `f` then sees that candidate only, and the JIT compiles the two together. A
  loop shared by every candidate makes how well each is compiled depend on the
  others that ran through the same call: so measured, ring-core's wrap-params
  took a third longer than in a loop of its own, and onager's no longer."
  ^clojure.lang.IFn$LL [f]
  ((eval batch-form) f sink))

(defn- run-batch
  "Runs the loop `batch` for `n` calls; the elapsed nanoseconds."
  ^long [^clojure.lang.IFn$LL batch ^long n]
  (.invokePrim batch n))

(defn- batch-size
  "How many calls of the loop `batch` take about `target-ns`."
  ^long [batch ^long target-ns]
  (loop [n 1]
    (let [t (run-batch batch n)]
      (if (or (>= t (quot target-ns 4)) (> n (bit-shift-left 1 40)))
        (max 1 (long (* n (/ (double target-ns) (max 1 t)))))
        (recur (* 2 n))))))

(defn- warm-up [batch ^long ms]
  (let [until (+ (System/nanoTime) (* ms 1000000))]
    (while (< (System/nanoTime) until)
      (run-batch batch 1000))))

(defn- bytes-per-call
  "The bytes this thread allocates per call over `n` calls of the loop `batch`."
  [batch ^long n]
  (let [mx ^com.sun.management.ThreadMXBean (ManagementFactory/getThreadMXBean)
        before (.getCurrentThreadAllocatedBytes mx)]
    (run-batch batch n)
    (/ (double (- (.getCurrentThreadAllocatedBytes mx) before)) n)))

(defn median
  "The median of the numbers `xs`."
  [xs]
  (let [v (vec (sort xs))
        n (count v)]
    (if (odd? n) (v (quot n 2)) (/ (+ (v (dec (quot n 2))) (v (quot n 2))) 2.0))))

(defn- summary
  "Per candidate of one comparison: its samples (ns/op by round), median, min,
  max, bytes allocated per call, and for all but the first (ours) the ratios to
  ours."
  [candidates per-round allocated]
  (let [samples (fn [i] (mapv #(% i) per-round))
        ours (median (samples 0))]
    (vec (for [i (range (count candidates))
               :let [s (samples i)
                     m (median s)]]
           (cond-> {:name (:name (candidates i)) :median-ns m :min-ns (apply min s) :max-ns (apply max s) :samples s
                    :bytes-per-op (allocated i)}
             (pos? i) (assoc :ratio (median (map (fn [row] (/ (row i) (row 0))) per-round))
                             :ratio-of-medians (/ m ours)))))))

(defn measure
  "Measures `comparisons`, each a vector of candidates {:name string :f
  no-arg-fn}, the first being ours. `settings`: :warm-ms per candidate,
  :rounds, :sample-ms per batch; `progress` is called with a message now and
  then. Returns, per comparison, each candidate's :samples (ns/op per round),
  :median-ns, :min-ns, :max-ns, :bytes-per-op, and for the others :ratio (the
  median over rounds of its ns/op over ours) and :ratio-of-medians."
  [comparisons {:keys [warm-ms rounds sample-ms]} progress]
  (progress "warming up")
  (let [loops (mapv (fn [candidates] (mapv #(batch-loop (:f %)) candidates)) comparisons)
        _ (doseq [batches loops batch batches] (warm-up batch warm-ms))
        sizes (mapv (fn [batches] (mapv #(batch-size % (* (long sample-ms) 1000000)) batches)) loops)
        rows (vec (for [r (range rounds)]
                    (do (progress (str "round " (inc r) " of " rounds))
                        (vec (for [c (range (count comparisons))
                                   :let [candidates (comparisons c)
                                         n (count candidates)
                                         timed (into {} (for [i (map #(mod (+ r %) n) (range n))
                                                              :let [size (long ((sizes c) i))]]
                                                          [i (/ (double (run-batch ((loops c) i) size)) size)]))]]
                               (mapv timed (range n)))))))]
    (vec (for [c (range (count comparisons))]
           (summary (comparisons c) (mapv #(% c) rows) (mapv #(bytes-per-call % 10000) (loops c)))))))
