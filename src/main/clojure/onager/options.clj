(ns onager.options
  "Options tables: a vector of option specs that is the one source of an API's
  validation, defaults and documentation, so that the three cannot drift apart.

  A spec is a map:
    :key          the option's keyword
    :default      the value when the option is absent (may be computed at load);
                  a spec without one adds nothing when its key is absent
    :default-doc  how the README and docstrings show the default, when the value
                  itself would not say it well (e.g. \"number of CPUs\")
    :valid?       predicate on a given value
    :allowed      what :valid? accepts, in words, for error messages and docs
    :explain      optional: a function of a value :valid? refuses that says what
                  in it is wrong (say, which entry of a collection), for the message
    :doc          what the option does"
  (:require [clojure.string :as str]))

(set! *warn-on-reflection* true)

(defn int-in
  "A :valid? predicate: true for an integer from `lo` to `hi`, both included."
  [lo hi]
  (fn [v] (and (int? v) (<= lo v hi))))

(defn- by-key [table]
  (into {} (map (juxt :key identity)) table))

(defn- edit-distance
  "Levenshtein distance, to suggest the option a misspelt key meant."
  [^String a ^String b]
  (let [n (count b)]
    (loop [i 0 prev (vec (range (inc n)))]
      (if (= i (count a))
        (peek prev)
        (recur (inc i)
               (reduce (fn [row j]
                         (conj row (min (inc (peek row))
                                        (inc (nth prev (inc j)))
                                        (+ (nth prev j) (if (= (.charAt a i) (.charAt b j)) 0 1)))))
                       [(inc i)]
                       (range n)))))))

(defn closest
  "The keyword among `candidates` nearest to `k` by spelling (at most two edits
  away), to suggest what a misspelt key meant; nil when none is that near."
  [k candidates]
  (when (keyword? k)
    (let [[best d] (->> candidates
                        (map (fn [c] [c (edit-distance (name k) (name c))]))
                        (sort-by second)
                        first)]
      (when (and best (<= d 2)) best))))

(defn- suggestion [k table]
  (closest k (map :key table)))

(defn- hint
  "What the unknown key `k` gets after its name: the hint `foreign` has for it
  (a key from another library's options), else the key of `table` it may be a
  misspelling of."
  [k table foreign]
  (if-let [h (get foreign k)]
    (str " " h)
    (when-let [near (suggestion k table)] (str " Did you mean " near "?"))))

(defn refusal
  "Why `table` refuses the map `m`, or nil when it takes every entry: the first
  entry whose key it does not know or whose value it does not take, as {:message
  m :data d}. The message names the key, the value and what is allowed, calling
  the key a `noun` (\"option\") and starting in lower case; the data has
  :onager/error (:unknown-option or :invalid-option), :key, :value and :allowed.
  `foreign` maps keys that other libraries take, and this one does not, to a
  sentence saying what to do instead, which the message of such a key gives."
  [table m foreign noun]
  (let [specs (by-key table)]
    (some (fn [[k v]]
            (if-let [{:keys [valid? allowed explain]} (specs k)]
              (when-not (valid? v)
                {:message (str "invalid " noun " " k " " (pr-str v) ": "
                               (when-let [why (and explain (explain v))] (str why "; "))
                               "expected " allowed ".")
                 :data {:onager/error :invalid-option :key k :value v :allowed allowed}})
              (let [known (mapv :key table)]
                {:message (str "unknown " noun " " (pr-str k) " (value " (pr-str v) ")."
                               (hint k table foreign)
                               " Known " noun "s: " (str/join ", " known) ".")
                 :data {:onager/error :unknown-option :key k :value v :allowed known}})))
          m)))

(defn- fail [message data]
  (throw (ex-info message data)))

(defn validate
  "Checks `opts` against `table` and returns them with every default filled in.
  Throws an ex-info whose message names the key, the value and what is allowed,
  and whose data has :onager/error (:invalid-options, :unknown-option or
  :invalid-option), :key, :value and :allowed (see `refusal`, which takes
  `foreign`)."
  ([table opts] (validate table opts {}))
  ([table opts foreign]
   (when-not (or (nil? opts) (map? opts))
     (fail (str "Options must be a map, not " (pr-str opts))
           {:onager/error :invalid-options :value opts :allowed "a map"}))
   (when-let [{:keys [^String message data]} (refusal table opts foreign "option")]
     (fail (str (str/upper-case (subs message 0 1)) (subs message 1)) data))
   (merge (into {} (comp (filter #(contains? % :default)) (map (juxt :key :default))) table) opts)))

(defn- shown-default
  "How the docs show the default of `spec`; nil when it has none, as a route's
  method handlers have not."
  [{:keys [default default-doc] :as spec}]
  (or default-doc (when (contains? spec :default) (pr-str default))))

(defn markdown
  "The table as Markdown: option, default, allowed values, meaning."
  [table]
  (str/join "\n"
            (concat ["| option | default | allowed | meaning |"
                     "|---|---|---|---|"]
                    (for [{:keys [key allowed doc] :as spec} table]
                      (str "| `" key "` | " (str/replace (or (shown-default spec) "none") "|" "\\|") " | "
                           (str/replace allowed "|" "\\|") " | " (str/replace doc "|" "\\|") " |")))))

(defn docstring
  "The table as text for a docstring: one paragraph per option."
  [table]
  (str/join "\n\n"
            (for [{:keys [key allowed doc] :as spec} table]
              (str "  " key (when-let [d (shown-default spec)] (str " (default " d ")")) "\n"
                   "    " doc "\n"
                   "    Allowed: " allowed "."))))

(defmacro docstring-of
  "`(docstring table)` for the var `table` names, worked out when the calling
  code is compiled: an AOT-compiled namespace then carries its docstrings as
  constants instead of printing every default while it loads, which start-up
  would pay for. A fully qualified `table` whose namespace the caller does
  not require is loaded here, for the compiler only: an AOT-compiled caller
  then loads it when it first validates options, not at start-up."
  [table]
  (when-not (resolve table) (require (symbol (namespace table))))
  (docstring @(resolve table)))
