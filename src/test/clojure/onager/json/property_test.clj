(ns onager.json.property-test
  "Property tests of onager.json: generated Clojure data survives a write and
  a read, in every output form and with every key style, and the JSON it
  writes reads the same with clojure.data.json (and the reverse), so that the
  round trip proves the JSON valid, not only self-consistent."
  (:require [clojure.data.json :as data-json]
            [clojure.test :refer [deftest is]]
            [clojure.test.check :as tc]
            [clojure.test.check.generators :as gen]
            [clojure.test.check.properties :as prop]
            [onager.json :as json])
  (:import [java.io ByteArrayInputStream ByteArrayOutputStream]))

(set! *warn-on-reflection* true)

(def ^:private gen-code-point
  "Any Unicode scalar value, the BMP more often."
  (gen/fmap #(String. (Character/toChars (int %)))
            (gen/such-that #(not (<= 0xD800 % 0xDFFF))
                           (gen/frequency [[6 (gen/choose 0 0x7F)] [3 (gen/choose 0x80 0xFFFF)]
                                           [1 (gen/choose 0x10000 0x10FFFF)]]))))

(def ^:private gen-text (gen/fmap #(apply str %) (gen/vector gen-code-point 0 12)))

(def ^:private gen-scalar
  (gen/one-of [gen-text
               gen/large-integer
               (gen/double* {:infinite? false :NaN? false})
               gen/boolean
               (gen/return nil)]))

(defn- gen-data
  "JSON-shaped Clojure data with keys made by `gen-key`."
  [gen-key]
  (gen/recursive-gen (fn [inner]
                       (gen/one-of [(gen/vector inner 0 6)
                                    (gen/map gen-key inner {:max-elements 10})]))
                     gen-scalar))

(def ^:private gen-keyword-key
  (gen/one-of [(gen/fmap #(keyword (str "k" %)) gen/string-alphanumeric)
               (gen/fmap (fn [[n k]] (keyword (str "ns" n) (str "k" k)))
                         (gen/tuple gen/string-alphanumeric gen/string-alphanumeric))]))

(defn- passes [property]
  (let [result (tc/quick-check 200 property)]
    (is (:pass? result) (pr-str (select-keys result [:shrunk :seed])))))

(deftest round-trips-with-string-keys
  (passes (prop/for-all [x (gen-data gen-text)]
            (and (= x (json/read (json/write x)))
                 (= x (json/read (json/write-bytes x)))
                 (= x (json/read (json/write x {:pretty? true})))
                 (= x (json/read (json/write x {:escape-non-ascii? true})))
                 (= x (let [out (ByteArrayOutputStream.)]
                        (json/write-to out x)
                        (json/read (ByteArrayInputStream. (.toByteArray out)))))))))

(deftest round-trips-with-keyword-keys
  (passes (prop/for-all [x (gen-data gen-keyword-key)]
            (= x (json/read (json/write x) {:keywords? true})))))

(deftest other-collections-come-back-as-vectors
  (passes (prop/for-all [xs (gen/vector gen-scalar 0 8)]
            (and (= xs (json/read (json/write (map identity xs))))
                 (= xs (json/read (json/write (apply list xs))))
                 (= (set xs) (set (json/read (json/write (set xs)))))))))

(deftest big-numbers-keep-their-value
  (passes (prop/for-all [n gen/size-bounded-bigint
                         d (gen/fmap #(BigDecimal/valueOf (double %)) (gen/double* {:infinite? false :NaN? false}))]
            (and (= n (json/read (json/write n)))
                 ;; An integral BigDecimal is written without a point, so it reads back as an integer.
                 (zero? (.compareTo ^BigDecimal d ^BigDecimal (bigdec (json/read (json/write d) {:bigdecimals? true}))))))))

(deftest agrees-with-clojure-data-json
  (passes (prop/for-all [x (gen-data gen-text)]
            (and (= x (data-json/read-str (json/write x)))
                 (= x (json/read (data-json/write-str x)))))))
