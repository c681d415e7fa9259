;; Run by scripts/deps-classpath in a JVM of tools.deps' own:
;;   classpath.clj OUT-FILE PROJECT-DIR [ALIASES]
;; resolves the deps.edn project in PROJECT-DIR with tools.deps as a library, as the
;; Clojure CLI does, and writes its class path, every entry absolute, to OUT-FILE.
;; ALIASES is a string like ":dev:test". Libs that need preparing (:deps/prep-lib,
;; e.g. a :local/root or git dependency on a Java kernel) are prepared first, as
;; `clojure -X:deps prep` does: tools.deps runs the lib's prep function with `java`
;; from the PATH in the lib's directory.
;;
;; Unlike the CLI, the user's ~/.clojure/deps.edn is not read, and Clojars is left
;; out of the repositories: everything here comes from Maven Central.
(require '[clojure.java.io :as io]
         '[clojure.string :as str]
         '[clojure.tools.deps :as deps])

(set! *warn-on-reflection* true)

(let [[out-file project-dir aliases] *command-line-args*
      dir (.getCanonicalFile (io/file project-dir))
      aliases (->> (str/split (or aliases "") #":") (remove str/blank?) (mapv keyword))
      basis (deps/create-basis {:dir (str dir)
                                :user nil
                                :extra {:mvn/repos {"clojars" nil}}
                                :aliases aliases})]
  ;; prep-libs! reports on stdout; the caller keeps its stdout for the class path.
  (binding [*out* *err*]
    (deps/prep-libs! (:libs basis) {:action :prep :log :info} basis))
  (spit out-file (->> (:classpath-roots basis)
                      (map #(str (.getCanonicalFile (let [f (io/file %)] (if (.isAbsolute f) f (io/file dir %))))))
                      (str/join java.io.File/pathSeparator))))
(shutdown-agents)
