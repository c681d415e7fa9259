(ns onager.bench.chart
  "The PNG bar chart of a benchmark report, drawn with Java2D (headless): for
  every scenario, each server's req/s and server CPU per request as ratios to
  raw Vert.x, with the min–max spread as a whisker."
  (:require [clojure.java.io :as io]
            [clojure.string :as str])
  (:import [java.awt BasicStroke Color Font Graphics2D RenderingHints]
           [java.awt.image BufferedImage]
           [javax.imageio ImageIO]))

(set! *warn-on-reflection* true)

(def ^:private palette
  {"onager-virtual" (Color. 0x1f 0x77 0xb4)
   "onager-event-loop" (Color. 0x2c 0xa0 0x2c)
   "onager-worker" (Color. 0x94 0x67 0xbd)
   "onager-async" (Color. 0x17 0xbe 0xcf)
   "ring-jetty" (Color. 0xd6 0x27 0x28)})

(defn- color [id]
  (get palette id (Color. 0x7f 0x7f 0x7f)))

(def ^:private ^:dynamic *width*
  "The image's width: 1400 pixels, more when there are so many scenarios that
  their labels would overlap."
  1400)

(defn- width-for [scenario-count]
  (max 1400 (+ 90 (* 150 (long scenario-count)))))
(def ^:private panel-height 430)
(def ^:private left 70)
(def ^:private right 20)

(defn- text [^Graphics2D g ^String s x y & {:keys [size bold align] :or {size 13 align :left}}]
  (.setFont g (Font. Font/SANS_SERIF (if bold Font/BOLD Font/PLAIN) (int size)))
  (let [w (.stringWidth (.getFontMetrics g) s)
        x (case align :left x :center (- (double x) (/ w 2.0)) :right (- (double x) w))]
    (.drawString g s (float x) (float y))))

(defn- panel
  "Draws one panel at `top`: for each scenario a group of bars, one per
  server, of the figure `k` (:rps or :cpu-us) as a ratio, on an axis from 0
  to `cap`; taller bars are cut at the cap and labelled."
  [^Graphics2D g top title scenarios server-ids k cap]
  (let [plot-top (+ top 40)
        plot-h (- panel-height 100)
        plot-bottom (+ plot-top plot-h)
        plot-w (- *width* left right)
        y-of (fn [v] (- plot-bottom (* plot-h (/ (min (double v) cap) cap))))
        group-w (/ plot-w (double (count scenarios)))
        bar-w (min 34.0 (/ (* 0.8 group-w) (max 1 (count server-ids))))]
    (.setColor g Color/BLACK)
    (text g title left (+ top 22) :size 16 :bold true)
    ;; grid and axis
    (doseq [step (range 0 (+ cap 1e-9) (if (> cap 2) 0.5 0.25))]
      (let [y (y-of step)]
        (.setColor g (Color. 225 225 225))
        (.drawLine g left (int y) (- *width* right) (int y))
        (.setColor g Color/DARK_GRAY)
        (text g (format "%.2f×" (double step)) (- left 6) (+ y 4) :size 11 :align :right)))
    (.setColor g Color/BLACK)
    (.setStroke g (BasicStroke. 2.0 BasicStroke/CAP_BUTT BasicStroke/JOIN_MITER 1.0 (float-array [6 4]) 0))
    (.drawLine g left (int (y-of 1.0)) (- *width* right) (int (y-of 1.0)))
    (.setStroke g (BasicStroke. 1.0))
    (doseq [[i sc] (map-indexed vector scenarios)]
      (let [gx (+ left (* i group-w))
            by-id (into {} (map (juxt :id identity)) (:servers sc))
            present (filter by-id server-ids)
            x0 (+ gx (/ (- group-w (* bar-w (count present))) 2.0))]
        (.setColor g Color/BLACK)
        (text g (:label sc) (+ gx (/ group-w 2)) (+ plot-bottom 18) :size 12 :align :center)
        (doseq [[j id] (map-indexed vector present)]
          (let [{:keys [median min max]} (get-in (by-id id) [:ratio k])
                x (+ x0 (* j bar-w))]
            (when median
              (let [y (y-of median)]
                (.setColor g (color id))
                (.fillRect g (int (+ x 2)) (int y) (int (- bar-w 4)) (int (- plot-bottom y)))
                (.setColor g Color/BLACK)
                (when (and min max (< min max))
                  (let [xm (int (+ x (/ bar-w 2)))]
                    (.drawLine g xm (int (y-of min)) xm (int (y-of max)))
                    (.drawLine g (- xm 4) (int (y-of min)) (+ xm 4) (int (y-of min)))
                    (.drawLine g (- xm 4) (int (y-of max)) (+ xm 4) (int (y-of max)))))
                (text g (format "%.2f" (double median)) (+ x (/ bar-w 2)) (- (if (> median cap) (y-of cap) y) 4)
                      :size 10 :align :center)))))))
    ;; Last, on a white box, so that no bar hides it.
    (let [label "raw Vert.x = 1"
          _ (.setFont g (Font. Font/SANS_SERIF Font/PLAIN 11))
          w (.stringWidth (.getFontMetrics g) label)
          x (- *width* right w 8)
          y (- (y-of 1.0) 5)]
      (.setColor g Color/WHITE)
      (.fillRect g (int (- x 3)) (int (- y 11)) (int (+ w 6)) 14)
      (.setColor g Color/BLACK)
      (text g label x y :size 11))))

