(ns onager.code-quality-test
  "House rules checked as tests: every public var has a docstring, no Clojure
  code reflects, and the README's options tables are the options tables."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.options :as options]
            [onager.server.options :as server-options]))

(def ^:private clojure-sources
  "The .clj files under a directory with their namespaces, as the build finds the API's."
  (load-file "scripts/clojure-sources.clj"))

(def ^:private api-namespaces (map :ns (clojure-sources "src/main/clojure")))

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
          files (map :file (mapcat clojure-sources ["src/main/clojure" "examples"]))]
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
    (doseq [{ns-sym :ns source :file} (clojure-sources "src/main/clojure")
            :let [class-url (io/resource (str (str/replace (name ns-sym) #"[-.]" {"-" "_" "." "/"})
                                              "__init.class"))]]
      (is class-url (str ns-sym " has no compiled class"))
      (when class-url
        (is (>= (.lastModified (io/file (.toURI class-url))) (.lastModified (io/file source)))
            (str ns-sym "'s class is older than its source"))))))
