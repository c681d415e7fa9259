(ns onager.json.options
  "The options of `onager.json/read` and of `write` and its siblings: validation,
  defaults and documentation all come from `read-table` and `write-table`.")

(set! *warn-on-reflection* true)

(defn- fn-or-nil? [f]
  (or (nil? f) (and (ifn? f) (not (coll? f)))))

(def key-fn-spec
  "The spec of a :key-fn option, which the middleware tables share."
  {:key :key-fn
   :default nil
   :valid? fn-or-nil?
   :allowed "a function, or nil"})

(def read-table
  "Options of `onager.json/read`, in the order the docs show them. See `onager.options`."
  [{:key :keywords?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: object keys become keywords (`(keyword k)`, so \"a/b\" becomes :a/b), through a cache "
              "that makes this faster than :key-fn keyword; false: strings.")}
   (assoc key-fn-spec
          :doc "A function of each object key (a string) that returns the key to use; wins over :keywords?.")
   {:key :bigdecimals?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc "True: numbers with a fraction or exponent become BigDecimals, exactly as written; false: doubles."}])

(def write-table
  "Options of `onager.json/write`, `write-bytes` and `write-to`. See `onager.options`."
  [{:key :pretty?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc "True: indent by two spaces, one value per line, as JSON.stringify(x, null, 2)."}
   (assoc key-fn-spec
          :doc (str "A function of each map key that returns the name to write (a string, or a keyword, "
                    "symbol or number, written as such keys are); nil writes keys as they are."))
   {:key :escape-non-ascii?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc "True: write every character beyond ASCII as a \\uXXXX escape."}])
