(ns notes.static-test
  "The files under resources/public, served beside the API."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing use-fixtures]]
            [notes.static :as static]
            [notes.test-app :refer [raw-status request with-app]])
  (:import [java.io File InputStream]
           [java.net URL URLClassLoader]
           [java.util.jar JarEntry JarOutputStream]))

(set! *warn-on-reflection* true)

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

(defn- jar-with
  "A temporary jar holding `entries`, names to contents (nil: a directory)."
  ^File [entries]
  (let [jar (doto (File/createTempFile "notes-static" ".jar") (.deleteOnExit))]
    (with-open [out (JarOutputStream. (io/output-stream jar))]
      (doseq [[name content] entries]
        (.putNextEntry out (JarEntry. ^String name))
        (when content (.write out (.getBytes ^String content "UTF-8")))
        (.closeEntry out)))
    jar))

(deftest files-inside-a-jar-are-served-as-streams
  ;; As from an uberjar: clojure.java.io/resource looks in the thread's context
  ;; class loader, here one that sees the jar alone.
  (let [jar (jar-with {"public/packed.txt" "from the jar" "public/packed/" nil})
        loader (URLClassLoader. (into-array URL [(.toURL (.toURI jar))]) nil)
        thread (Thread/currentThread)
        original (.getContextClassLoader thread)]
    (.setContextClassLoader thread loader)
    (try
      (let [r (static/resource-response "packed.txt")]
        (is (= [200 {"Content-Type" "text/plain; charset=utf-8"}] ((juxt :status :headers) r)))
        (is (instance? InputStream (:body r)))
        (is (= "from the jar" (with-open [in ^InputStream (:body r)] (slurp in)))))
      (is (nil? (static/resource-response "packed")) "a directory entry")
      (is (nil? (static/resource-response "index.html")) "only what the jar has")
      (finally
        (.setContextClassLoader thread original)
        (.close loader)))))
