;; Compiles every namespace of the Clojure API (src/main/clojure) to classes in the
;; directory named by the clojure.compile.path property. Run by Maven after javac:
;; loading classes instead of compiling source at start-up is faster, and the
;; sources still ship beside them, so a newer source file wins in a REPL.
;; The helper is found beside this script: a bench build runs it from another directory.
(let [clojure-sources (load-file (str (.getParentFile (.getAbsoluteFile (java.io.File. ^String *file*)))
                                      "/clojure-sources.clj"))]
  (binding [*compile-path* (System/getProperty "clojure.compile.path")]
    (doseq [{:keys [ns]} (clojure-sources "src/main/clojure")]
      (compile ns))))
