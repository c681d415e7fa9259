(ns onager.test-runner
  "Runs one clojure.test namespace and reports each deftest's outcome, for the
  JUnit bridge (src/test/java/onager/kernel/ClojureSuiteTest.java)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :as t]))

(set! *warn-on-reflection* true)

(def ^:private ^java.io.File times
  "Where each deftest's time goes, a line \"ms<TAB>namespace/name\" each: what
  keeps the suite within its time budget is measured, not guessed."
  (io/file "target/test-times.tsv"))

(defn- record-time
  "Adds a deftest's time to `times`, when there is a target/ to write it in:
  an app's own suite run by this runner (examples/notes) has none."
  [{:keys [var ^long started]}]
  (when (.isDirectory (.getParentFile times))
    (let [ms (quot (- (System/nanoTime) started) 1000000)
          {:keys [ns name]} (meta var)]
      (locking times
        (spit times (str ms "\t" (ns-name ns) "/" name "\n") :append true)))))

(defn beside?
  "Whether the test namespace in `file` runs beside the others rather than in
  turn: its name carries the metadata :onager.test/beside. Such a namespace
  does its work in processes of its own (niced, so that it takes only the CPU
  the others leave), so that the time it waits is not added to the suite's.
  It must not start servers in the test JVM: the Netty leak check after each
  namespace could not tell whose buffer leaked."
  [file]
  (with-open [r (java.io.PushbackReader. (io/reader file))]
    (let [[_ ns-name] (read r)]
      (boolean (:onager.test/beside (meta ns-name))))))

(defn run-ns
  "Runs the tests of `ns-sym` (fixtures included) and returns, in order, one
  {:name \"var-name\" :failure text-or-nil} per deftest. A deftest that made no
  assertion fails: a test that checks nothing proves nothing. Failures outside
  any deftest (in fixtures) come as one more entry named \"fixtures\".

  A test may report {:type :skip :message why} for a part of it that cannot run
  here: each comes as an entry {:name \"var-name: why\" :skipped why} after
  its test's, which JUnit counts as skipped."
  [ns-sym]
  (require ns-sym)
  (let [original t/report
        outcomes (atom [])
        current (atom nil)
        orphans (atom [])
        record (fn [m]
                 (let [text (with-out-str (binding [t/*test-out* *out*] (original m)))]
                   (if @current
                     (swap! current #(-> % (update :assertions inc) (update :failures conj text)))
                     (swap! orphans conj text))))]
    (binding [t/report (fn [m]
                         (case (:type m)
                           :begin-test-var (reset! current {:var (:var m) :assertions 0 :failures [] :skips []
                                                            :started (System/nanoTime)})
                           :skip (swap! current update :skips conj (:message m))
                           :end-test-var (do (record-time @current) (swap! outcomes conj @current) (reset! current nil))
                           :pass (swap! current update :assertions inc)
                           (:fail :error) (record m)
                           nil))]
      (t/test-ns ns-sym))
    (cond-> (into []
                  (mapcat (fn [{:keys [var assertions failures skips]}]
                            (let [name (str (:name (meta var)))]
                              (cons {:name name
                                     :failure (cond
                                                (seq failures) (str/join "\n" failures)
                                                (zero? assertions) "this test made no assertion")}
                                    (for [why skips] {:name (str name ": " why) :skipped why})))))
                  @outcomes)
      ;; Failures outside any deftest come from fixtures; they must not pass unseen.
      (seq @orphans) (conj {:name "fixtures" :failure (str/join "\n" @orphans)}))))
