(ns onager.middleware.options
  "The options of the middleware in `onager.middleware`: validation, defaults and
  documentation all come from `params-table`, `json-body-table` and
  `json-response-table`."
  (:require [onager.json.options :as json-options])
  (:import [java.nio.charset Charset]))

(set! *warn-on-reflection* true)

(defn- charset-name? [v]
  (and (string? v) (try (Charset/isSupported v) (catch IllegalArgumentException _ false))))

(def params-table
  "Options of `onager.middleware/wrap-params`. See `onager.options`."
  [{:key :encoding
    :default nil
    :default-doc "nil (the request's)"
    :valid? #(or (nil? %) (charset-name? %))
    :allowed "the name of a charset this JVM has (\"UTF-8\", \"ISO-8859-1\"...), or nil"
    :doc (str "The charset to decode parameters with; nil takes the request's Content-Type charset, "
              "or UTF-8 (also when that names a charset the JVM does not have).")}
   {:key :keywords?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: keys of :params that read as keywords become keywords, as ring-core's "
              "wrap-keyword-params makes them; :query-params and :form-params keep strings.")}])

(def json-body-table
  "Options of `onager.middleware/wrap-json-body`. See `onager.options`."
  [{:key :into
    :default :body-params
    :valid? #{:body-params :body}
    :allowed "one of :body-params, :body"
    :doc (str "The request key the parsed body goes to: :body-params (as muuntaja puts it), or :body in "
              "place of the stream (as ring-json's wrap-json-body does).")}
   {:key :keywords?
    :default true
    :valid? boolean?
    :allowed "true or false"
    :doc "True: object keys become keywords; false: strings."}
   (assoc json-options/key-fn-spec
          :doc "A function of each object key (a string) that returns the key to use; wins over :keywords?.")
   {:key :bigdecimals?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc "True: numbers with a fraction or exponent become BigDecimals; false: doubles."}
   {:key :max-bytes
    :default 1048576
    :default-doc "1048576 (1 MiB)"
    :valid? #(and (int? %) (pos? %))
    :allowed "a positive integer (bytes)"
    :doc (str "Largest JSON body this takes: a larger one gets 413 without being read further. The "
              "server's :max-body still applies under it.")}
   {:key :other-types
    :default :reject
    :valid? #{:reject :pass}
    :allowed "one of :reject, :pass"
    :doc (str "What a request with a body that is not JSON (by its Content-Type) gets: :reject answers 415 "
              "Unsupported Media Type; :pass hands it on untouched, for apps that take forms too.")}
   {:key :on-error
    :default nil
    :default-doc "nil (a JSON error)"
    :valid? #(or (nil? %) (and (ifn? %) (not (coll? %))))
    :allowed "a function (fn [request {:keys [status message]}] response), or nil"
    :doc (str "Makes the response to a body it refuses: status 400 (malformed JSON), 413 (too large) or "
              "415 (not JSON), with a message saying why. nil answers {\"error\": message} as JSON.")}])

(def json-response-table
  "Options of `onager.middleware/wrap-json-response`. See `onager.options`."
  [{:key :pretty?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc "True: indent the JSON by two spaces, one value per line."}
   (assoc json-options/key-fn-spec
          :doc "A function of each map key that returns the name to write; nil writes keys as they are.")
   {:key :escape-non-ascii?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc "True: write every character beyond ASCII as a \\uXXXX escape."}
   {:key :content-type
    :default "application/json; charset=utf-8"
    :valid? #(and (string? %) (seq %) (every? (fn [c] (<= 0x20 (int c) 0x7e)) %))
    :allowed "a non-empty string of printable ASCII"
    :doc "The Content-Type of a JSON response whose handler set none."}
   {:key :negotiate?
    :default true
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: a request whose Accept header refuses application/json (no range matches it, or "
              "the most specific one that does has q=0) gets 406 Not Acceptable instead of JSON.")}
   {:key :not-acceptable
    :default nil
    :default-doc "nil (a plain-text 406)"
    :valid? #(or (nil? %) (and (ifn? %) (not (coll? %))))
    :allowed "a function (fn [request] response), or nil"
    :doc (str "With :negotiate?, makes the response to a request whose Accept header refuses JSON, "
              "in place of the plain-text 406; a map, vector or set body in it is written as JSON "
              "all the same.")}])