(defn write-png
  "Draws the chart of the benchmark `data` (as `onager.bench.run` returns it,
  with :stamp) to `file`."
  [data file]
  (binding [*width* (width-for (count (:scenarios data)))]
    (let [scenarios (:scenarios data)
          server-ids (->> scenarios (mapcat :servers) (map :id) distinct (remove #{"vertx"}) vec)
          labels (into {} (for [sc scenarios s (:servers sc)] [(:id s) (:label s)]))
          height (+ 90 (* 2 panel-height) 40)
          img (BufferedImage. *width* height BufferedImage/TYPE_INT_RGB)
          g (.createGraphics img)]
      (.setRenderingHint g RenderingHints/KEY_ANTIALIASING RenderingHints/VALUE_ANTIALIAS_ON)
      (.setRenderingHint g RenderingHints/KEY_TEXT_ANTIALIASING RenderingHints/VALUE_TEXT_ANTIALIAS_ON)
      (.setColor g Color/WHITE)
      (.fillRect g 0 0 *width* height)
      (.setColor g Color/BLACK)
      (let [{:keys [commit jdk cpu cpus date]} (:stamp data)
            {:keys [quick runs warmup duration]} (:settings data)]
        (text g "Onager vs raw Vert.x: medians of alternating runs, whiskers min–max" left 28 :size 18 :bold true)
        (text g (str (if quick "QUICK run" "full run") " · " runs " measured run(s) of " duration " s after "
                     warmup " s warm-up · commit " commit " · " jdk " · " cpu " (" cpus " CPUs) · " date)
              left 50 :size 12))
      ;; legend
      (loop [[id & more] server-ids x left]
        (when id
          (let [label (labels id)]
            (.setColor g (color id))
            (.fillRect g (int x) 62 14 14)
            (.setColor g Color/BLACK)
            (text g label (+ x 20) 74 :size 12)
            (recur more (+ x 40 (.stringWidth (.getFontMetrics g) label))))))
      (panel g 85 "Requests per second, ratio to raw Vert.x (higher is better)" scenarios server-ids :rps 1.25)
      (panel g (+ 85 panel-height) "Server CPU time per request, ratio to raw Vert.x (lower is better)"
             scenarios server-ids :cpu-us 3.0)
      (.setColor g Color/DARK_GRAY)
      (text g "Bars taller than the axis are cut at its top; their label gives the value."
            left (- height 14) :size 11)
      (.dispose g)
      (io/make-parents file)
      (ImageIO/write img "png" (io/file file))
      file)))
