(ns onager.router.property-test
  "Property tests of the router's matching: for random route tables and paths,
  the kernel trie picks the route a plain reference matcher picks (the most
  specific match, segment by segment from the left), with the same decoded
  parameters."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is]]
            [clojure.test.check :as tc]
            [clojure.test.check.generators :as gen]
            [clojure.test.check.properties :as prop]
            [onager.router :as router])
  (:import [java.nio.charset StandardCharsets]))

(set! *warn-on-reflection* true)

;; ---- the reference: a linear scan, written from the rules ----

(defn- segments [^String path]
  (vec (.split (subs path 1) "/" -1)))

(defn- kind ^long [seg]
  (cond (str/starts-with? seg ":") 1
        (str/starts-with? seg "*") 2
        :else 0))

(defn- percent-decode
  "What the router promises: each run of %XY escapes decoded as UTF-8 bytes,
  anything else (+, a stray %) kept as it is."
  [s]
  (str/replace s #"(?:%[0-9A-Fa-f]{2})+"
               (fn [run]
                 (str/re-quote-replacement
                  (String. (byte-array (map #(unchecked-byte (Integer/parseInt (subs % 1) 16)) (re-seq #"%.." run)))
                           StandardCharsets/UTF_8)))))

(defn- reference-params
  "The parameters `template` takes from `path`, or nil when it does not match."
  [template path]
  (let [t (segments template)
        p (segments path)]
    (loop [i 0 params {}]
      (cond
        (= i (count t)) (when (= i (count p)) params)
        (= 2 (kind (t i))) (when (< i (count p))
                             (assoc params (keyword (subs (t i) 1)) (percent-decode (str/join "/" (subvec p i)))))
        (>= i (count p)) nil
        (= 1 (kind (t i))) (when (seq (p i))
                             (recur (inc i) (assoc params (keyword (subs (t i) 1)) (percent-decode (p i)))))
        (= (t i) (p i)) (recur (inc i) params)
        :else nil))))

(defn- lexicographic [a b]
  (or (first (remove zero? (map compare a b))) (compare (count a) (count b))))

(defn- reference-match
  "The most specific template of `templates` that matches `path`, and its parameters."
  [templates path]
  (->> templates
       (keep (fn [t] (when-let [params (reference-params t path)] [t params])))
       (sort-by (fn [[t]] (mapv kind (segments t))) lexicographic)
       first))

;; ---- generators ----

(def ^:private gen-static (gen/elements ["a" "b" "c" "users" "" "x-y" "é"]))

(def ^:private gen-template-segments
  "Segments of a template: statics and :params, maybe a final *catch-all."
  (gen/let [n (gen/choose 1 4)
            segs (gen/vector (gen/frequency [[3 gen-static] [2 (gen/return :param)]]) n)
            catch-all? (gen/frequency [[4 (gen/return false)] [1 (gen/return true)]])]
    (let [named (map-indexed (fn [i s] (if (= s :param) (str ":p" i) s)) segs)]
      (str "/" (str/join "/" (cond-> (vec named) catch-all? (conj (str "*rest"))))))))

(defn- shape [template]
  (str/join "/" (map (fn [s] (case (kind s) 1 ":" 2 "*" s)) (segments template))))

(def ^:private gen-table
  "Templates of distinct shapes."
  (gen/fmap (fn [ts] (vals (into {} (map (juxt shape identity)) ts)))
            (gen/not-empty (gen/vector gen-template-segments 1 12))))

(def ^:private gen-value
  "A path segment value, sometimes percent-encoded."
  (gen/elements ["a" "b" "c" "users" "" "42" "x%20y" "%C3%A9" "%2F" "a+b" "50%" "%zz" "é"]))

(defn- gen-path
  "A path: one of the templates with its parameters filled in, or random segments."
  [templates]
  (gen/one-of
   [(gen/let [t (gen/elements templates)
              values (gen/vector gen-value 4)
              rest-segs (gen/vector gen-value 0 3)]
      (str "/" (str/join "/" (map-indexed (fn [i s]
                                            (case (kind s)
                                              0 s
                                              1 (nth values (mod i 4))
                                              2 (str/join "/" rest-segs)))
                                          (segments t)))))
    (gen/fmap #(str "/" (str/join "/" %)) (gen/vector gen-value 0 5))]))

(deftest trie-matches-as-the-reference-does
  (let [result (tc/quick-check
                300
                (prop/for-all [[templates paths] (gen/let [ts gen-table
                                                           ps (gen/vector (gen-path ts) 1 8)]
                                                   [ts ps])]
                  (let [r (router/router (mapv (fn [t] [t {:get (fn [_] {:status 200})}]) templates))]
                    (every? (fn [path]
                              (let [[t params] (reference-match templates path)
                                    found (router/match r :get path)]
                                (if t
                                  (= {:path t :method "GET" :path-params params} found)
                                  (nil? found))))
                            paths))))]
    (is (:pass? result) (pr-str (:shrunk result)))))

(deftest every-route-without-catch-all-is-reachable
  ;; A catch-all can be shadowed by more specific routes; static and :param routes never are.
  (let [result (tc/quick-check
                200
                (prop/for-all [templates (gen/fmap #(remove (fn [t] (str/includes? t "*")) %) gen-table)]
                  (let [r (router/router (mapv (fn [t] [t {:get (fn [_] {:status 200 :body t})}]) templates))]
                    ;; Each template, filled with a value no static segment has, reaches itself.
                    (every? (fn [t]
                              (let [path (str "/" (str/join "/" (map (fn [s] (if (= 1 (kind s)) "v0" s)) (segments t))))]
                                (= t (:body (r {:request-method :get :uri path})))))
                            templates))))]
    (is (:pass? result) (pr-str (:shrunk result)))))
