(ns onager.bench.stats
  "Medians and spreads of the measured runs.")

(set! *warn-on-reflection* true)

(defn median
  "The median of the numbers `xs` (the mean of the middle two for an even
  count); nil when there are none."
  [xs]
  (let [v (vec (sort (remove nil? xs)))
        n (count v)]
    (cond
      (zero? n) nil
      (odd? n) (double (v (quot n 2)))
      :else (/ (+ (double (v (dec (quot n 2)))) (double (v (quot n 2)))) 2.0))))

(defn spread
  "{:median :min :max :n} of the numbers `xs`, nil values left out; nil when
  there are none."
  [xs]
  (let [v (remove nil? xs)]
    (when (seq v)
      {:median (median v)
       :min (double (apply min v))
       :max (double (apply max v))
       :n (count v)})))

(defn ratio
  "a / b as a double, or nil when either is missing or b is zero."
  [a b]
  (when (and a b (not (zero? (double b))))
    (/ (double a) (double b))))
