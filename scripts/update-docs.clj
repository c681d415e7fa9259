;; Regenerates the parts of README.md that come from code: the options table,
;; between its markers. Run by `make docs`; a test fails when they drift.
(require '[onager.options :as options]
         '[onager.server.options :as server-options])

(let [readme (slurp "README.md")
      table (options/markdown server-options/table)
      updated (clojure.string/replace
               readme
               #"(?s)(<!-- options:start -->\n).*?(\n<!-- options:end -->)"
               (fn [[_ start end]] (str start table end)))]
  (when (= readme updated)
    (println "README.md options table already up to date"))
  (spit "README.md" updated))
