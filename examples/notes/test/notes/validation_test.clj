(ns notes.validation-test
  "The checks of notes.validation as functions, without a server."
  (:require [clojure.test :refer [deftest is]]
            [notes.validation :as v]))

(set! *warn-on-reflection* true)

(deftest a-valid-note-is-cleaned-and-completed
  (is (= {:value {:title "Title" :body "" :pinned false}} (v/note {:title " Title\n"})))
  (is (= {:value {:title "T" :body "b" :pinned true}} (v/note {:title "T" :body "b" :pinned true})))
  (is (= {:title "is required"} (:errors (v/note {}))))
  (is (= "The request body must be a JSON object." (:error (v/note nil))))
  (is (= "The request body must be a JSON object." (:error (v/note "title")))))

(deftest list-params-have-defaults-and-bounds
  (is (= {:value {:q nil :limit 50 :offset 0}} (v/list-params {})))
  (is (= {:value {:q nil :limit 50 :offset 0}} (v/list-params {"q" "  "})))
  (is (= {:value {:q "x" :limit 100 :offset 7}} (v/list-params {"q" "x" "limit" "100" "offset" "7"})))
  (is (= {:limit "must be an integer from 1 to 100"} (:errors (v/list-params {"limit" "1e3"}))))
  (is (= {:offset "must be given once"} (:errors (v/list-params {"offset" ["1" "2"]})))))
