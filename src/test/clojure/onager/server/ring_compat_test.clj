(ns onager.server.ring-compat-test
  "ring-core 1.8 middleware and compojure 1.6 routes run unchanged on Onager.

  Every case starts the same handler on ring-jetty-adapter 1.8 (Jetty 9.4, the
  reference) and on Onager, side by side in this JVM, runs the same requests
  against both, and checks that both answer alike (status, body, the headers
  that matter) and as expected, so that it fails too when both are wrong the
  same way. Onager runs in several handler modes, sync and async; ring-jetty
  runs the same handler with :async? when the case is async."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [compojure.core :as compojure :refer [ANY GET POST]]
            [compojure.route :as route]
            [onager.server :as server]
            [onager.test-support :as ts]
            [ring.adapter.jetty :as jetty]
            [ring.middleware.content-type :refer [wrap-content-type]]
            [ring.middleware.cookies :refer [wrap-cookies]]
            [ring.middleware.file :refer [wrap-file]]
            [ring.middleware.keyword-params :refer [wrap-keyword-params]]
            [ring.middleware.multipart-params :refer [wrap-multipart-params]]
            [ring.middleware.nested-params :refer [wrap-nested-params]]
            [ring.middleware.not-modified :refer [wrap-not-modified]]
            [ring.middleware.params :refer [wrap-params]]
            [ring.middleware.resource :refer [wrap-resource]]
            [ring.middleware.session :refer [wrap-session]]
            [ring.middleware.session.cookie :refer [cookie-store]]
            [ring.util.response :as response]
            [ring.util.time :as ring-time])
  (:import [java.io ByteArrayOutputStream File]
           [java.net Socket SocketTimeoutException]
           [java.nio.charset StandardCharsets]
           [java.nio.file Files]
           [java.security MessageDigest]
           [java.util Date HexFormat]
           [org.eclipse.jetty.server Server ServerConnector]
           [org.eclipse.jetty.util.log AbstractLogger Log StdErrLog]))

(set! *warn-on-reflection* true)

;; ---- the two servers ----

(def ^:private modes
  "The Onager handler modes each case runs in. Async ones run on ring-jetty
  with :async? too."
  [{}
   {:handler-mode :event-loop}
   {:handler-mode :worker}
   {:async? true}
   {:handler-mode :virtual :async? true}])

(defn- mode-name [{:keys [handler-mode async?]}]
  (str (if handler-mode (name handler-mode) "default") (if async? " async" " sync")))

(defn- quiet-jetty!
  "Jetty logs every start and stop at INFO, and it starts dozens of times here:
  warnings only, for the loggers there are and those to come."
  []
  (.setProperty (Log/getProperties) "org.eclipse.jetty.LEVEL" "WARN")
  (doseq [logger (vals (Log/getLoggers))]
    (when (instance? StdErrLog logger)
      (.setLevel ^StdErrLog logger AbstractLogger/LEVEL_WARN))))

(defn- start-jetty ^Server [handler async?]
  (quiet-jetty!)
  (jetty/run-jetty handler {:port 0 :join? false :host "127.0.0.1" :async? (boolean async?)}))

(defn- jetty-port [^Server jetty]
  (.getLocalPort ^ServerConnector (first (.getConnectors jetty))))

(defn- with-both
  "Starts `handler` on ring-jetty and on Onager in `mode` and returns
  (f jetty-port onager-port), stopping both after."
  [handler mode f]
  (let [jetty (start-jetty handler (:async? mode))]
    (try
      (ts/with-server [s handler (merge {:vertx @ts/shared-vertx} mode)]
        (f (jetty-port jetty) (server/port s)))
      (finally (.stop jetty)))))

(defn- assert-same
  "Asserts that ring-jetty's result `jetty` equals Onager's `onager`, request by
  request when both are vectors of responses."
  [jetty onager]
  (if (and (vector? jetty) (vector? onager) (= (count jetty) (count onager)))
    (doseq [i (range (count jetty))]
      (is (= (jetty i) (onager i))
          (str "ring-jetty (expected) and Onager (actual) answer request " i " differently")))
    (is (= jetty onager) "ring-jetty (expected) and Onager (actual) answer differently")))

