;; Regenerates the docs that come from code: README.md's options tables, each
;; between its markers (see scripts/readme-tables.clj), and the API reference in
;; doc/api/ from the docstrings (see scripts/api-docs.clj). Run by `make docs`;
;; a test fails when either drifts.
(require '[clojure.java.io :as io]
         '[clojure.string :as str]
         '[onager.options :as options])

(let [readme (slurp "README.md")
      updated (reduce (fn [text [marker table]]
                        (let [start (str "<!-- " marker ":start -->")
                              end (str "<!-- " marker ":end -->")]
                          (when-not (and (str/includes? text start) (str/includes? text end))
                            (throw (ex-info (str "README.md has no " start " ... " end " markers") {:marker marker})))
                          (str/replace text
                                       (re-pattern (str "(?s)" (java.util.regex.Pattern/quote start) ".*?"
                                                        (java.util.regex.Pattern/quote end)))
                                       (str/re-quote-replacement (str start "\n" (options/markdown table) "\n" end)))))
                      readme
                      (load-file "scripts/readme-tables.clj"))]
  (if (= readme updated)
    (println "README.md options tables already up to date")
    (do (spit "README.md" updated)
        (println "README.md options tables updated"))))

(let [pages ((load-file "scripts/api-docs.clj") "src/main/clojure")
      dir (io/file "doc/api")
      stale (remove #(contains? pages (.getName ^java.io.File %))
                    (filter #(str/ends-with? (.getName ^java.io.File %) ".md") (.listFiles dir)))
      changed (remove (fn [[name text]] (let [f (io/file dir name)] (and (.exists f) (= text (slurp f))))) pages)]
  (.mkdirs dir)
  (run! io/delete-file stale)
  (doseq [[name text] changed] (spit (io/file dir name) text))
  (println (str "doc/api: " (count changed) " page(s) written, " (count stale) " removed")))
