;; The .clj files under a directory, sorted, each with the namespace its path
;; names: read by scripts/compile-api.clj (the build compiles the API's) and by
;; the test that checks every namespace (code_quality_test).
(require '[clojure.java.io :as io]
         '[clojure.string :as str])

(fn clojure-sources [dir]
  (let [root (.toPath (io/file dir))]
    (->> (file-seq (io/file dir))
         (filter #(str/ends-with? (.getName ^java.io.File %) ".clj"))
         (map (fn [^java.io.File f]
                {:file (str f)
                 :ns (-> (str (.relativize root (.toPath f)))
                         (str/replace #"\.clj$" "")
                         (str/replace "/" ".")
                         (str/replace "_" "-")
                         symbol)}))
         (sort-by :file))))