(defmacro ^:private side-by-side
  "For each mode: starts `handler` on both servers, runs (scenario port) against
  each, asserts both results are equal, then runs `body` with `result` bound to
  Onager's result (for the expected values)."
  [[result handler scenario] & body]
  `(let [handler# ~handler
         scenario# ~scenario]
     (doseq [m# modes]
       (testing (mode-name m#)
         (let [[jetty# onager#] (with-both handler# m# (fn [jp# op#] [(scenario# jp#) (scenario# op#)]))]
           (assert-same jetty# onager#)
           (let [~result onager#] ~@body))))))

(defn- both-arities
  "A handler with both Ring arities computing its response with `f`; the async
  one answers from another thread."
  [f]
  (fn
    ([request] (f request))
    ([request respond raise]
     (let [r (try {:ok (f request)} (catch Throwable t {:error t}))]
       (Thread/startVirtualThread
        (fn [] (if-let [t (:error r)] (raise t) (respond (:ok r)))))))))

(defn- edn-response [x]
  {:status 200 :headers {"Content-Type" "application/edn; charset=utf-8"} :body (pr-str x)})

;; ---- clients ----

(defn- http
  "Sends a request to 127.0.0.1:`port` with ts/request (options as there)."
  ([port path] (http port path {}))
  ([port path opts] (ts/request (str "http://127.0.0.1:" port path) opts)))

(defn- normalize-content-type
  "Jetty's servlet response re-renders Content-Type without the space after ';'
  (\"text/html;charset=utf-8\"); the space is optional whitespace (RFC 9110), so
  both spellings are the same header."
  [^String v]
  (str/replace v #";\s+" ";"))

(defn- view
  "What is compared of a response: status, body and the headers `names`
  (absent ones left out). Date and Server differ by nature and are never
  compared; neither is Content-Length unless asked, as Jetty sends String
  bodies chunked where Onager knows their length."
  [response & names]
  {:status (:status response)
   :body (:body response)
   :headers (into {}
                  (keep (fn [n]
                          (when-let [v (get-in response [:headers n])]
                            [n (if (= n "content-type") (mapv normalize-content-type v) v)])))
                  names)})

(defn- read-edn [response]
  (edn/read-string (:body response)))

(defn- read-all
  "What `socket` receives until it closes or is silent for 5 s, as UTF-8."
  [^Socket socket]
  (let [in (.getInputStream socket)
        received (ByteArrayOutputStream.)
        buf (byte-array 8192)]
    (loop []
      (let [n (try (.read in buf) (catch SocketTimeoutException _ -1))]
        (when (pos? n) (.write received buf 0 n) (recur))))
    (String. (.toByteArray received) StandardCharsets/UTF_8)))

(defn- raw
  "Sends a GET of `target` (as is: no client normalizes it), with the header
  lines `headers` and Connection: close, to 127.0.0.1:`port`; returns
  everything sent back."
  ([port target] (raw port target ""))
  ([port target headers]
   (with-open [socket (Socket. "127.0.0.1" (int port))]
     (.setSoTimeout socket 5000)
     (let [out (.getOutputStream socket)]
       (.write out (.getBytes (str "GET " target " HTTP/1.1\r\nHost: 127.0.0.1\r\n" headers
                                   "Connection: close\r\n\r\n")
                              StandardCharsets/ISO_8859_1))
       (.flush out)
       (read-all socket)))))

(defn- post-expecting-continue
  "POSTs `body` to `path` as curl does large uploads: the headers with Expect:
  100-continue, then the body only once the interim response came. Returns
  [the interim response, the final response]."
  [port path content-type ^bytes body]
  (with-open [socket (Socket. "127.0.0.1" (int port))]
    (.setSoTimeout socket 5000)
    (let [out (.getOutputStream socket)
          in (.getInputStream socket)]
      (.write out (.getBytes (str "POST " path " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: " content-type
                                  "\r\nContent-Length: " (alength body)
                                  "\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n")
                             StandardCharsets/ISO_8859_1))
      (.flush out)
      (let [interim (loop [acc ""]
                      (if (str/ends-with? acc "\r\n\r\n")
                        acc
                        (let [b (try (.read in) (catch SocketTimeoutException _ -1))]
                          (if (neg? b) acc (recur (str acc (char b)))))))]
        (.write out body)
        (.flush out)
        [interim (read-all socket)]))))

(defn- raw-body
  "The body of a raw response delimited by its length or by the close."
  [^String text]
  (second (str/split text #"\r\n\r\n" 2)))

(defn- status-of [raw-text]
  (some-> (re-find #"^HTTP/1\.[01] (\d{3}) " raw-text) second parse-long))

;; ---- wrap-params ----

(def ^:private params-app
  (wrap-params (both-arities (fn [r] (edn-response (select-keys r [:query-params :form-params :params]))))))

(defn- stream [^String s]
  (java.io.ByteArrayInputStream. (.getBytes s StandardCharsets/UTF_8)))

(deftest params
  (side-by-side [[query form latin1 not-form chunked]
                 params-app
                 (fn [port]
                   (mapv #(view % "content-type")
                         [(http port "/p?a=1&b=x+y&a=2&c=&d=%E2%82%AC&e=a%26b%3Dc")
                          (http port "/p?q=from-query"
                                {:method :post
                                 :headers {"Content-Type" "application/x-www-form-urlencoded"}
                                 :body "name=Ann+Lee&tag=a&tag=b&tag=c&u=%C3%BC%E2%82%AC"})
                          (http port "/p"
                                {:method :post
                                 :headers {"Content-Type" "application/x-www-form-urlencoded; charset=ISO-8859-1"}
                                 :body "u=%FC"})
                          (http port "/p?x=1"
                                {:method :post :headers {"Content-Type" "text/plain"} :body "y=2"})
                          ;; an InputStream body: the client sends it chunked
                          (http port "/p"
                                {:method :post
                                 :headers {"Content-Type" "application/x-www-form-urlencoded"}
                                 :body (stream "k=v1&k=v2&z=%E2%82%AC")})]))]
    (is (= {"content-type" ["application/edn;charset=utf-8"]} (:headers query)))
    (testing "query string: decoded, repeated keys become a vector"
      (is (= {:query-params {"a" ["1" "2"] "b" "x y" "c" "" "d" "€" "e" "a&b=c"}
              :form-params {}
              :params {"a" ["1" "2"] "b" "x y" "c" "" "d" "€" "e" "a&b=c"}}
             (read-edn query))))
    (testing "urlencoded form body (UTF-8 by default), merged with the query"
      (is (= {:query-params {"q" "from-query"}
              :form-params {"name" "Ann Lee" "tag" ["a" "b" "c"] "u" "ü€"}
              :params {"q" "from-query" "name" "Ann Lee" "tag" ["a" "b" "c"] "u" "ü€"}}
             (read-edn form))))
    (testing "the form's charset from its Content-Type"
      (is (= {"u" "ü"} (:form-params (read-edn latin1)))))
    (testing "a body that is not a form is not parsed"
      (is (= {:query-params {"x" "1"} :form-params {} :params {"x" "1"}} (read-edn not-form))))
    (testing "a chunked form body"
      (is (= {"k" ["v1" "v2"] "z" "€"} (:form-params (read-edn chunked)))))))

;; ---- wrap-keyword-params and wrap-nested-params ----

(def ^:private keyword-app
  (-> (both-arities (fn [r] (edn-response (:params r))))
      wrap-keyword-params
      wrap-nested-params
      wrap-params))

(deftest keyword-params
  (side-by-side [[flat nested]
                 keyword-app
                 (fn [port]
                   (mapv view
                         [(http port "/k?a=1&b-c=2&1x=3&ns/k=4")
                          (http port "/k"
                                {:method :post
                                 :headers {"Content-Type" "application/x-www-form-urlencoded"}
                                 :body "user[name]=ann&user[langs][]=clj&user[langs][]=java"})]))]
    (testing "keys that are valid keywords become keywords, the others stay strings"
      (is (= {:a "1" :b-c "2" "1x" "3" "ns/k" "4"} (read-edn flat))))
    (testing "nested params from a form, then keywords all the way down"
      (is (= {:user {:name "ann" :langs ["clj" "java"]}} (read-edn nested))))))

;; ---- wrap-cookies ----

(def ^:private cookies-app
  (wrap-cookies
   (both-arities
    (fn [r]
      (assoc (edn-response (:cookies r))
             :cookies (array-map "plain" "v1"
                                 "spaced" {:value "v 2; x" :path "/p" :http-only true :max-age 60}
                                 "strict" {:value "s" :secure true :same-site :strict :domain "127.0.0.1"}))))))

(deftest cookies
  (side-by-side [[one two]
                 cookies-app
                 (fn [port]
                   [(view (http port "/c" {:headers {"Cookie" "a=1; b=hello%20world; c=\"quoted\""}})
                          "set-cookie")
                    ;; two Cookie lines (the JDK client would join them): Jetty
                    ;; joins them with "," and Onager with "; " (Ring 1.11);
                    ;; ring-core 1.8 reads either
                    (let [text (raw port "/c" "Cookie: x=1\r\nCookie: y=2\r\n")]
                      [(status-of text) (raw-body text)])])]
    (testing "request cookies are parsed and decoded"
      (is (= {"a" {:value "1"} "b" {:value "hello world"} "c" {:value "quoted"}} (read-edn one))))
    (testing "from two Cookie lines"
      (is (= [200 {"x" {:value "1"} "y" {:value "2"}}] [(first two) (edn/read-string (second two))])))
    (testing "one Set-Cookie line per response cookie, with its attributes"
      (is (= ["plain=v1"
              "spaced=v+2%3B+x;Path=/p;HttpOnly;Max-Age=60"
              "strict=s;Secure;SameSite=Strict;Domain=127.0.0.1"]
             (get-in one [:headers "set-cookie"])))
      (is (= 200 (:status one))))))

;; ---- wrap-session with the cookie store ----

(def ^:private session-key (.getBytes "0123456789abcdef" StandardCharsets/US_ASCII))

(def ^:private session-app
  (wrap-session
   (both-arities
    (fn [r]
      (if (= "/logout" (:uri r))
        {:status 200 :headers {} :body "bye" :session nil}
        (let [n (inc (get-in r [:session :count] 0))]
          {:status 200 :headers {"Content-Type" "text/plain"} :body (str "visit " n)
           :session {:count n}}))))
   {:store (cookie-store {:key session-key}) :cookie-name "sid"}))

(defn- session-cookie
  "The sid=... pair of a response's Set-Cookie, for the next request."
  [response]
  (some #(re-find #"^sid=[^;]*" %) (get-in response [:headers "set-cookie"])))

(defn- without-value
  "A Set-Cookie header without the cookie value, which is encrypted with a
  random IV and so differs every time."
  [response]
  (mapv #(str/replace % #"^sid=[^;]*" "sid=…") (get-in response [:headers "set-cookie"])))

(defn- forge
  "A sid=... pair with the sealed data of `cookie-a` and the HMAC of
  `cookie-b`: well-formed, but not signed by the key."
  [cookie-a cookie-b]
  (str (first (str/split cookie-a #"--")) "--" (second (str/split cookie-b #"--"))))

(defn- visit [port cookie]
  (http port "/" (if cookie {:headers {"Cookie" cookie}} {})))

(deftest session
  (side-by-side [visits
                 session-app
                 (fn [port]
                   (let [r1 (visit port nil)
                         r2 (visit port (session-cookie r1))
                         r3 (visit port (session-cookie r2))
                         fresh (visit port nil)
                         forged (visit port (forge (session-cookie r3) (session-cookie r1)))
                         out (http port "/logout" {:headers {"Cookie" (session-cookie r3)}})
                         after (visit port (session-cookie out))]
                     (mapv (fn [r] [(:status r) (:body r) (without-value r)])
                           [r1 r2 r3 fresh forged out after])))]
    (testing "a counter kept in the session survives across requests carrying the cookie"
      (is (= [[200 "visit 1" ["sid=…;Path=/;HttpOnly"]]
              [200 "visit 2" ["sid=…;Path=/;HttpOnly"]]
              [200 "visit 3" ["sid=…;Path=/;HttpOnly"]]
              [200 "visit 1" ["sid=…;Path=/;HttpOnly"]]]
             (subvec visits 0 4))))
    (testing "a forged cookie starts a new session"
      (is (= "visit 1" (get-in visits [4 1]))))
    (testing "a nil :session ends it: the cookie store answers with a cookie holding no session"
      (is (= [[200 "bye" ["sid=…;Path=/;HttpOnly"]]
              [200 "visit 1" ["sid=…;Path=/;HttpOnly"]]]
             (subvec visits 5 7))))))

(deftest session-moves-between-servers
  (testing "the cookie store is the same on both: a session started on one continues on the other"
    (doseq [mode modes]
      (testing (mode-name mode)
        (with-both session-app mode
          (fn [jp op]
            (let [r1 (visit jp nil)
                  r2 (visit op (session-cookie r1))
                  r3 (visit jp (session-cookie r2))
                  r4 (visit op (session-cookie r3))]
              (is (= ["visit 1" "visit 2" "visit 3" "visit 4"] (mapv :body [r1 r2 r3 r4]))))))))))

;; ---- wrap-multipart-params ----

(defn- multipart-body
  "A multipart/form-data body of `parts`: maps of :name, :content (a string or
  bytes) and, for file parts, :filename and :content-type."
  ^bytes [boundary parts]
  (let [out (ByteArrayOutputStream.)
        w (fn [^String s] (let [b (.getBytes s StandardCharsets/UTF_8)] (.write out b 0 (alength b))))]
    (doseq [{:keys [name filename content-type content]} parts]
      (w (str "--" boundary "\r\n"))
      (w (str "Content-Disposition: form-data; name=\"" name "\""
              (when filename (str "; filename=\"" filename "\"")) "\r\n"))
      (when content-type (w (str "Content-Type: " content-type "\r\n")))
      (w "\r\n")
      (if (string? content) (w content) (.write out ^bytes content 0 (alength ^bytes content)))
      (w "\r\n"))
    (w (str "--" boundary "--\r\n"))
    (.toByteArray out)))

(defn- sha-256 [^bytes b]
  (.formatHex (HexFormat/of) (.digest (MessageDigest/getInstance "SHA-256") b)))

(def ^:private boundary "----OnagerBoundary7MA4YWxkTrZu0gW")

(def ^:private upload-bytes
  "100 000 bytes with every byte value, and a line that starts like the
  boundary without being it."
  (let [b (byte-array 100000)]
    (dotimes [i (alength b)]
      (aset b i (unchecked-byte (+ (* i 7) (quot i 256)))))
    (let [fake (.getBytes (str "\r\n--" (subs boundary 0 20) "\r\n") StandardCharsets/US_ASCII)]
      (System/arraycopy fake 0 b 5000 (alength fake)))
    b))

(defn- describe-file
  "What the handler sees of an uploaded file; it deletes the temp file after
  (ring's store would an hour later)."
  [{:keys [filename content-type size tempfile]}]
  (let [^File f tempfile
        content (Files/readAllBytes (.toPath f))]
    (try
      {:filename filename :content-type content-type :size size :exists (.isFile f) :length (.length f)
       :sha-256 (sha-256 content)
       :text (when (= "text/plain" content-type) (String. content StandardCharsets/UTF_8))}
      (finally (.delete f)))))

(def ^:private multipart-app
  (-> (both-arities
       (fn [r]
         (let [p (:params r)]
           (edn-response {:title (get p "title") :tag (get p "tag") :q (get p "q")
                          :upload (describe-file (get p "upload"))
                          :notes (describe-file (get p "notes"))}))))
      wrap-multipart-params
      wrap-params))

(deftest multipart-params
  (let [body (multipart-body boundary
                             [{:name "title" :content "Grüße €"}
                              {:name "upload" :filename "data.bin" :content-type "application/octet-stream"
                               :content upload-bytes}
                              {:name "tag" :content "a"}
                              {:name "notes" :filename "notes.txt" :content-type "text/plain"
                               :content "line 1\r\nline 2 é\n"}
                              {:name "tag" :content "b"}])]
    (side-by-side [responses
                   multipart-app
                   (fn [port]
                     ;; the same body with a Content-Length, then as an
                     ;; InputStream, which the client sends chunked
                     (vec (for [b [body (java.io.ByteArrayInputStream. body)]]
                            (view (http port "/upload?q=1"
                                        {:method :post
                                         :headers {"Content-Type" (str "multipart/form-data; boundary=" boundary)}
                                         :body b})))))]
      (doseq [[how r] (map vector ["with a Content-Length" "chunked"] responses)]
        (testing how
          (is (= 200 (:status r)) (:body r))
          (let [m (read-edn r)]
            (testing "text fields (UTF-8), repeated ones as a vector, with the query params"
              (is (= {:title "Grüße €" :tag ["a" "b"] :q "1"} (select-keys m [:title :tag :q]))))
            (testing "the binary file part lands whole in a temp file"
              (is (= {:filename "data.bin" :content-type "application/octet-stream" :size 100000
                      :exists true :length 100000 :sha-256 (sha-256 upload-bytes) :text nil}
                     (:upload m))))
            (testing "the text file part"
              (is (= {:filename "notes.txt" :content-type "text/plain" :size 18 :exists true :length 18
                      :text "line 1\r\nline 2 é\n"}
                     (dissoc (:notes m) :sha-256))))))))
    (testing "with Expect: 100-continue, as curl sends large uploads"
      (doseq [mode modes]
        (testing (mode-name mode)
          (with-both multipart-app mode
            (fn [jp op]
              (let [send #(post-expecting-continue % "/upload?q=2" (str "multipart/form-data; boundary=" boundary) body)
                    [j-interim j-final] (send jp)
                    [o-interim o-final] (send op)]
                (is (= "HTTP/1.1 100 Continue\r\n\r\n" j-interim o-interim))
                (is (= [200 200] [(status-of j-final) (status-of o-final)]) o-final)
                (is (= (raw-body j-final) (raw-body o-final)))
                (is (= {:q "2" :size 100000 :sha-256 (sha-256 upload-bytes)}
                       (let [m (edn/read-string (raw-body o-final))]
                         {:q (:q m) :size (get-in m [:upload :size]) :sha-256 (get-in m [:upload :sha-256])})))))))))))

;; ---- wrap-file, wrap-content-type, wrap-not-modified ----

(defn- delete-tree [^File f]
  (when (.isDirectory f) (run! delete-tree (.listFiles f)))
  (.delete f))

(def ^:private mtime
  "2020-01-02T03:04:05Z, the files' last-modified time."
  1577934245000)

(defn- write-file [^File dir path ^String content]
  (let [f (io/file dir path)]
    (io/make-parents f)
    (spit f content :encoding "UTF-8")
    (.setLastModified f mtime)
    f))

(def ^:private big-bytes
  "3 MiB and a bit, to be sent in many pieces."
  (let [b (byte-array (+ (* 3 1024 1024) 17))]
    (.nextBytes (java.util.Random. 42) b)
    b))

(defn- static-app [root]
  (-> (both-arities (fn [r]
                      (if (= "/etag" (:uri r))
                        {:status 200 :headers {"ETag" "\"v1\"" "Content-Type" "text/plain"} :body "tagged"}
                        {:status 404 :headers {"Content-Type" "text/plain"} :body "not found"})))
      (wrap-file (str root))
      wrap-content-type
      wrap-not-modified))

(deftest static-files
  (let [top (.toFile (Files/createTempDirectory "onager-compat" (make-array java.nio.file.attribute.FileAttribute 0)))
        root (io/file top "root")
        last-modified (ring-time/format-date (Date. (long mtime)))]
    (try
      (write-file root "hello.txt" "hello, file €\n")
      (write-file root "index.html" "<h1>index</h1>")
      (write-file root "sub/data.json" "{\"a\": 1}")
      (write-file root "with space é.txt" "spaced")
      (write-file top "secret.txt" "TOP SECRET")
      (let [big (io/file root "big.bin")]
        (Files/write (.toPath big) ^bytes big-bytes ^"[Ljava.nio.file.OpenOption;" (make-array java.nio.file.OpenOption 0)))
      (side-by-side [[hello index json missing not-modified modified head post etag-hit etag-miss spaced big]
                     (static-app root)
                     (fn [port]
                       ;; Content-Length is compared where ring sets it (files,
                       ;; 304); for the handler's String bodies Jetty sends
                       ;; chunked where Onager counts the bytes: both are right.
                       (let [file #(view % "content-type" "content-length" "last-modified" "etag")
                             other #(view % "content-type" "last-modified" "etag")]
                         [(file (http port "/hello.txt"))
                          (file (http port "/"))
                          (file (http port "/sub/data.json"))
                          (other (http port "/missing.txt"))
                          (file (http port "/hello.txt" {:headers {"If-Modified-Since" last-modified}}))
                          (file (http port "/hello.txt" {:headers {"If-Modified-Since" "Wed, 01 Jan 2020 00:00:00 GMT"}}))
                          (file (http port "/hello.txt" {:method :head}))
                          (other (http port "/hello.txt" {:method :post}))
                          (file (http port "/etag" {:headers {"If-None-Match" "\"v1\""}}))
                          (other (http port "/etag" {:headers {"If-None-Match" "\"v0\""}}))
                          (file (http port "/with%20space%20%C3%A9.txt"))
                          (let [r (http port "/big.bin" {:as :bytes})]
                            (assoc (file r) :body [(alength ^bytes (:body r)) (sha-256 (:body r))]))]))]
        (testing "a file, with its type, length and date"
          (is (= {:status 200 :body "hello, file €\n"
                  :headers {"content-type" ["text/plain"] "content-length" ["16"]
                            "last-modified" [last-modified]}}
                 hello)))
        (testing "the index file of a directory (typed by the URI \"/\", so octet-stream)"
          (is (= {:status 200 :body "<h1>index</h1>"
                  :headers {"content-type" ["application/octet-stream"] "content-length" ["14"]
                            "last-modified" [last-modified]}}
                 index)))
        (testing "a file in a subdirectory"
          (is (= [200 "{\"a\": 1}" ["application/json"]]
                 [(:status json) (:body json) (get-in json [:headers "content-type"])])))
        (testing "a missing file falls through to the handler"
          (is (= [404 "not found"] [(:status missing) (:body missing)])))
        (testing "If-Modified-Since: 304 without a body when not modified, the file when modified"
          (is (= [304 "" ["0"]]
                 [(:status not-modified) (:body not-modified) (get-in not-modified [:headers "content-length"])]))
          (is (= [200 "hello, file €\n"] [(:status modified) (:body modified)])))
        (testing "HEAD: the headers without the body"
          (is (= {:status 200 :body ""
                  :headers {"content-type" ["text/plain"] "content-length" ["16"]
                            "last-modified" [last-modified]}}
                 head)))
        (testing "only GET and HEAD serve files"
          (is (= [404 "not found"] [(:status post) (:body post)])))
        (testing "a percent-encoded file name"
          (is (= [200 "spaced" ["6"]] [(:status spaced) (:body spaced) (get-in spaced [:headers "content-length"])])))
        (testing "a large file, whole"
          (is (= {:status 200 :body [(alength ^bytes big-bytes) (sha-256 big-bytes)]
                  :headers {"content-type" ["application/octet-stream"]
                            "content-length" [(str (alength ^bytes big-bytes))]
                            "last-modified" [(ring-time/format-date (Date. (.lastModified (io/file root "big.bin"))))]}}
                 big)))
        (testing "If-None-Match"
          (is (= [304 ""] [(:status etag-hit) (:body etag-hit)]))
          (is (= [200 "tagged" ["\"v1\""]] [(:status etag-miss) (:body etag-miss)
                                          (get-in etag-miss [:headers "etag"])]))))
      (testing "no path traversal out of the root"
        (doseq [mode modes]
          (testing (mode-name mode)
            (with-both (static-app root) mode
              (fn [jp op]
                (doseq [target ["/../secret.txt" "/%2e%2e/secret.txt" "/sub/../../secret.txt"
                                "/sub/..%2f..%2fsecret.txt" "/..%5csecret.txt"]]
                  (testing target
                    (let [j (raw jp target)
                          o (raw op target)]
                      (is (not (str/includes? j "TOP SECRET")) j)
                      (is (not (str/includes? o "TOP SECRET")) o)
                      ;; Jetty refuses such targets itself (400, "ambiguous" or
                      ;; non-canonical paths) before ring-servlet sees them;
                      ;; Onager gives them to the handler, where wrap-file finds
                      ;; they leave the root and lets the handler answer 404.
                      ;; Both refuse; only who refuses differs.
                      (is (contains? #{400 404} (status-of j)) j)
                      (is (= 404 (status-of o)) o)
                      (is (str/ends-with? o "\r\n\r\nnot found") o))))
                (testing "an encoded NUL in the path"
                  ;; Jetty refuses it (400). Onager passes the path as sent, as
                  ;; :uri must be; wrap-file decodes it and java.io.File throws
                  ;; on the NUL ("Invalid file path"), so the handler fails and
                  ;; Onager answers 500 (today), without details, and goes on.
                  (let [j (raw jp "/hello.txt%00")
                        o (raw op "/hello.txt%00")]
                    (is (= 400 (status-of j)) j)
                    (is (contains? #{400 500} (status-of o)) o)
                    (is (not (str/includes? o "Exception")) o)
                    (is (= 200 (status-of (raw op "/hello.txt")))))))))))
      (finally (delete-tree top)))))

;; ---- wrap-resource ----

(defn- resource-app [loader]
  (-> (both-arities (fn [_] {:status 404 :headers {"Content-Type" "text/plain"} :body "no resource"}))
      ;; from a directory through `loader`: File bodies
      (wrap-resource "public" {:loader loader})
      ;; from ring-core.jar through the thread's context class loader, as
      ;; apps usually do: InputStream bodies
      (wrap-resource "ring/middleware")
      wrap-content-type
      wrap-not-modified))

(deftest resources
  (let [dir (.toFile (Files/createTempDirectory "onager-compat" (make-array java.nio.file.attribute.FileAttribute 0)))
        loader (java.net.URLClassLoader. (into-array java.net.URL [(.toURL (.toURI dir))]) nil)
        jar-entry (io/resource "ring/middleware/params.clj")
        jar-text (slurp jar-entry :encoding "UTF-8")]
    (try
      (write-file dir "public/css/site.css" "body { color: red }")
      (side-by-side [[from-jar jar-dir missing from-dir]
                     (resource-app loader)
                     (fn [port]
                       ;; Content-Length only where ring sets it (see static-files)
                       (let [resource #(view % "content-type" "content-length")
                             other #(view % "content-type")]
                         [(resource (http port "/params.clj"))
                          (other (http port "/session"))
                          (other (http port "/nope.clj"))
                          (resource (http port "/css/site.css"))]))]
        (testing "an entry of a jar on the class path, streamed from the jar"
          (is (= [200 jar-text [(str (count (.getBytes ^String jar-text StandardCharsets/UTF_8)))]]
                 [(:status from-jar) (:body from-jar) (get-in from-jar [:headers "content-length"])])))
        (testing "a directory of the jar is not served"
          (is (= [404 "no resource"] [(:status jar-dir) (:body jar-dir)])))
        (testing "a missing resource falls through"
          (is (= [404 "no resource"] [(:status missing) (:body missing)])))
        (testing "a resource in a directory of a class loader"
          (is (= {:status 200 :body "body { color: red }"
                  :headers {"content-type" ["text/css"] "content-length" ["19"]}}
                 from-dir))))
      (finally (.close loader) (delete-tree dir)))))

;; ---- compojure ----

(def ^:private compojure-app
  (-> (compojure/routes
       (GET "/" [] "home")
       (GET "/users/:id" [id] (str "user " id))
       (GET ["/double/:n" :n #"[0-9]+"] [n] (str (* 2 (parse-long n))))
       (compojure/context "/api/:version" [version]
         (GET "/items" [q limit] (edn-response {:version version :q q :limit limit}))
         (POST "/items" [name]
           {:status 201 :headers {"Location" (str "/api/" version "/items/" name)} :body (str "created " name)}))
       (POST "/echo" {body :body} (str "echo: " (slurp body :encoding "UTF-8")))
       (ANY "/method" {m :request-method} (name m))
       (GET "/redirect" [] (response/redirect "/users/7"))
       (route/not-found "nothing here"))
      wrap-keyword-params
      wrap-params))

(deftest compojure-routes
  (side-by-side [[home user user-utf8 dbl dbl-bad items created echo put delete redirect head missing]
                 compojure-app
                 (fn [port]
                   (mapv #(view % "content-type" "location")
                         [(http port "/")
                          (http port "/users/42")
                          (http port "/users/J%C3%BCrgen")
                          (http port "/double/21")
                          (http port "/double/x")
                          (http port "/api/v2/items?q=hat&limit=10")
                          (http port "/api/v3/items"
                                {:method :post
                                 :headers {"Content-Type" "application/x-www-form-urlencoded"}
                                 :body "name=cap"})
                          (http port "/echo" {:method :post :body "hé €"})
                          (http port "/method" {:method :put})
                          (http port "/method" {:method :delete})
                          (http port "/redirect")
                          (http port "/users/5" {:method :head})
                          (http port "/nowhere/at/all")]))]
    (testing "string bodies become text/html"
      (is (= {:status 200 :body "home" :headers {"content-type" ["text/html;charset=utf-8"]}} home)))
    (testing "route params, URL-decoded"
      (is (= [200 "user 42"] [(:status user) (:body user)]))
      (is (= [200 "user Jürgen"] [(:status user-utf8) (:body user-utf8)])))
    (testing "route params with a regex"
      (is (= [200 "42"] [(:status dbl) (:body dbl)]))
      (is (= [404 "nothing here"] [(:status dbl-bad) (:body dbl-bad)])))
    (testing "context with a param, and query params"
      (is (= [200 {:version "v2" :q "hat" :limit "10"}] [(:status items) (read-edn items)])))
    (testing "POST with a form body"
      (is (= {:status 201 :body "created cap" :headers {"location" ["/api/v3/items/cap"]}} created)))
    (testing "POST reading the raw body"
      (is (= [200 "echo: hé €"] [(:status echo) (:body echo)])))
    (testing "ANY route sees the method"
      (is (= ["put" "delete"] [(:body put) (:body delete)])))
    (testing "redirect"
      (is (= [302 ["/users/7"]] [(:status redirect) (get-in redirect [:headers "location"])])))
    (testing "HEAD on a GET route: the status without the body"
      (is (= [200 ""] [(:status head) (:body head)])))
    (testing "not-found"
      (is (= {:status 404 :body "nothing here" :headers {"content-type" ["text/html;charset=utf-8"]}}
             missing)))))
