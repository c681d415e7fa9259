(ns onager.json
  "JSON to and from Clojure data, with Jackson's streaming parser and generator
  in the kernel walking the data directly (no intermediate tree, no reflection).

    (require '[onager.json :as json])
    (json/write {:id 1 :tags [\"a\" \"b\"]})        ;=> \"{\\\"id\\\":1,\\\"tags\\\":[\\\"a\\\",\\\"b\\\"]}\"
    (json/read \"{\\\"id\\\":1}\" {:keywords? true})  ;=> {:id 1}

  Writing: maps (keyword, string, symbol or number keys; records too), vectors,
  lists, sets, seqs and Java arrays as arrays; strings, characters, keywords
  and symbols as strings (keywords with their namespace, without the colon);
  integers of every type, doubles, floats, BigDecimal, BigInt and BigInteger as
  numbers, ratios as doubles; booleans; nil as null; UUIDs, java.util.Date and
  java.time values (Instant, LocalDate, ZonedDateTime, Duration...) as ISO-8601
  strings; byte arrays as base64. Any other type throws an ex-info naming it
  (:onager/error :json-unwritable), unless you extend `JsonWritable` to it.

  Reading: objects become maps (string keys, or keywords, or what :key-fn
  makes; a repeated key keeps its last value; array maps in the document's
  order up to 16 keys, hash maps above), arrays vectors, integers longs
  (BigInt when larger), other numbers doubles (or BigDecimals), and true, false
  and null themselves. Malformed input throws an ex-info naming line and column
  (:onager/error :invalid-json); so does input with more than one value."
  (:refer-clojure :exclude [read])
  (:require [onager.json.options :as json-options]
            [onager.options :as options])
  (:import [java.io InputStream OutputStream Reader Writer]
           [java.util.concurrent ConcurrentHashMap]
           [onager.kernel.json JsonReader JsonWriter]))

(set! *warn-on-reflection* true)

(defprotocol JsonWritable
  "How to write a type `write` does not know: extend it to your types. Types
  `write` knows (maps and records among them) never reach it."
  (to-json [x]
    "The value to write in place of `x`, of a type `write` knows: extend this to
    your own types, e.g. (extend-protocol JsonWritable java.net.URI (to-json [u] (str u)))."))

(extend-protocol JsonWritable
  Object
  (to-json [_] JsonWriter/UNWRITABLE))

(defn- fallback [x]
  (to-json x))

(defn- make-reader ^JsonReader [opts]
  (let [{:keys [keywords? key-fn bigdecimals?]} (options/validate json-options/read-table opts)]
    (JsonReader. (boolean keywords?) key-fn (boolean bigdecimals?))))

(defn- make-writer ^JsonWriter [opts]
  (let [{:keys [pretty? key-fn escape-non-ascii?]} (options/validate json-options/write-table opts)]
    (JsonWriter. (boolean pretty?) (boolean escape-non-ascii?) key-fn fallback)))

(def ^:private cache-limit 64)

;; Options maps are usually literals, the same each call: validate each one once.
(def ^:private ^ConcurrentHashMap readers (ConcurrentHashMap.))
(def ^:private ^ConcurrentHashMap writers (ConcurrentHashMap.))

(defn- cached [^ConcurrentHashMap cache make opts]
  (or (.get cache opts)
      (let [made (make opts)]
        (when (< (.size cache) cache-limit) (.putIfAbsent cache opts made))
        made)))

(def ^:private ^JsonReader default-reader (make-reader {}))
(def ^:private ^JsonWriter default-writer (make-writer {}))

(defn reader
  "A JSON reader for `opts` (those of `read`), for the middleware and for hot
  paths that would rather not look options up per call."
  ^JsonReader [opts]
  (cached readers make-reader opts))

(defn writer
  "A JSON writer for `opts` (those of `write`), for the middleware and for hot
  paths that would rather not look options up per call."
  ^JsonWriter [opts]
  (cached writers make-writer opts))

(defn read
  "The Clojure value of the JSON in `input`: a String, a byte array (UTF-8,
  UTF-16 or UTF-32), an InputStream (likewise) or a Reader. Streams and readers
  are read to the end of the value and left open. The options:"
  ([input] (read input nil))
  ([input opts]
   (let [^JsonReader r (if (nil? opts) default-reader (reader opts))]
     (cond
       (string? input) (.read r ^String input)
       (bytes? input) (.read r ^bytes input)
       (instance? InputStream input) (.read r ^InputStream input)
       (instance? Reader input) (.read r ^Reader input)
       :else (throw (ex-info (str "Cannot read JSON from " (if (nil? input) "nil" (.getName (class input)))
                                  ": give a String, a byte array, an InputStream or a Reader.")
                             {:onager/error :invalid-input :value input}))))))

(alter-meta! #'read update :doc str "\n\n" (options/docstring-of json-options/read-table))

(defn write
  "`x` as a JSON string. See the namespace's docstring for the types it writes.
  The options:"
  (^String [x] (.writeString default-writer x))
  (^String [x opts] (.writeString (if (nil? opts) default-writer (writer opts)) x)))

(alter-meta! #'write update :doc str "\n\n" (options/docstring-of json-options/write-table))

(defn write-bytes
  "`x` as JSON in UTF-8 bytes. Takes the options of `write`."
  (^bytes [x] (.writeBytes default-writer x))
  (^bytes [x opts] (.writeBytes (if (nil? opts) default-writer (writer opts)) x)))

(defn write-to
  "Writes `x` as JSON to `out`, an OutputStream (in UTF-8) or a Writer, then
  flushes it and leaves it open. Takes the options of `write`. Returns nil."
  ([out x] (write-to out x nil))
  ([out x opts]
   (let [^JsonWriter w (if (nil? opts) default-writer (writer opts))]
     (cond
       (instance? OutputStream out) (.writeTo w ^OutputStream out x)
       (instance? Writer out) (.writeTo w ^Writer out x)
       :else (throw (ex-info (str "Cannot write JSON to " (if (nil? out) "nil" (.getName (class out)))
                                  ": give an OutputStream or a Writer.")
                             {:onager/error :invalid-output :value out})))
     nil)))
