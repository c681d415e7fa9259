(ns onager.example-suite
  "Runs an example app's checks and clojure.test suite in the app's own JVM, on
  the class path its deps.edn makes, for the JUnit bridge
  (src/test/java/onager/it/ExampleAppIT.java):

    clojure.main -m onager.example-suite APP-DIR RESULTS-FILE

  The app's sources get the house rules code_quality_test applies to the API
  (no reflection, a docstring on every public var); then every *_test.clj
  under APP-DIR/test runs through onager.test-runner. RESULTS-FILE receives, as
  EDN, a vector of {:name \"ns/test\" :failure text-or-nil :skipped why-or-nil}."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.test-runner :as runner]))

(set! *warn-on-reflection* true)

(defn- namespaces
  "The namespaces of the .clj files under `dir` whose names pass `keep?`, sorted."
  [dir keep?]
  (let [root (.toPath (io/file dir))]
    (->> (file-seq (io/file dir))
         (filter #(and (str/ends-with? (.getName ^java.io.File %) ".clj") (keep? (.getName ^java.io.File %))))
         (map #(-> (str (.relativize root (.toPath ^java.io.File %)))
                   (str/replace #"\.clj$" "")
                   (str/replace java.io.File/separator ".")
                   (str/replace "_" "-")
                   symbol))
         sort)))

(defn- result [name failures]
  {:name name :failure (when (seq failures) (str/join "\n" failures))})

(defn- quality
  "Loads the app's sources with reflection warnings on, first, so that they are
  compiled here and not by a test; then checks their public vars' docstrings."
  [app-dir]
  (let [sources (namespaces (io/file app-dir "src") (constantly true))
        err (java.io.StringWriter.)
        loaded (binding [*err* err
                         *warn-on-reflection* true]
                 (try (apply require sources) nil
                      (catch Throwable t (str "the sources did not load: " t))))]
    [(result "no-reflection"
             (cond-> []
               (empty? sources) (conj (str "no sources under " app-dir "/src"))
               loaded (conj loaded)
               (str/includes? (str err) "Reflection warning") (conj (str err))))
     (result "every-public-var-has-a-docstring"
             (for [ns-sym sources
                   :when (find-ns ns-sym)
                   [sym v] (ns-publics ns-sym)
                   :when (str/blank? (:doc (meta v)))]
               (str ns-sym "/" sym " has no docstring")))]))

(defn -main
  "Runs the checks and the tests of the app in APP-DIR; writes the results to
  RESULTS-FILE."
  [app-dir results-file]
  (let [app (.getName (io/file app-dir))
        checks (map #(update % :name (partial str app "/")) (quality app-dir))
        tests (for [ns-sym (namespaces (io/file app-dir "test") #(str/ends-with? % "_test.clj"))
                    r (try (runner/run-ns ns-sym)
                           (catch Throwable t [{:name "load" :failure (str ns-sym " did not load: " t)}]))]
                (update r :name #(str ns-sym "/" %)))]
    (spit results-file (pr-str (vec (concat checks tests))))
    (shutdown-agents)))
