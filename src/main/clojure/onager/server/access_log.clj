(ns onager.server.access-log
  "The access log's options (:access-log, :request-id-header) of
  `onager.server/start`: what they take, and :access-log's full form, which the
  kernel reads (onager.kernel.log.AccessFormat). doc/logging.md shows them."
  (:require [clojure.string :as str]))

(set! *warn-on-reflection* true)

(def fields
  "The fields a line can have, in the order a :json line has them by default."
  [:time :remote-addr :method :uri :protocol :status :bytes-sent :duration-ms :user-agent :referer :request-id
   :aborted])

(def secret-headers
  "Request headers that carry credentials: never logged, never taken as a request id."
  #{"authorization" "proxy-authorization" "cookie" "set-cookie"})

(def ^:private defaults
  {:fields {:common [] :combined [] :json fields}
   :logger "onager.access"
   :queue-size 8192})

(defn- token?
  "True for an RFC 9110 §5.6.2 token: what a header name is."
  [s]
  (and (string? s) (boolean (re-matches #"[!#$%&'*+\-.^_`|~0-9A-Za-z]+" s))))

(defn header-name?
  "True when `s` names a request header the access log or a request id may
  read: a token that is none of `secret-headers`, in any case."
  [s]
  (and (token? s) (not (secret-headers (str/lower-case s)))))

(defn- field? [f]
  (or (some #{f} fields) (header-name? f)))

(defn valid?
  "True for what :access-log takes: nil, :common, :combined or :json, or a map
  with :format one of those and optional :fields, :logger and :queue-size."
  [v]
  (or (nil? v)
      (contains? (:fields defaults) v)
      (and (map? v)
           (contains? (:fields defaults) (:format v))
           (every? #{:format :fields :logger :queue-size} (keys v))
           (or (not (contains? v :fields)) (and (sequential? (:fields v)) (every? field? (:fields v))))
           (or (not (contains? v :logger)) (and (string? (:logger v)) (not (str/blank? (:logger v)))))
           (or (not (contains? v :queue-size)) (and (int? (:queue-size v)) (<= 16 (:queue-size v) 1048576))))))

(def allowed
  "What :access-log takes, in words."
  (str "nil, :common, :combined, :json, or a map {:format (one of those) :fields [...] :logger \"name\" "
       ":queue-size n}: :fields of " (str/join " " fields) " or request header names (\"x-forwarded-for\"), "
       "but never " (str/join ", " (sort secret-headers)) "; :logger a non-empty string; :queue-size an "
       "integer from 16 to 1048576"))

(defn full
  "The full form of the :access-log value `v` (valid): a map with :format,
  :fields, :logger and :queue-size, the defaults filled in; nil for nil."
  [v]
  (when v
    (let [m (if (map? v) v {:format v})]
      (merge {:fields (get-in defaults [:fields (:format m)])
              :logger (:logger defaults)
              :queue-size (:queue-size defaults)}
             m))))
