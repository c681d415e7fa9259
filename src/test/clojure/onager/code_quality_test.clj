(ns onager.code-quality-test
  "House rules checked as tests: every public var has a docstring, no Clojure
  code reflects, and the README's options tables are the options tables."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.options :as options]
            [onager.server.options :as server-options]))

(defn- namespaces-under
  "The namespaces of the .clj files under `dir`."
  [dir]
  (let [root (.toPath (io/file dir))]
    (->> (file-seq (io/file dir))
         (filter #(str/ends-with? (.getName ^java.io.File %) ".clj"))
         (map (fn [^java.io.File f]
                (-> (str (.relativize root (.toPath f)))
                    (str/replace #"\.clj$" "")
                    (str/replace "/" ".")
                    (str/replace "_" "-")
                    symbol)))
         sort)))

(def ^:private api-namespaces (namespaces-under "src/main/clojure"))

(deftest every-public-var-has-a-docstring
  (is (seq api-namespaces))
  (doseq [ns-sym api-namespaces]
    (require ns-sym)
    (doseq [[sym v] (ns-publics ns-sym)]
      (is (not (str/blank? (:doc (meta v)))) (str ns-sym "/" sym " has no docstring")))))

(deftest no-reflection
  (testing "compiling the API and the demo from source with *warn-on-reflection* prints no warning"
    ;; load-file, not require: require would load the API's compiled classes,
    ;; which are newer than the sources, and compile nothing.
    (let [err (java.io.StringWriter.)
          files (->> ["src/main/clojure" "examples"]
                     (mapcat #(file-seq (io/file %)))
                     (filter #(str/ends-with? (.getName ^java.io.File %) ".clj"))
                     (map str)
                     sort)]
      (is (seq files))
      (binding [*err* err
                *warn-on-reflection* true]
        (run! load-file files))
      (is (not (str/includes? (str err) "Reflection warning")) (str err)))))

(defn- readme-table [readme marker]
  (let [pattern (re-pattern (str "(?s)<!-- " marker ":start -->\n(.*?)\n<!-- " marker ":end -->"))]
    (second (re-find pattern readme))))

(deftest readme-options-tables-are-generated
  (testing "README.md shows each options table itself (run `make docs` after changing one)"
    (let [readme (slurp "README.md")
          tables (load-file "scripts/readme-tables.clj")]
      (is (some #{server-options/table} (map second tables)))
      (doseq [[marker table] tables]
        (is (= (options/markdown table) (readme-table readme marker)) marker)))))

(deftest the-api-is-compiled-to-classes
  (testing "the build compiles every API namespace (scripts/compile-api.clj), so none is compiled at start-up"
    (doseq [ns-sym api-namespaces
            :let [path (-> (name ns-sym) (str/replace "-" "_") (str/replace "." "/"))
                  class-url (io/resource (str path "__init.class"))
                  source (io/file "src/main/clojure" (str path ".clj"))]]
      (is class-url (str ns-sym " has no compiled class"))
      (when class-url
        (is (>= (.lastModified (io/file (.toURI class-url))) (.lastModified source))
            (str ns-sym "'s class is older than its source"))))))
