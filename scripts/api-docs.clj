;; The API reference, doc/api/, made from the docstrings: one Markdown page per
;; namespace of src/main/clojure, each public var with its arglists and
;; docstring, and an index. Read by scripts/update-docs.clj (`make docs` writes
;; the pages) and by the test that fails when doc/api differs (code_quality_test).
;; Evaluates to a function of the source directory that returns {file-name text}.
(require '[clojure.string :as str])

(let [here (.getParentFile (.getAbsoluteFile (java.io.File. ^String *file*)))
      clojure-sources (load-file (str here "/clojure-sources.clj"))
      ;; A docstring's lines after the first are indented as the source was;
      ;; take off the indent they share.
      dedent (fn [^String doc]
               (let [[first-line & more] (str/split-lines (str/trim doc))
                     indent (->> more
                                 (remove str/blank?)
                                 (map #(count (re-find #"^ *" %)))
                                 (reduce min Integer/MAX_VALUE))]
                 (str/join "\n" (cons first-line (map #(if (str/blank? %) "" (subs % (min indent (count %)))) more)))))
      ;; The docstring as preformatted text: docstrings are plain text, and
      ;; Markdown would take their `*name` and indented lines for markup.
      doc-block (fn [doc]
                  (if (str/blank? doc)
                    "(no docstring)"
                    (str "```\n" (dedent doc) "\n```")))
      ;; The anchor GitHub gives a heading.
      anchor (fn [heading]
               (-> (str/lower-case heading)
                   (str/replace #"[^\p{Alnum} _-]" "")
                   (str/replace " " "-")))
      protocol? (fn [v] (and (map? @v) (contains? @v :on-interface)))
      kind (fn [v]
             (cond
               (:macro (meta v)) "macro"
               (protocol? v) "protocol"
               (:protocol (meta v)) "protocol method"
               (fn? @v) "function"
               :else "var"))
      usage (fn [v]
              (for [args (:arglists (meta v))]
                (str "`(" (str/join " " (cons (:name (meta v)) args)) ")`")))
      entry (fn [v level]
              (let [{:keys [name doc]} (meta v)]
                (str (apply str (repeat level "#")) " " name "\n\n"
                     "*" (kind v) "*"
                     (let [u (usage v)] (when (seq u) (str ": " (str/join ", " u))))
                     "\n\n" (doc-block doc) "\n")))
      ;; Source order, each protocol's methods after it, in their order.
      page (fn [ns-sym]
             (let [publics (vals (ns-publics ns-sym))
                   methods (set (filter #(:protocol (meta %)) publics))
                   tops (sort-by (comp :line meta) (remove methods publics))]
               (str "# " ns-sym "\n\n"
                    "<!-- Generated from the docstrings by `make docs`: edit those, not this file. -->\n\n"
                    "[All namespaces](README.md)\n\n"
                    (doc-block (:doc (meta (find-ns ns-sym)))) "\n\n"
                    (str/join "\n" (for [v tops] (str "- [" (:name (meta v)) "](#" (anchor (str (:name (meta v)))) ")")))
                    "\n\n"
                    (str/join "\n"
                              (for [v tops]
                                (str (entry v 2)
                                     (when (protocol? v)
                                       (str/join (for [sig (sort-by :name (vals (:sigs @v)))
                                                       :let [m (ns-resolve ns-sym (:name sig))]
                                                       :when (methods m)]
                                                   (str "\n" (entry m 3)))))))))))
      index (fn [namespaces]
              (str "# API reference\n\n"
                   "<!-- Generated from the docstrings by `make docs`: edit those, not this file. -->\n\n"
                   "One page per namespace: each public var with its arguments and docstring.\n"
                   "The guides are in [doc/](../README.md).\n\n"
                   "| namespace | what it is for |\n|---|---|\n"
                   (str/join (for [ns-sym namespaces
                                   :let [doc (:doc (meta (find-ns ns-sym)))
                                         summary (-> (str/split (str/trim (str doc)) #"\n\s*\n") first
                                                     (str/replace #"\s+" " "))]]
                               (str "| [" ns-sym "](" ns-sym ".md) | " (str/replace summary "|" "\\|") " |\n")))))]
  (fn api-docs [dir]
    (let [namespaces (map :ns (clojure-sources dir))]
      (run! require namespaces)
      (into {"README.md" (index namespaces)}
            (for [ns-sym namespaces] [(str ns-sym ".md") (page ns-sym)])))))
