(ns notes.api-test
  "The JSON API over HTTP, as a client sees it."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing use-fixtures]]
            [notes.test-app :refer [post-json request with-app]]))

(set! *warn-on-reflection* true)

(use-fixtures :each with-app)

(deftest a-note-is-created-read-updated-and-deleted
  (let [created (post-json "/api/notes" {:title "  Groceries " :body "milk, eggs"})
        note (:json created)
        path (str "/api/notes/" (:id note))]
    (testing "create: 201, the note as stored (title trimmed, defaults filled), its Location"
      (is (= 201 (:status created)))
      (is (= {:title "Groceries" :body "milk, eggs" :pinned false}
             (select-keys note [:title :body :pinned])))
      (is (pos-int? (:id note)))
      (is (= path (get-in created [:headers "location"])))
      (is (str/starts-with? (get-in created [:headers "content-type"]) "application/json")))
    (testing "read"
      (is (= [200 note] ((juxt :status :json) (request "GET" path))))
      (is (= [200 [note]] ((juxt :status :json) (request "GET" "/api/notes")))))
    (testing "update replaces the note and moves updated_at, not created_at"
      (let [updated (request "PUT" path "{\"title\": \"Groceries\", \"body\": \"bread\", \"pinned\": true}")]
        (is (= 200 (:status updated)))
        (is (= (assoc note :body "bread" :pinned true :updated_at (get-in updated [:json :updated_at]))
               (:json updated)))
        (is (= (:json updated) (:json (request "GET" path))))))
    (testing "delete: 204 without a body, then the note is gone"
      (let [deleted (request "DELETE" path)]
        (is (= [204 ""] ((juxt :status :body) deleted))))
      (is (= 404 (:status (request "GET" path))))
      (is (= [] (:json (request "GET" "/api/notes")))))))

(deftest the-list-is-searched-ordered-and-paged
  (let [ids (vec (for [[title body pinned] [["Call Ada" "about the engine" false]
                                            ["Buy stamps" "" true]
                                            ["Read" "Ada's notes on the engine" false]
                                            ["100% done" "" false]]]
                   (:id (:json (post-json "/api/notes" {:title title :body body :pinned pinned})))))
        listed (fn [query] (mapv :id (:json (request "GET" (str "/api/notes" query)))))]
    (is (= 4 (count (distinct ids))))
    (testing "pinned first, then newest first"
      (is (= (mapv ids [1 3 2 0]) (listed ""))))
    (testing "q looks in titles and bodies, ignoring case; % and _ are plain text"
      (is (= (mapv ids [2 0]) (listed "?q=ADA")))
      (is (= (mapv ids [3]) (listed "?q=100%25")))
      (is (= [] (listed "?q=_"))))
    (testing "limit and offset page through it"
      (is (= (mapv ids [1 3]) (listed "?limit=2")))
      (is (= (mapv ids [2 0]) (listed "?limit=2&offset=2"))))))

(deftest an-invalid-note-gets-400-naming-each-bad-field
  (testing "every bad field at once, by the name the client sent"
    (let [r (post-json "/api/notes" {:titel "typo" :body 42 :pinned "yes"})]
      (is (= 400 (:status r)))
      (is (= {:error "Invalid note."
              :fields {:title "is required"
                       :titel "is not a known field"
                       :body "must be a string"
                       :pinned "must be true or false"}}
             (:json r)))))
  (testing "one field at a time"
    (doseq [[note field message] [[{:title "   "} :title "must not be blank"]
                                  [{:title 7} :title "must be a string"]
                                  [{:title (apply str (repeat 201 "x"))} :title "must be at most 200 characters"]
                                  [{:title "ok" :body (apply str (repeat 10001 "x"))} :body "must be at most 10000 characters"]]]
      (is (= {field message} (:fields (:json (post-json "/api/notes" note)))) (pr-str field))))
  (testing "a body that is not an object, or none"
    (is (= [400 {:error "The request body must be a JSON object."}]
           ((juxt :status :json) (request "POST" "/api/notes" "[\"a\"]"))))
    (is (= [400 {:error "The request body must be a JSON object."}]
           ((juxt :status :json) (request "POST" "/api/notes")))))
  (testing "PUT checks the same way, and changes nothing"
    (let [path (str "/api/notes/" (:id (:json (post-json "/api/notes" {:title "Keep me"}))))]
      (is (= [400 {:pinned "must be true or false"}]
             ((juxt :status (comp :fields :json)) (request "PUT" path "{\"title\": \"x\", \"pinned\": null}"))))
      (is (= "Keep me" (:title (:json (request "GET" path)))))))
  (testing "nothing invalid was stored"
    (is (= ["Keep me"] (map :title (:json (request "GET" "/api/notes")))))))

(deftest bad-query-parameters-get-400-naming-each
  (is (= [400 {:error "Invalid query parameters."
               :fields {:limit "must be an integer from 1 to 100"
                        :offset "must be an integer from 0 to 2147483647"}}]
         ((juxt :status :json) (request "GET" "/api/notes?limit=1000&offset=-1"))))
  (is (= {:q "must be given once"} (:fields (:json (request "GET" "/api/notes?q=a&q=b"))))))

(deftest malformed-json-gets-400-and-other-types-415
  (let [r (request "POST" "/api/notes" "{\"title\": ")]
    (is (= 400 (:status r)))
    (is (str/starts-with? (:error (:json r)) "Malformed JSON in the request body."))
    (is (str/includes? (:error (:json r)) "line 1")))
  (let [r (request "POST" "/api/notes" "title=x" {"Content-Type" "application/x-www-form-urlencoded"})]
    (is (= 415 (:status r)))
    (is (string? (:error (:json r)))))
  (is (= [] (:json (request "GET" "/api/notes"))) "nothing was stored"))

(deftest what-is-not-there-gets-a-json-404
  (doseq [[method path] [["GET" "/api/notes/999"]
                         ["PUT" "/api/notes/999"]
                         ["DELETE" "/api/notes/999"]
                         ["GET" "/api/notes/not-a-number"]
                         ["GET" "/api/notes/0"]]]
    (let [r (request method path (when (= method "PUT") "{\"title\": \"x\"}"))]
      (is (= [404 {:error (str "No note with id " (last (str/split path #"/")) ".")}]
             ((juxt :status :json) r))
          (str method " " path))))
  (doseq [[method path] [["GET" "/api/nothing"] ["POST" "/nothing"] ["GET" "/missing.html"]]]
    (is (= [404 {:error (str "Nothing at " path ".")}]
           ((juxt :status :json) (request method path)))
        (str method " " path))))

(deftest a-method-a-route-lacks-gets-a-json-405-with-allow
  (let [r (request "PATCH" "/api/notes/1" "{}")]
    (is (= [405 {:error "PATCH is not allowed on /api/notes/1."}] ((juxt :status :json) r)))
    (is (= #{"GET" "PUT" "DELETE"}
           (disj (set (map str/trim (str/split (get-in r [:headers "allow"] "") #","))) "HEAD" "OPTIONS")))))
