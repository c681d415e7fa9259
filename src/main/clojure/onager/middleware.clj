(ns onager.middleware
  "Ring middleware for the work most apps do on every request, done in the
  kernel: parameters (`wrap-params`), JSON request bodies (`wrap-json-body`)
  and JSON responses (`wrap-json-response`). Each takes an options map, checked
  when it wraps (a bad option throws an ex-info naming the key, the value and
  what is allowed), and works with sync and async handlers alike."
  (:require [onager.json :as json]
            [onager.middleware.options :as mw-options]
            [onager.options :as options])
  (:import [clojure.lang IFn IPersistentMap]
           [java.nio.charset Charset]
           [onager.kernel.http Accept]
           [onager.kernel.json JsonBody JsonReader JsonResponse JsonWriter RejectedBody]
           [onager.kernel.params Params]))

(set! *warn-on-reflection* true)

(defn wrap-params
  "Parses the query string, and a body of Content-Type
  application/x-www-form-urlencoded, into :query-params, :form-params and
  :params (both merged, the query string's winning), as ring-core 1.8's
  wrap-params does: string keys, a repeated key's values in a vector, decoded in
  the Content-Type's charset (UTF-8 by default), and a request that already has
  :query-params or :form-params keeps them. The options:"
  ([handler] (wrap-params handler {}))
  ([handler opts]
   (let [{:keys [encoding keywords?]} (options/validate mw-options/params-table opts)
         charset (some-> ^String encoding Charset/forName)
         keywords? (boolean keywords?)]
     (fn
       ([request] (handler (Params/assoc request charset keywords?)))
       ([request respond raise]
        (let [request (try (Params/assoc request charset keywords?)
                           (catch Throwable t (raise t) nil))]
          (when request (handler request respond raise))))))))

(alter-meta! #'wrap-params update :doc str "\n\n" (options/docstring-of mw-options/params-table))

(defn- default-error [_request {:keys [status message]}]
  {:status status
   :headers {"Content-Type" "application/json; charset=utf-8"}
   :body (json/write {:error message})})

(defn wrap-json-body
  "Parses a JSON request body (Content-Type application/json or
  application/*+json) into :body-params, streaming it, before the handler
  runs. A request without a body passes as it is. A body it cannot take gets an
  answer without the handler: 400 with a message naming line and column when
  the JSON is malformed, 415 when the body is not JSON, 413 when it is larger
  than :max-bytes. The server's :max-body holds below that: reading past it
  gets the server's 413. The options:"
  ([handler] (wrap-json-body handler {}))
  ([handler opts]
   (let [{:keys [into keywords? key-fn bigdecimals? max-bytes other-types on-error]}
         (options/validate mw-options/json-body-table opts)
         ^JsonReader reader (json/reader {:keywords? keywords? :key-fn key-fn :bigdecimals? bigdecimals?})
         on-error (or on-error default-error)
         max-bytes (long max-bytes)
         pass? (= other-types :pass)
         parse (fn [request] (JsonBody/assoc request into reader max-bytes pass?))
         refusal (fn [request ^RejectedBody e]
                   (on-error request {:status (.status e) :message (.getMessage e)}))]
     (fn
       ([request]
        (let [parsed (try (parse request) (catch RejectedBody e e))]
          (if (instance? RejectedBody parsed)
            (refusal request parsed)
            (handler parsed))))
       ([request respond raise]
        (let [parsed (try (parse request)
                          (catch RejectedBody e (respond (refusal request e)) ::answered)
                          (catch Throwable t (raise t) ::answered))]
          (when-not (identical? parsed ::answered)
            (handler parsed respond raise))))))))

(alter-meta! #'wrap-json-body update :doc str "\n\n" (options/docstring-of mw-options/json-body-table))

(defn wrap-json-response
  "Writes a response body that is a map, a vector or a set as JSON (UTF-8
  bytes), with a JSON Content-Type unless the handler set one. Other bodies
  pass as they are (a seq stays a streamed Ring body). With :negotiate?, a
  request whose Accept header refuses JSON gets 406 instead (:not-acceptable
  makes it). The options:"
  ([handler] (wrap-json-response handler {}))
  ([handler opts]
   (let [{:keys [pretty? key-fn escape-non-ascii? content-type negotiate? not-acceptable]}
         (options/validate mw-options/json-response-table opts)
         ^JsonWriter writer (json/writer {:pretty? pretty? :key-fn key-fn :escape-non-ascii? escape-non-ascii?})
         ^String content-type content-type
         ^IFn not-acceptable not-acceptable]
     (fn
       ([request]
        (JsonResponse/encode (when negotiate? request) (handler request) writer content-type not-acceptable))
       ([request respond raise]
        (handler request
                 (fn [response]
                   (let [encoded (try (JsonResponse/encode (when negotiate? request) response writer content-type
                                                          not-acceptable)
                                      (catch Throwable t (raise t) ::failed))]
                     (when-not (identical? encoded ::failed) (respond encoded))))
                 raise))))))

(alter-meta! #'wrap-json-response update :doc str "\n\n" (options/docstring-of mw-options/json-response-table))

(defn acceptable?
  "True when `request`'s Accept header takes `media-type` (\"application/json\"):
  the most specific range that matches it has a q value above 0. A request
  without Accept takes anything."
  [request ^String media-type]
  (let [slash (.indexOf media-type "/")
        accept (get-in request [:headers "accept"])]
    (pos? (Accept/quality (when (string? accept) accept)
                          (.toLowerCase (subs media-type 0 (max 0 slash)))
                          (.toLowerCase (subs media-type (inc slash)))))))
