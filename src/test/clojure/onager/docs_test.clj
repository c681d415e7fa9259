(ns onager.docs-test
  "Every ```clojure block of README.md and doc/ runs, so that the docs cannot
  drift from the code: one test per Markdown file, named by its path, which
  runs its blocks in order as one REPL session (onager.docs.session says how,
  and how a doc states a result that is then checked). A block marked
  <!-- doc-test skip: reason --> is reported as a skipped test of its own,
  named by its file and line, so that skipped blocks are counted and stay rare."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :as t :refer [deftest is]]
            [onager.docs.blocks :as blocks]
            [onager.docs.session :as session]))

(set! *warn-on-reflection* true)

(defn doc-files
  "README.md and the Markdown files under doc/, as paths from the repository's root."
  []
  (cons "README.md"
        (->> (file-seq (io/file "doc"))
             (filter #(str/ends-with? (.getName ^java.io.File %) ".md"))
             (map #(str/replace (str %) java.io.File/separator "/"))
             sort)))

(defn- report-file [file]
  (let [found (try (blocks/blocks file (slurp file))
                   (catch clojure.lang.ExceptionInfo e e))]
    (if (instance? Throwable found)
      (t/do-report {:type :error :file file :line (:line (ex-data found))
                    :message (ex-message found) :expected nil :actual found})
      ;; The message says what the REPL would; a few frames of the trace suffice.
      (binding [t/*stack-trace-depth* 8]
        (run! t/do-report (session/run found))))))

;; One test per file that has ```clojure blocks, interned when this loads.
(doseq [file (doc-files)
        :when (re-find #"(?m)^\s*```clojure\s*$" (slurp file))]
  (intern *ns* (with-meta (symbol nil file) {:test #(report-file file)}) nil))

(deftest examples-keep-the-servers-they-start
  ;; A reader pastes the examples one after another: a server started and dropped
  ;; would hold the port the next example asks for. Keep it: (def s (server/start ...)),
  ;; with-open or a let, so that it can be stopped.
  (let [dropped (for [file (doc-files)
                      block (blocks/blocks file (slurp file))
                      {:keys [form claim line]} (session/forms (:text block))
                      :when (and (seq? form) (= 'server/start (first form)) (not (:throws claim)))]
                  (str file ":" (+ (:line block) (dec line))))]
    (is (empty? dropped) "(server/start ...) whose server is not kept")))
