(ns notes.static
  "Serves the files under resources/public from the class path: from the
  directory while developing (a File body, which Onager sends by sendfile),
  from the jar once packaged (a stream)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str])
  (:import [java.net URL]))

(set! *warn-on-reflection* true)

(def ^:private content-types
  ;; Only these are served: a name without a known extension (a directory, a
  ;; file dropped there by mistake) is not found rather than sent as bytes.
  {"html" "text/html; charset=utf-8"
   "css" "text/css; charset=utf-8"
   "js" "text/javascript; charset=utf-8"
   "json" "application/json"
   "svg" "image/svg+xml"
   "png" "image/png"
   "ico" "image/x-icon"
   "txt" "text/plain; charset=utf-8"})

(defn- safe-path?
  "True when `path` names a file below public/ and nothing above it."
  [^String path]
  ;; The path is the request's, still percent-encoded. No file here needs an
  ;; escape in its name, so refusing "%" leaves no encoded ".." (%2e%2e) for any
  ;; later step to decode into one.
  (every? #(not (or (str/blank? %) (= "." %) (= ".." %) (str/includes? % "%") (str/includes? % "\\")))
          (str/split path #"/" -1)))

(defn- extension [^String path]
  (let [dot (.lastIndexOf path ".")]
    (when (pos? dot) (subs path (inc dot)))))

(defn resource-response
  "The response for the file public/`path` on the class path, or nil when
  there is none that may be served."
  [^String path]
  (when-let [content-type (and (safe-path? path) (content-types (extension path)))]
    (when-let [^URL url (io/resource (str "public/" path))]
      (let [file (when (= "file" (.getProtocol url)) (io/as-file url))]
        (when (or (nil? file) (.isFile file))
          {:status 200
           :headers {"Content-Type" content-type}
           :body (or file (.openStream url))})))))
