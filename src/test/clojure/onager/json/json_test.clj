(ns onager.json.json-test
  "onager.json: every type both ways, the options, the errors, and streams."
  (:require [clojure.data.json :as data-json]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.json :as json])
  (:import [clojure.lang ExceptionInfo]
           [java.io ByteArrayInputStream ByteArrayOutputStream StringReader StringWriter]
           [java.nio.charset StandardCharsets]
           [java.time Duration Instant LocalDate LocalDateTime LocalTime OffsetDateTime ZoneId ZoneOffset
            ZonedDateTime]
           [java.util Date UUID]))

(set! *warn-on-reflection* true)

(defrecord Point [x y])

(defn- error-data [f]
  (try (f) nil (catch ExceptionInfo e (assoc (ex-data e) :message (ex-message e)))))

(deftest writes-every-type
  (testing "collections"
    (is (= "{\"a\":1}" (json/write {:a 1})))
    (is (= "[1,2]" (json/write [1 2])))
    (is (= "[1,2]" (json/write '(1 2))))
    (is (= "[0,1,2]" (json/write (range 3))))
    (is (= "[\"k\"]" (json/write #{:k})))
    (is (= "[1,\"a\"]" (json/write (object-array [1 "a"]))))
    (is (= "[1,2]" (json/write (int-array [1 2]))))
    (is (= "[1,2]" (json/write (long-array [1 2]))))
    (is (= "[1.5]" (json/write (double-array [1.5]))))
    (is (= "[]" (json/write [])))
    (is (= "{}" (json/write {})))
    (is (= "{\"x\":1,\"y\":2}" (json/write (->Point 1 2))))
    (is (= "{\"a\":[1]}" (json/write (java.util.HashMap. ^java.util.Map (hash-map "a" (java.util.ArrayList. ^java.util.Collection (vector 1))))))))
  (testing "keys: keywords (with namespace), strings, symbols, numbers"
    (is (= "{\"ns/k\":1,\"s\":2,\"sym\":3,\"4\":5,\"1.5\":6}" (json/write (array-map :ns/k 1 "s" 2 'sym 3 4 5 1.5 6)))))
  (testing "scalars"
    (is (= "[null,true,false,\"s\",\"kw\",\"ns/kw\",\"sym\",\"c\"]" (json/write [nil true false "s" :kw :ns/kw 'sym \c])))
    (is (= "[1,2,3,4,1.5,2.5]" (json/write [(byte 1) (short 2) (int 3) 4 (float 1.5) 2.5])))
    (is (= "[12345678901234567890,98765432109876543210,1.25,0.5]"
           (json/write [12345678901234567890N (biginteger 98765432109876543210N) 1.25M 1/2])))
    (is (= "\"\\\"\\\\\\n\\u0001é✓😀\"" (json/write "\"\\\n\u0001é✓😀")))
    (is (= "\"AQID\"" (json/write (byte-array [1 2 3]))) "bytes as base64"))
  (testing "UUIDs and dates as ISO-8601 strings"
    (is (= "\"123e4567-e89b-12d3-a456-426614174000\"" (json/write (UUID/fromString "123e4567-e89b-12d3-a456-426614174000"))))
    (is (= "\"1970-01-01T00:00:01.500Z\"" (json/write (Instant/ofEpochMilli 1500))))
    (is (= "\"1970-01-01T00:00:00Z\"" (json/write (Date. 0))))
    (is (= "\"2024-02-29\"" (json/write (LocalDate/of 2024 2 29))))
    (is (= "\"2024-02-29T13:14:15\"" (json/write (LocalDateTime/of 2024 2 29 13 14 15))))
    (is (= "\"13:14\"" (json/write (LocalTime/of 13 14))))
    (is (= "\"2024-02-29T13:14:15+02:00\"" (json/write (OffsetDateTime/of 2024 2 29 13 14 15 0 (ZoneOffset/ofHours 2)))))
    (is (= "\"2024-07-01T12:00:00+02:00\"" (json/write (ZonedDateTime/of 2024 7 1 12 0 0 0 (ZoneId/of "Europe/Paris")))))
    (is (= "\"PT1M30S\"" (json/write (Duration/ofSeconds 90))))))

(deftest reads-every-type
  (is (= {"a" [1 2.5 "s" true false nil {"b" {}}] "c" []}
         (json/read "{\"a\":[1,2.5,\"s\",true,false,null,{\"b\":{}}],\"c\":[]}")))
  (testing "integers are longs, BigInts when larger; decimals doubles or BigDecimals"
    (is (instance? Long (json/read "7")))
    (is (= 9223372036854775808N (json/read "9223372036854775808")))
    (is (instance? clojure.lang.BigInt (json/read "-99999999999999999999")))
    (is (instance? Double (json/read "1.5")))
    (is (= 1.10M (json/read "1.10" {:bigdecimals? true})))
    (is (= 1e300 (json/read "1e300"))))
  (testing "maps: array maps in order up to 16 keys, hash maps above, the last of a repeated key"
    (is (instance? clojure.lang.PersistentArrayMap (json/read "{\"a\":1}")))
    (let [sixteen (json/read (str "{" (str/join "," (map #(str "\"k" % "\":" %) (range 16))) "}"))]
      (is (instance? clojure.lang.PersistentArrayMap sixteen))
      (is (= (map #(str "k" %) (range 16)) (keys sixteen)))
      (is (= 17 (count (assoc sixteen "new" 1))) "assoc past it makes a hash map, as for any array map"))
    (is (instance? clojure.lang.PersistentHashMap
                   (json/read (str "{" (str/join "," (map #(str "\"k" % "\":" %) (range 17))) "}"))))
    (is (= (into {} (map (fn [i] [(str "k" i) i])) (range 30))
           (json/read (str "{" (str/join "," (map #(str "\"k" % "\":" %) (range 30))) "}"))))
    (is (= {"a" 2} (json/read "{\"a\":1,\"a\":2}")))
    (is (= {"a" 2 "b" 1} (json/read "{\"a\":1,\"b\":1,\"a\":2}"))))
  (testing "keys: strings, keywords, or what :key-fn makes"
    (is (= {:a {:b-c 1 :ns/d 2}} (json/read "{\"a\":{\"b-c\":1,\"ns/d\":2}}" {:keywords? true})))
    (is (= {"A" 1} (json/read "{\"a\":1}" {:key-fn str/upper-case})))
    (is (= {"A" 1} (json/read "{\"a\":1}" {:key-fn str/upper-case :keywords? true})) ":key-fn wins"))
  (testing "inputs: strings, bytes in any Unicode encoding, streams, readers"
    (is (= {"é" "✓"} (json/read (.getBytes "{\"é\":\"✓\"}" StandardCharsets/UTF_8))))
    (is (= {"é" "✓"} (json/read (.getBytes "{\"é\":\"✓\"}" StandardCharsets/UTF_16BE))))
    (is (= [1] (json/read (ByteArrayInputStream. (.getBytes "  [1]  " StandardCharsets/UTF_8)))))
    (is (= [1] (json/read (StringReader. "[1]"))))))

(deftest streams-are-read-and-written-in-place
  (testing "a stream is left open after the value"
    (let [in (ByteArrayInputStream. (.getBytes "{\"a\":1}" StandardCharsets/UTF_8))]
      (is (= {"a" 1} (json/read in)))
      (is (= -1 (.read in)))))
  (testing "write-to writes to OutputStreams and Writers, flushed and open"
    (let [out (ByteArrayOutputStream.)
          w (StringWriter.)]
      (json/write-to out {:é 1})
      (json/write-to w [1 2] {:pretty? true})
      (.write out (int \!))
      (is (= "{\"é\":1}!" (String. (.toByteArray out) StandardCharsets/UTF_8)))
      (is (= "[\n  1,\n  2\n]" (str w)))))
  (is (= "{\"a\":\"é\"}" (String. (json/write-bytes {:a "é"}) StandardCharsets/UTF_8))))

(deftest write-options
  (is (= "{\n  \"a\": [\n    1,\n    {\n      \"b\": null\n    }\n  ],\n  \"c\": {},\n  \"d\": []\n}"
         (json/write (array-map :a [1 {:b nil}] :c {} :d []) {:pretty? true})))
  (is (= "{\"A\":1,\"B\":{\"C\":2}}" (json/write {:a 1 :b {:c 2}} {:key-fn #(str/upper-case (name %))})))
  (is (= "{\"k\":\"\\u00E9\\u2713\"}" (json/write {:k "é✓"} {:escape-non-ascii? true})))
  (testing "the pretty form reads back the same"
    (let [x {:a [1 2 {:b "c"}] :d {:e [] :f {}}}]
      (is (= x (json/read (json/write x {:pretty? true}) {:keywords? true}))))))

(deftest errors-say-what-is-wrong
  (testing "a type it cannot write"
    (let [data (error-data #(json/write {:ok [1 (Object.)]}))]
      (is (= :json-unwritable (:onager/error data)))
      (is (= Object (:class data)))
      (is (str/includes? (:message data) "java.lang.Object"))
      (is (str/includes? (:message data) "JsonWritable"))))
  (testing "a key it cannot write"
    (let [data (error-data #(json/write {[1 2] 3}))]
      (is (= :json-unwritable (:onager/error data)))
      (is (str/includes? (:message data) "map key [1 2]"))))
  (testing "malformed input names line and column"
    (doseq [[input line column] [["{\"a\":" 1 6] ["{\"a\" 1}" 1 6] ["[1,\n2,,3]" 2 3] ["" 1 1] ["{} []" 1 4]
                                 ["nul" 1 1] ["[1] x" 1 5]]]
      (let [data (error-data #(json/read input))]
        (is (= [:invalid-json line column] ((juxt :onager/error :line :column) data)) (pr-str input))
        (is (str/starts-with? (:message data) (str "Invalid JSON at line " line ", column " column ": "))))))
  (testing "input it cannot read from"
    (is (= :invalid-input (:onager/error (error-data #(json/read 42))))))
  (testing "bad options name the key, the value and what is allowed"
    (let [data (error-data #(json/write {} {:pretty? "yes"}))]
      (is (= [:invalid-option :pretty? "yes"] ((juxt :onager/error :key :value) data))))
    (is (= :unknown-option (:onager/error (error-data #(json/read "1" {:keyword? true})))))))

(deftype Celsius [degrees])

(extend-protocol json/JsonWritable
  Celsius
  (to-json [c] {:celsius (.-degrees c)}))

(deftest your-own-types
  (is (= "{\"t\":{\"celsius\":21.5}}" (json/write {:t (Celsius. 21.5)}))))

(deftest agrees-with-clojure-data-json
  (let [x {"a" [1 2.5 "é \"q\" \n" true nil] "b" {"c" {}} "d" []}]
    (is (= x (data-json/read-str (json/write x))))
    (is (= x (json/read (data-json/write-str x))))))
