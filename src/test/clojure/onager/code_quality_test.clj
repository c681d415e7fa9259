(ns onager.code-quality-test
  "House rules checked as tests: every public var has a docstring, no Clojure
  code reflects, the README's options tables are the options tables, doc/api
  is the API reference the docstrings make, and no file cites notes kept
  outside the repository."
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
          ;; examples/onager only: the example apps have libraries of their own, on a
          ;; class path of their own, where ExampleAppIT checks their sources.
          files (map :file (mapcat clojure-sources ["src/main/clojure" "examples/onager"]))]
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

(defn- first-difference
  "Where the text `found` first differs from `wanted`, as a line of a message; nil when equal."
  [wanted found]
  (let [w (str/split-lines wanted)
        f (str/split-lines found)]
    (first (for [i (range (max (count w) (count f)))
                 :let [a (get w i) b (get f i)]
                 :when (not= a b)]
             (str "line " (inc i) " should be " (pr-str a) " but is " (pr-str b))))))

(deftest api-reference-is-generated
  (testing "doc/api is what the docstrings make (run `make docs` after changing one)"
    (let [pages ((load-file "scripts/api-docs.clj") "src/main/clojure")
          files (filter #(str/ends-with? (.getName ^java.io.File %) ".md") (.listFiles (io/file "doc/api")))]
      (is (contains? pages "onager.server.md"))
      (is (= (set (keys pages)) (set (map #(.getName ^java.io.File %) files)))
          "one page per namespace and the index, and no other")
      (doseq [[name text] pages
              :let [f (io/file "doc/api" name)]
              :when (.exists f)]
        (is (nil? (first-difference text (slurp f)))
            (str "doc/api/" name " is out of date: " (first-difference text (slurp f))))))))

(deftest the-api-is-compiled-to-classes
  (testing "the build compiles every API namespace (scripts/compile-api.clj), so none is compiled at start-up"
    (doseq [{ns-sym :ns source :file} (clojure-sources "src/main/clojure")
            :let [class-url (io/resource (str (str/replace (name ns-sym) #"[-.]" {"-" "_" "." "/"})
                                              "__init.class"))]]
      (is class-url (str ns-sym " has no compiled class"))
      (when class-url
        (is (>= (.lastModified (io/file (.toURI class-url))) (.lastModified (io/file source)))
            (str ns-sym "'s class is older than its source"))))))

(def ^:private outside-reference
  "Ways of naming notes that live beside the repository rather than in it."
  #"DESIGN\s*§|DESIGN\.md|REFERENCE\.md|\.\./shared\b")

(deftest nothing-points-outside-the-repository
  (testing "code, tests, scripts and docs cite only what a clone has"
    (let [roots (map io/file ["src" "doc" "examples" "scripts" "bench" ".ci"
                              "README.md" "CHANGELOG.md" "Makefile" "pom.xml" "deps.edn" "build.clj"])
          files (filter #(.isFile ^java.io.File %) (mapcat file-seq roots))
          text? (fn [^java.io.File f] (not (some zero? (take 8192 (java.nio.file.Files/readAllBytes (.toPath f))))))]
      (is (< 100 (count files)))
      (doseq [f files
              :when (text? f)
              [i line] (map-indexed vector (str/split-lines (slurp f)))
              :when (re-find outside-reference line)]
        (is false (str f ":" (inc i) " points outside the repository: " (str/trim line)))))))
