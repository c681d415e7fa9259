(ns onager.docs.blocks
  "The ```clojure blocks of a Markdown file, with the doc-test directive (an
  HTML comment, invisible when rendered) that may stand right before each:

    <!-- doc-test prelude: (defn home [_] {:status 200}) -->
        forms evaluated just before the block, for definitions a reader need
        not see (stub handlers the example names);
    <!-- doc-test skip: why it cannot run here -->
        the block is not run, and is reported as skipped with the reason.

  Only blank lines may stand between a directive and its block. A directive
  that is not followed by a block, or one this namespace does not know, is an
  error: a typo must not quietly turn a check off."
  (:require [clojure.string :as str]))

(set! *warn-on-reflection* true)

(def ^:private fence-open #"^(\s*)```clojure\s*$")
(def ^:private fence-close #"^\s*```\s*$")
(def ^:private any-fence #"^(\s*)```.*$")
(def ^:private directive-start #"^\s*<!--\s*doc-test\b(.*)$")

(defn- dedent
  "`line` without the fence's `indent` (a fence inside a list item is indented)."
  [^String line ^String indent]
  (if (str/starts-with? line indent) (subs line (count indent)) (str/triml line)))

(defn- parse-directive
  "The directive whose text (after `doc-test`, up to `-->`) is `body`, found at `line`."
  [file line body]
  (if-let [[_ kind text] (re-matches #"(?s)\s*(prelude|skip):\s*(.*?)\s*" body)]
    (if (str/blank? text)
      (throw (ex-info (str file ":" line ": a doc-test " kind " needs text after the colon") {:file file :line line}))
      {:kind (keyword kind) :text text :line line})
    (throw (ex-info (str file ":" line ": unknown doc-test directive " (pr-str (str/trim body))
                         "; known: <!-- doc-test prelude: forms -->, <!-- doc-test skip: reason -->")
                    {:file file :line line}))))

(defn blocks
  "The ```clojure blocks of the Markdown `text` of `file` (a name for
  messages), in order, each {:file :line (of its first code line, 1-based)
  :text (its code, unindented) :prelude directive-or-nil :skip directive-or-nil},
  a directive being {:kind :text :line}."
  [file text]
  (let [lines (str/split-lines text)
        n (count lines)]
    (loop [i 0, pending nil, out []]
      (if (>= i n)
        (if pending
          (throw (ex-info (str file ":" (:line pending) ": a doc-test directive with no ```clojure block after it")
                          {:file file :line (:line pending)}))
          out)
        (let [^String line (nth lines i)]
          (cond
            (re-matches directive-start line)
            (let [close (first (filter #(str/includes? (nth lines %) "-->") (range i n)))
                  _ (when-not close
                      (throw (ex-info (str file ":" (inc i) ": a doc-test comment that never ends (no -->)")
                                      {:file file :line (inc i)})))
                  joined (str/join "\n" (subvec (vec lines) i (inc close)))
                  body (-> joined
                           (subs (+ (str/index-of joined "doc-test") (count "doc-test")))
                           (str/replace #"(?s)-->.*$" ""))]
              (when pending
                (throw (ex-info (str file ":" (inc i) ": two doc-test directives before one block")
                                {:file file :line (inc i)})))
              (recur (inc (long close)) (parse-directive file (inc i) body) out))

            (re-matches fence-open line)
            (let [indent (second (re-matches fence-open line))
                  end (first (filter #(re-matches fence-close (nth lines %)) (range (inc i) n)))
                  _ (when-not end
                      (throw (ex-info (str file ":" (inc i) ": a ```clojure block that never closes")
                                      {:file file :line (inc i)})))
                  code (map #(dedent (nth lines %) indent) (range (inc i) end))]
              (recur (inc (long end)) nil
                     (conj out {:file file
                                :line (+ i 2)
                                :text (str (str/join "\n" code) "\n")
                                :prelude (when (= :prelude (:kind pending)) pending)
                                :skip (when (= :skip (:kind pending)) pending)})))

            ;; Another language's block is skipped whole: its lines are not Markdown.
            (re-matches any-fence line)
            (if pending
              (throw (ex-info (str file ":" (:line pending) ": a doc-test directive before a block that is not ```clojure")
                              {:file file :line (:line pending)}))
              (let [end (first (filter #(re-matches fence-close (nth lines %)) (range (inc i) n)))]
                (recur (long (if end (inc (long end)) n)) nil out)))

            (or (nil? pending) (str/blank? line))
            (recur (inc i) pending out)

            :else
            (throw (ex-info (str file ":" (:line pending) ": a doc-test directive not right before a ```clojure block")
                            {:file file :line (:line pending)}))))))))
