(ns notes.validation
  "Checks what clients send before it reaches the database. Each check returns
  {:value clean-value}, or {:error message :errors {field message}} naming
  every bad field at once, as the client spelt it, so that a form can mark
  them all."
  (:require [clojure.string :as str]))

(set! *warn-on-reflection* true)

(def max-title
  "The longest title, in characters."
  200)

(def max-body
  "The longest body, in characters."
  10000)

(def ^:private note-fields #{:title :body :pinned})

(defn- text-error
  "Why `v` is not a fit string of at most `limit` characters, or nil."
  [v limit required?]
  (cond
    (not (string? v)) "must be a string"
    (and required? (str/blank? v)) "must not be blank"
    (> (count v) (long limit)) (str "must be at most " limit " characters")))

(defn- field-errors [input]
  (merge
   ;; A misspelt field ("titel") would otherwise be dropped without a word.
   (into {} (for [k (keys input) :when (not (note-fields k))] [k "is not a known field"]))
   (if (contains? input :title)
     (when-let [e (text-error (:title input) max-title true)] {:title e})
     {:title "is required"})
   (when (contains? input :body)
     (when-let [e (text-error (:body input) max-body false)] {:body e}))
   (when (and (contains? input :pinned) (not (boolean? (:pinned input))))
     {:pinned "must be true or false"})))

(defn note
  "Checks a note sent as a JSON object (keyword keys): title (required, a
  non-blank string of at most `max-title` characters), body (a string of at
  most `max-body`, default empty) and pinned (a boolean, default false), and no
  other field. The value has the title trimmed and the defaults filled in."
  [input]
  (if-not (map? input)
    {:error "The request body must be a JSON object." :errors {}}
    (if-let [errors (not-empty (field-errors input))]
      {:error "Invalid note." :errors errors}
      {:value {:title (str/trim (:title input))
               :body (:body input "")
               :pinned (:pinned input false)}})))

(def ^:private default-limit 50)
(def ^:private most-limit 100)

(defn- integer-param
  "[value error] for the query parameter `v`: a string of digits within
  [low, high], or nil for `default`."
  [v default low high]
  (cond
    (nil? v) [default nil]
    (not (string? v)) [nil "must be given once"]
    :else (let [n (when (re-matches #"\d{1,9}" v) (parse-long v))]
            (if (and n (<= (long low) (long n) (long high)))
              [n nil]
              [nil (str "must be an integer from " low " to " high)]))))

(defn list-params
  "Checks the query parameters of a listing (string keys, as wrap-params gives
  them): q (text to look for, at most `max-title` characters), limit (1 to
  100, default 50) and offset (0 or more, default 0). The value is
  {:q :limit :offset}, q nil when blank."
  [params]
  (let [q (get params "q")
        [limit limit-error] (integer-param (get params "limit") default-limit 1 most-limit)
        [offset offset-error] (integer-param (get params "offset") 0 0 Integer/MAX_VALUE)
        errors (cond-> {}
                 (and (some? q) (not (string? q))) (assoc :q "must be given once")
                 (and (string? q) (> (count q) (long max-title))) (assoc :q (str "must be at most " max-title " characters"))
                 limit-error (assoc :limit limit-error)
                 offset-error (assoc :offset offset-error))]
    (if (seq errors)
      {:error "Invalid query parameters." :errors errors}
      {:value {:q (when-not (str/blank? q) q) :limit limit :offset offset}})))
