;; Compiles every namespace of the Clojure API (src/main/clojure) to classes in the
;; directory named by the clojure.compile.path property. Run by Maven after javac:
;; loading classes instead of compiling source at start-up is faster, and the
;; sources still ship beside them, so a newer source file wins in a REPL.
;; The helper is found beside this script: a bench build runs it from another directory.
;;
;; The classes of an earlier build are deleted first: `compile` skips a namespace whose
;; classes are newer than its source, and would keep what a macro of another namespace
;; expanded to before that namespace changed (a docstring built from an options table).
(let [clojure-sources (load-file (str (.getParentFile (.getAbsoluteFile (java.io.File. ^String *file*)))
                                      "/clojure-sources.clj"))
      compile-path (System/getProperty "clojure.compile.path")
      namespaces (map :ns (clojure-sources "src/main/clojure"))]
  (doseq [ns-sym namespaces
          :let [path (.replace (munge (str ns-sym)) \. \/)
                dir (.getParentFile (java.io.File. ^String compile-path ^String path))
                stem (.getName (java.io.File. ^String path))]
          ^java.io.File f (or (.listFiles dir) [])
          :let [n (.getName f)]
          :when (or (= n (str stem "__init.class"))
                    (and (.startsWith n (str stem "$")) (.endsWith n ".class")))]
    (.delete f))
  (binding [*compile-path* compile-path]
    (doseq [ns-sym namespaces]
      (compile ns-sym))))
