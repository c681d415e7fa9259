;; Compiles every namespace of the Clojure API (src/main/clojure) to classes in the
;; directory named by the clojure.compile.path property. Run by Maven after javac:
;; loading classes instead of compiling source at start-up saves most of a second,
;; and the sources still ship beside them, so a newer source file wins in a REPL.
(require '[clojure.java.io :as io]
         '[clojure.string :as str])

(let [root (.toPath (io/file "src/main/clojure"))]
  (doseq [ns-sym (->> (file-seq (io/file "src/main/clojure"))
                      (filter #(str/ends-with? (.getName ^java.io.File %) ".clj"))
                      (map #(-> (str (.relativize root (.toPath ^java.io.File %)))
                                (str/replace #"\.clj$" "")
                                (str/replace "/" ".")
                                (str/replace "_" "-")
                                symbol))
                      sort)]
    (binding [*compile-path* (System/getProperty "clojure.compile.path")]
      (compile ns-sym))))
