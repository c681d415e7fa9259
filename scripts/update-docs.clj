;; Regenerates the parts of README.md that come from code: the options tables,
;; each between its markers (see scripts/readme-tables.clj). Run by `make docs`;
;; a test fails when they drift.
(require '[clojure.string :as str]
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
    (spit "README.md" updated)))
