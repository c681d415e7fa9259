(ns onager.docs.session
  "Runs the ```clojure blocks of one Markdown file as one REPL session would:
  in order, form by form, in a fresh namespace of their own that refers what
  clojure.main's REPL does (doc, source, pprint...), with *1 *2 *3 and *e.

  What the runner does that a reader's REPL does not:
  - every 8080 in the blocks (`:port 8080`, `http://localhost:8080/`,
    `;=> 8080`) becomes a port it finds free for the file, so that a doc never
    fails because 8080 is taken;
  - `onager.server/start` binds 127.0.0.1 when the doc names no :host, and
    closes idle connections at once on stop unless the doc sets
    :shutdown-idle-ms; every Onager server the file starts is stopped when the file ends, also
    when the doc does not stop it (a peer's server, Jetty, is the doc's to stop);
  - a form that runs longer than *form-timeout-ms* is interrupted and fails;
  - what a form prints is kept, and shown only when the form fails.

  A comment right after a form states its result, and is checked; it stands on
  the form's last line or alone on the line below:
    (server/port s) ;=> 8080
        passes when the value the comment reads as equals the form's, or when
        the form's value prints (pr-str) as the comment's text; a value too
        long for the line goes on in the comment lines below it;
    (json/write {:at (java.time.Instant/now)}) ;=> \"{\\\"at\\\":\\\"20...Z\\\"}\"
        `...` stands for any text of the printed value, for what a doc cannot
        know (and then only the printed form is compared);
    (server/start app {:port -1}) ; throws ExceptionInfo: Invalid option :port -1...
        the form must throw an exception of that simple class name whose
        message matches (`...` again stands for any text).
  A form that throws where the doc does not say so fails and ends the file's
  session: what follows would mostly fail for the same reason."
  (:require [clojure.main :as main]
            [clojure.string :as str]
            [onager.server :as server])
  (:import [clojure.lang LineNumberingPushbackReader]
           [java.io StringReader StringWriter]
           [java.net InetAddress ServerSocket]
           [java.util.regex Pattern]))

(set! *warn-on-reflection* true)

(def doc-port
  "The port the docs name, which each file's session replaces with its own."
  8080)

(def ^:dynamic *form-timeout-ms*
  "How long one form may run before it is interrupted and fails."
  60000)

(defn free-port
  "A TCP port free on 127.0.0.1 right now."
  []
  (with-open [s (ServerSocket. 0 50 (InetAddress/getByName "127.0.0.1"))]
    (.getLocalPort s)))

;; ---- reading forms and their stated results ----

(defn- line-starts
  "The offset in `text` at which each line starts."
  [^String text]
  (into [0] (keep-indexed (fn [i c] (when (= c \newline) (inc i)))) text))

(defn- skip-blank
  "The offset of the first character from `i` that is not whitespace, a comma
  or part of a comment: where the next form starts."
  [^String text i]
  (let [n (count text)]
    (loop [i i]
      (cond
        (>= i n) n
        (or (Character/isWhitespace (.charAt text i)) (= \, (.charAt text i))) (recur (inc i))
        (= \; (.charAt text i)) (recur (or (str/index-of text "\n" i) n))
        :else i))))

(defn- line-at
  "The line of `text` that starts at `i`, and the offset after it."
  [^String text i]
  (let [end (or (str/index-of text "\n" i) (count text))]
    [(subs text i end) (min (count text) (inc end))]))

