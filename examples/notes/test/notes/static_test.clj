(ns notes.static-test
  "The files under resources/public, served beside the API."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing use-fixtures]]
            [notes.test-app :refer [raw-status request with-app]]))

(use-fixtures :each with-app)

(deftest static-files-are-served
  (testing "the page at /, and its script and style by name, with their types"
    (doseq [[path file type] [["/" "index.html" "text/html; charset=utf-8"]
                              ["/index.html" "index.html" "text/html; charset=utf-8"]
                              ["/assets/app.js" "assets/app.js" "text/javascript; charset=utf-8"]
                              ["/assets/style.css" "assets/style.css" "text/css; charset=utf-8"]]]
      (let [r (request "GET" path)]
        (is (= [200 type (slurp (io/resource (str "public/" file)))]
               [(:status r) (get-in r [:headers "content-type"]) (:body r)])
            path))))
  (testing "HEAD gets the headers alone"
    (let [r (request "HEAD" "/assets/app.js")]
      (is (= [200 "" (str (count (.getBytes (slurp (io/resource "public/assets/app.js")) "UTF-8")))]
             [(:status r) (:body r) (get-in r [:headers "content-length"])])))))

(deftest nothing-outside-public-is-served
  (testing "paths that climb out of public/, plainly or percent-encoded"
    (doseq [target ["/../deps.edn" "/%2e%2e/deps.edn" "/assets/../../notes/main.clj" "/..%2fnotes/main.clj"
                    "/assets/%2e%2e/index.html" "/public/index.html" "//index.html" "/./index.html"]]
      (is (= 404 (raw-status target)) target)))
  (testing "directories, and names it does not serve"
    (doseq [path ["/assets" "/assets/" "/index.html/" "/assets/app.js.map"]]
      (is (= 404 (:status (request "GET" path))) path)))
  (testing "the API's answers are not files"
    (is (str/starts-with? (get-in (request "GET" "/api/notes") [:headers "content-type"]) "application/json"))))
