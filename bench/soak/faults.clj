(ns soak.faults
  "The soak's misbehaving clients, run beside wrk: connections that go away
  mid-upload, mid-download and while the handler runs, requests that are
  malformed, heads that never end, and handlers that throw. Run:
  java -cp CLASSPATH clojure.main bench/soak/faults.clj PORT SECONDS
  Prints a map of what was done, and how many of the answers were the expected ones."
  (:import [java.io IOException InputStream]
           [java.net Socket]
           [java.nio.charset StandardCharsets]))

(set! *warn-on-reflection* true)

(defn- connect ^Socket [port]
  (doto (Socket. "127.0.0.1" (int port)) (.setSoTimeout 10000)))

(defn- send! [^Socket s ^String text]
  (doto (.getOutputStream s) (.write (.getBytes text StandardCharsets/ISO_8859_1)) (.flush)))

(defn- status [^Socket s]
  (let [in (.getInputStream s)
        line (String. (.readNBytes in 12) StandardCharsets/ISO_8859_1)]
    (some-> (re-find #"HTTP/1\.[01] (\d{3})" line) second parse-long)))

(def ^:private actions
  "Each: [name, (fn [port] -> true when the server answered as it must)]."
  [[:mid-upload (fn [port]
                  (with-open [s (connect port)]
                    (send! s "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1048576\r\n\r\n")
                    (send! s (apply str (repeat 10000 "u")))
                    true))]
   [:mid-download (fn [port]
                    (with-open [s (connect port)]
                      (send! s "GET /download?size=104857600 HTTP/1.1\r\nHost: x\r\n\r\n")
                      (= 65536 (count (.readNBytes (.getInputStream s) 65536)))))]
   [:while-handler-runs (fn [port]
                          (with-open [s (connect port)]
                            (send! s "GET /sleep?ms=50 HTTP/1.1\r\nHost: x\r\n\r\n")
                            true))]
   [:malformed (fn [port]
                 (with-open [s (connect port)]
                   (send! s "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
                   (= 400 (status s))))]
   [:too-large (fn [port]
                 (with-open [s (connect port)]
                   (send! s "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999\r\n\r\n")
                   (= 413 (status s))))]
   [:handler-throws (fn [port]
                      (with-open [s (connect port)]
                        (send! s "GET /fail HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                        (= 500 (status s))))]
   [:unfinished-head (fn [port]
                       (with-open [s (connect port)]
                         (send! s "GET /plaintext HTTP/1.1\r\nHost: x\r\nX-Slow: ")
                         true))]])

(defn -main [port seconds]
  (let [port (parse-long port)
        deadline (+ (System/currentTimeMillis) (* 1000 (parse-long seconds)))
        counts (atom {})]
    (loop [i 0]
      (when (< (System/currentTimeMillis) deadline)
        (let [[action f] (nth actions (mod i (count actions)))
              ok? (try (boolean (f port)) (catch IOException _ false))]
          (swap! counts update-in [action (if ok? :as-expected :otherwise)] (fnil inc 0))
          (Thread/sleep 20)
          (recur (inc i)))))
    (prn @counts)))

(apply -main *command-line-args*)
