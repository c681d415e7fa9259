(ns notes.test-app
  "What the notes tests share: the app on a free port of 127.0.0.1 with an
  in-memory database of its own, and a JDK HttpClient to talk to it."
  (:require [clojure.string :as str]
            [onager.json :as json]
            [onager.server :as server]
            [notes.main :as main])
  (:import [java.net Socket URI]
           [java.net.http HttpClient HttpRequest HttpRequest$BodyPublishers HttpResponse
            HttpResponse$BodyHandlers]
           [java.nio.charset StandardCharsets]
           [java.time Duration]
           [java.util UUID]))

(set! *warn-on-reflection* true)

(def ^:dynamic *app*
  "The running app ({:server :db}, as notes.main/start returns it) of the test."
  nil)

(defn with-app
  "A clojure.test fixture: runs the test with a fresh app in `*app*`, on an
  empty database that is gone after it."
  [test]
  (let [app (main/start {:db-url (str "jdbc:h2:mem:notes-" (UUID/randomUUID))
                         :host "127.0.0.1"
                         :port 0})]
    (try
      (binding [*app* app] (test))
      (finally (main/stop app)))))

(defn url
  "The URL of `path` on the test's app."
  [path]
  (str "http://127.0.0.1:" (server/port (:server *app*)) path))

(def ^:private ^HttpClient client
  (-> (HttpClient/newBuilder) (.connectTimeout (Duration/ofSeconds 10)) (.build)))

(defn request
  "Sends `method` (\"GET\"...) for `path` to the app, with `body` (a string)
  as JSON unless `headers` say otherwise. Returns {:status :headers :body :json}:
  headers by lower-case name, the body as text, and :json, the body parsed
  (keyword keys) when the response is JSON."
  ([method path] (request method path nil {}))
  ([method path body] (request method path body {}))
  ([method path body headers]
   (let [builder (HttpRequest/newBuilder (URI. (url path)))]
     (.timeout builder (Duration/ofSeconds 30))
     (when body (.header builder "Content-Type" "application/json"))
     (doseq [[k v] headers] (.setHeader builder k v))
     (.method builder method (if body
                               (HttpRequest$BodyPublishers/ofString body)
                               (HttpRequest$BodyPublishers/noBody)))
     (let [^HttpResponse r (.send client (.build builder) (HttpResponse$BodyHandlers/ofString))
           headers (into {} (map (fn [[k v]] [(str/lower-case k) (first v)])) (.map (.headers r)))
           text (.body r)]
       {:status (.statusCode r)
        :headers headers
        :body text
        :json (when (str/starts-with? (str (headers "content-type")) "application/json")
                (json/read text {:keywords? true}))}))))

(defn post-json
  "POSTs `data` written as JSON to `path`."
  [path data]
  (request "POST" path (json/write data)))

(defn raw-status
  "Sends `target` as the request target of a GET on a socket of its own, byte
  for byte (no client would send \"/../x\" as it is), and returns the status."
  [^String target]
  (with-open [socket (Socket. "127.0.0.1" (int (server/port (:server *app*))))]
    (.setSoTimeout socket 10000)
    (doto (.getOutputStream socket)
      (.write (.getBytes (str "GET " target " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                         StandardCharsets/ISO_8859_1))
      (.flush))
    (let [head (String. (.readNBytes (.getInputStream socket) 12) StandardCharsets/ISO_8859_1)]
      (parse-long (subs head 9 12)))))
