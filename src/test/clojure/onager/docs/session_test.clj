(ns onager.docs.session-test
  "The doc runner itself: each check it makes of a doc fails when the doc is
  wrong, so that a passing docs test means something."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.docs.blocks :as blocks]
            [onager.docs.session :as session]
            [onager.server :as server])
  (:import [clojure.lang ExceptionInfo]
           [java.net ConnectException Socket]))

(set! *warn-on-reflection* true)

(defn- run-doc
  "The outcomes of running the Markdown `text` as the file example.md."
  [text]
  (session/run (blocks/blocks "example.md" text)))

(defn- types [outcomes] (mapv :type outcomes))

(def ^:private fence "```")

(defn- doc [& lines] (str (str/join "\n" lines) "\n"))

(deftest stated-results-are-checked
  (testing "a result that holds passes; one that does not fails naming the file, the line and the form"
    (let [[ok wrong] (run-doc (doc "# Title" "" (str fence "clojure") "(+ 1 2) ;=> 3" "(* 2 3)" ";=> 7" fence))]
      (is (= :pass (:type ok)))
      (is (= :fail (:type wrong)))
      (is (= ["example.md" 5] [(:file wrong) (:line wrong)]))
      (is (str/includes? (:message wrong) "example.md:5 (the block at line 4): (* 2 3)"))
      (is (= ["7" 6] [(:expected wrong) (:actual wrong)]))))
  (testing "a value equal to the one read, or printing the same, passes"
    (is (= [:pass :pass :pass :pass]
           (types (run-doc (doc (str fence "clojure")
                                "{:a 1 :b [1 2]} ;=> {:b [1 2], :a 1}"
                                "(re-pattern \"a+\") ;=> #\"a+\""
                                "(list 1 2) ;=> [1 2]"
                                "\"x\" ;=> \"x\""
                                fence))))))
  (testing "`...` stands for any text of the printed value, and nothing else passes"
    (is (= [:pass :pass :fail]
           (types (run-doc (doc (str fence "clojure")
                                "(str \"at 2026-01-02T03:04:05Z\") ;=> \"at 20...Z\""
                                "(range 10) ;=> (0 1 2 ...)"
                                "(str \"at 2026-01-02\") ;=> \"at 20...Z\""
                                fence))))))
  (testing "a result too long for its line goes on in the comment lines below"
    (is (= [:pass :fail]
           (types (run-doc (doc (str fence "clojure")
                                "{:a 1 :b 2}"
                                ";=> {:a 1"
                                ";    :b 2}"
                                "{:a 1 :b 2}"
                                ";=> {:a 1"
                                ";    :b 3}"
                                fence))))))
  (testing "a plain comment after a form states nothing"
    (is (= [:pass] (types (run-doc (doc (str fence "clojure") "(+ 1 1) ; two" fence)))))))

(deftest stated-exceptions-are-checked
  (let [outcomes (run-doc (doc (str fence "clojure")
                               "(throw (ex-info \"Invalid option :port -1: expected a port.\" {}))"
                               ";; throws ExceptionInfo: Invalid option :port -1: ..."
                               "(throw (ex-info \"Another message\" {})) ; throws ExceptionInfo: Invalid ..."
                               "(+ 1 1)"
                               fence))]
    (testing "the class and the message, `...` matching any text"
      (is (= :pass (:type (first outcomes)))))
    (testing "another message fails, and the session ends there: the next form does not run"
      (is (= [:pass :error] (types outcomes)))
      (is (str/includes? (:message (second outcomes)) "the doc says it throws ExceptionInfo: Invalid ..."))))
  (testing "a form that does not throw where the doc says it does fails"
    (is (= [:fail] (types (run-doc (doc (str fence "clojure") "(+ 1 1) ; throws ArithmeticException: ..." fence)))))))

(deftest an-unexpected-exception-ends-the-file
  (let [outcomes (run-doc (doc (str fence "clojure") "(def x 1)" "(/ 1 0)" "(def y 2)" fence
                               "" (str fence "clojure") "x ;=> 1" fence))]
    (is (= [:pass :error] (types outcomes)))
    (is (str/includes? (:message (second outcomes)) "example.md:3 (the block at line 2): (/ 1 0)"))
    (is (str/includes? (:message (second outcomes)) "Divide by zero"))))

(deftest a-form-that-hangs-fails
  (let [outcomes (binding [session/*form-timeout-ms* 300]
                   (run-doc (doc (str fence "clojure") "(Thread/sleep 60000)" fence)))]
    (is (= [:fail] (types outcomes)))
    (is (str/includes? (:message (first outcomes)) "example.md:2 (the block at line 2): (Thread/sleep 60000)\n  did not finish within 300 ms"))))

(deftest a-file-is-one-session-in-a-fresh-namespace
  (testing "blocks see what earlier blocks defined, and *1 as a REPL has it"
    (is (= [:pass :pass :pass :pass]
           (types (run-doc (doc (str fence "clojure") "(def x 41)" fence "Text." ""
                                (str fence "clojure") "(inc x) ;=> 42" "(inc *1) ;=> 43" "(doc inc)" fence))))))
  (testing "another file does not see them"
    (is (= [:error] (types (run-doc (doc (str fence "clojure") "x" fence)))))))

(def kept
  "The server the doc of servers-get-a-free-port-and-are-stopped started."
  (atom nil))

(defn refused-at? [^String address port]
  (try (with-open [_ (Socket. address (int port))] false)
       (catch ConnectException _ true)))

(deftest servers-get-a-free-port-and-are-stopped
  (let [text (doc (str fence "clojure")
                  "(require '[onager.server :as server])"
                  "(def s (server/start (fn [_] {:status 200 :body \"hi\"}) {:port 8080}))"
                  "(server/port s) ;=> 8080"
                  "(slurp \"http://localhost:8080/\") ;=> \"hi\""
                  "(reset! onager.docs.session-test/kept s)"
                  (str "(onager.docs.session-test/refused-at? \"127.0.0.2\" " "8080) ;=> true")
                  fence)]
    (is (= [:pass :pass :pass :pass :pass :pass] (types (run-doc text))))
    (testing "on a port of the runner's choosing, bound to 127.0.0.1 only (127.0.0.2 is refused)"
      (is (not= 8080 (server/port @kept))))
    (testing "stopped when the file ends, though the doc did not stop it"
      (is (refused-at? "127.0.0.1" (server/port @kept))))))

(deftest directives
  (testing "a prelude runs before its block, unseen by a reader"
    (is (= [:pass :pass]
           (types (run-doc (doc "<!-- doc-test prelude: (defn home [_] :home) -->" (str fence "clojure")
                                "(home {}) ;=> :home" fence))))))
  (testing "a skipped block does not run and is reported with its reason"
    (is (= [{:type :skip :file "example.md" :line 4
             :message "the block at line 4 is skipped: it blocks forever"}]
           (run-doc (doc "<!-- doc-test skip: it blocks forever -->" "" (str fence "clojure") "@(promise)" fence)))))
  (testing "a directive misspelt, misplaced, or before another language is an error"
    (is (thrown-with-msg? ExceptionInfo #"example.md:1: unknown doc-test directive"
                          (run-doc (doc "<!-- doc-test preamble: (def x 1) -->" (str fence "clojure") "x" fence))))
    (is (thrown-with-msg? ExceptionInfo #"not right before"
                          (run-doc (doc "<!-- doc-test skip: why -->" "Text." (str fence "clojure") "x" fence))))
    (is (thrown-with-msg? ExceptionInfo #"not ```clojure"
                          (run-doc (doc "<!-- doc-test skip: why -->" (str fence "sh") "ls" fence))))))