(def ^:private result-comment #"^\s*;+\s*=>\s?(.*)$")
(def ^:private throws-comment #"^\s*;+\s*throws\s+([\w.$]+):\s*(.*)$")

(defn- complete?
  "True when `s` reads as one whole value (no unclosed bracket or string)."
  [s]
  (try (read-string s) true
       (catch Exception e
         (not (re-find #"EOF" (str (.getMessage e) (some-> (.getCause e) .getMessage)))))))

(defn- claim
  "What the comment after a form (ending at `end`) states: {:result text} or
  {:throws class-name :message text}, or nil. The comment is on the rest of the
  form's last line, or alone on the line below; a result that does not read
  whole takes in the comment lines after it."
  [^String text end]
  (let [[rest-of-line after] (line-at text end)
        [comment after] (cond
                          (not (str/blank? rest-of-line)) [rest-of-line after]
                          (< after (count text)) (line-at text after))]
    (when comment
      (if-let [[_ cls message] (re-matches throws-comment comment)]
        {:throws cls :message (str/trim message)}
        (when-let [[_ value] (re-matches result-comment comment)]
          (loop [value value after after]
            (let [[next-line after'] (when (< after (count text)) (line-at text after))]
              (if (or (complete? value) (not (and next-line (re-matches #"^\s*;.*" next-line))))
                {:result (str/trim value)}
                (recur (str value "\n" (str/replace next-line #"^\s*;+" "")) after')))))))))

(defn forms
  "The top-level forms of `text` (file lines: `text` starts with blank lines
  up to its first line), each {:form :source :line :claim}. A form that does
  not read comes as {:read-error exception :line}, and ends the list."
  [^String text]
  (let [starts (line-starts text)
        reader (LineNumberingPushbackReader. (StringReader. text))]
    (loop [out [] pos 0]
      (let [start (skip-blank text pos)
            line (inc (count (filter #(<= % start) (rest starts))))
            form (try (read {:eof ::eof :read-cond :allow} reader)
                      (catch Exception e {::read-error e}))]
        (cond
          (= ::eof form) out
          (and (map? form) (::read-error form)) (conj out {:read-error (::read-error form) :line line})
          :else
          ;; The reader's column is 1-based and counts from the line it is on; after
          ;; giving back a newline it stands at column 0 of the next line, which
          ;; this offset then points at the newline itself.
          (let [end (long (+ (long (nth starts (dec (.getLineNumber reader)))) (dec (.getColumnNumber reader))))]
            (recur (conj out {:form form
                              :source (subs text start end)
                              :line line
                              :claim (claim text end)})
                   end)))))))

;; ---- checking a result ----

(defn- wildcard
  "A pattern matching `s` where each `...` stands for any text."
  [^String s]
  (re-pattern (str "(?s)" (str/join ".*?" (map #(Pattern/quote %) (str/split s #"\.\.\." -1))))))

(defn result-matches?
  "True when `value` is what `expected` (the text after `;=>`) states: the
  value it reads as, or printed, the same text, `...` matching anything."
  [expected value]
  (or (and (not (str/includes? expected "..."))
           (try (= (read-string expected) value) (catch Exception _ false)))
      (boolean (re-matches (wildcard expected) (pr-str value)))))

(defn- throw-matches? [{:keys [throws message]} ^Throwable t]
  (and (= throws (.getSimpleName (class t)))
       (boolean (re-matches (wildcard message) (str (.getMessage t))))))

;; ---- a session ----

(defn- shown
  "The form's source as the doc shows it: with the doc's port again."
  [^String source port]
  (str/replace source (str port) (str doc-port)))

(defn- with-port
  "`text` with every 8080 replaced by `port`."
  [^String text port]
  (str/replace text (re-pattern (str "\\b" doc-port "\\b")) (str port)))

(defn- file-text
  "A block's (or prelude's) `code` as text whose line numbers are the file's:
  `line` is the file line of its first line."
  [code line]
  (str (apply str (repeat (dec line) \newline)) code))

(defn- label
  "Names a form in a failure: file, line, the block (or prelude) it is in,
  and its source as the doc shows it (its first lines when long)."
  [{:keys [file port]} where form-line source]
  (let [lines (str/split-lines (shown source port))]
    (str file ":" form-line " (" where "): "
         (str/join "\n  " (take 6 lines)) (when (> (count lines) 6) " ..."))))

(defn- check
  "The outcome of a form that gave `outcome` ({:value v} or {:thrown t}) against
  the doc's `claim`: a clojure.test report map without :file and :line."
  [claim outcome name printed]
  (if-let [t (:thrown outcome)]
    (if (and (:throws claim) (throw-matches? claim t))
      {:type :pass}
      {:type :error :actual t
       :message (str name "\n  " (str/trim (main/err->msg t))
                     (when (:throws claim) (str "\n  the doc says it throws " (:throws claim) ": " (:message claim)))
                     printed)})
    (let [v (:value outcome)]
      (cond
        (:throws claim)
        {:type :fail :message (str name "\n  the doc says it throws" printed)
         :expected (str (:throws claim) ": " (:message claim)) :actual v}
        (and (:result claim) (not (result-matches? (:result claim) v)))
        {:type :fail :message (str name printed) :expected (:result claim) :actual v}
        :else {:type :pass}))))

(defn- evaluate
  "Evaluates the forms of `code`, whose first line is `line` of the file, in the
  session, recording each outcome; false when one threw where the doc did not
  say it would, which ends the session."
  [{:keys [file port record! running] :as session} where code line]
  (reduce
   (fn [_ {:keys [form source claim read-error] form-line :line}]
     (if read-error
       (do (record! {:type :error :file file :line form-line :actual read-error
                     :message (str file ":" form-line " (" where "): this does not read: "
                                   (ex-message read-error))})
           (reduced false))
       (let [name (label session where form-line source)
             output (StringWriter.)
             outcome (try (reset! running {:name name :line form-line :since (System/nanoTime)})
                          (binding [*out* output *err* output *file* file]
                            {:value (eval form)})
                          (catch Throwable t {:thrown t})
                          (finally (reset! running nil)))
             printed (when (seq (str output)) (str "\n  it printed: " output))
             report (check claim outcome name printed)]
         (if-let [t (:thrown outcome)]
           (set! *e t)
           (do (set! *3 *2) (set! *2 *1) (set! *1 (:value outcome))))
         (record! (assoc report :file file :line form-line))
         (if (= :error (:type report)) (reduced false) true))))
   true
   (forms (file-text (with-port code port) line))))

(defn- run-blocks [{:keys [record!] :as session} blocks]
  (reduce
   (fn [_ {:keys [line text prelude skip file]}]
     (if skip
       (do (record! {:type :skip :file file :line line
                     :message (str "the block at line " line " is skipped: " (:text skip))})
           true)
       (if (and (or (nil? prelude)
                    (evaluate session (str "the doc-test prelude of the block at line " line)
                              (:text prelude) (:line prelude)))
                (evaluate session (str "the block at line " line) text line))
         true
         (reduced false))))
   true
   blocks))

(defn run
  "Runs `blocks` (of onager.docs.blocks, all from one file) as one REPL
  session and returns the outcomes in order, as clojure.test report maps with
  :file and :line: {:type :pass} per form that ran as stated, :fail or :error
  naming the file, the line and the form, :skip per skipped block. Servers the
  blocks started are stopped, and the session's namespace removed, before it
  returns."
  [blocks]
  (let [file (:file (first blocks))
        outcomes (atom [])
        servers (atom [])
        running (atom nil)
        port (free-port)
        session-ns (create-ns (gensym "onager.docs.session.file-"))
        start server/start
        timed-out (atom false)
        ;; Once a form has timed out, what its interrupted thread still reports is noise.
        session {:file file :port port :running running
                 :record! #(when-not @timed-out (swap! outcomes conj %))}
        thread (Thread.
                (fn []
                  (main/with-bindings
                    (set! *ns* session-ns)
                    (refer 'clojure.core)
                    (apply require main/repl-requires)
                    (run-blocks session blocks)))
                (str "doc-test " file))]
    (try
      ;; Served on 127.0.0.1 only; and a stop does not keep the clients' idle
      ;; connections open for :shutdown-idle-ms, which would add a second per server.
      (with-redefs [server/start (fn [handler opts]
                                   (let [s (start handler (if (or (nil? opts) (map? opts))
                                                            (merge {:host "127.0.0.1" :shutdown-idle-ms 0} opts)
                                                            opts))]
                                     (swap! servers conj s)
                                     s))]
        (.start thread)
        (loop []
          (.join thread 100)
          (when (.isAlive thread)
            (let [{:keys [name line since]} @running]
              (if (and since (> (- (System/nanoTime) (long since)) (* (long *form-timeout-ms*) 1000000)))
                (do (reset! timed-out true)
                    (swap! outcomes conj {:type :fail :file file :line line
                                          :message (str name "\n  did not finish within " *form-timeout-ms* " ms")})
                    (.interrupt thread)
                    (.join thread 5000))
                (recur))))))
      (finally
        (run! #(server/stop %) @servers)
        (remove-ns (ns-name session-ns))))
    @outcomes))
