(ns onager.micro.json
  "JSON parse (String to data with keyword keys) and write (data with keyword
  keys to a String) of a small and a medium document: onager.json against
  cheshire 5.11 and clojure.data.json."
  (:require [cheshire.core :as cheshire]
            [clojure.data.json :as data-json]
            [onager.json :as json]))

(set! *warn-on-reflection* true)

(def small
  "About 100 bytes: one record."
  {:id 12345 :name "Alice Example" :email "alice@example.com" :active true :score 98.6 :tags ["admin" "staff"]})

(defn- person [i]
  {:id (+ 1000 i)
   :name (str "Person Number " i)
   :email (str "person" i "@example.com")
   :active (even? i)
   :balance (+ 1000.25 (* i 17.5))
   :address {:street (str i " Long Street") :city "Springfield" :zip (format "%05d" (* 37 i))}
   :tags ["customer" (if (odd? i) "gold" "silver") "newsletter"]
   :scores [(mod (* i 7) 100) (mod (* i 13) 100) (mod (* i 29) 100)]
   :created (str "2024-0" (inc (mod i 9)) "-1" (mod i 10) "T12:34:56Z")})

(def medium
  "About 10 KB: a page of 36 records."
  {:page 1 :per-page 36 :total 1250 :items (mapv person (range 36))})

(defn benchmarks
  "The comparisons, for onager.micro.main."
  []
  (vec (for [[label doc] [["small" small] ["medium" medium]]
             :let [text (json/write doc)
                   bytes (count (.getBytes ^String text "UTF-8"))]
             [op candidates] [["parse" [{:name "onager" :f #(json/read text {:keywords? true})}
                                        {:name "cheshire 5.11" :f #(cheshire/parse-string text true)}
                                        {:name "data.json 2.5" :f #(data-json/read-str text :key-fn keyword)}]]
                              ["write" [{:name "onager" :f #(json/write doc)}
                                        {:name "cheshire 5.11" :f #(cheshire/generate-string doc)}
                                        {:name "data.json 2.5" :f #(data-json/write-str doc)}]]]]
         {:id (str "json/" op " " label)
          :title (str "JSON " op ", " label " document (" bytes " bytes)")
          :candidates candidates
          ;; Parsed data must be equal; written text must read back as the document.
          :same (if (= op "parse") identity #(json/read % {:keywords? true}))
          :target {:peer "cheshire 5.11" :at-least 1.5 :also-faster-than ["data.json 2.5"]}})))
