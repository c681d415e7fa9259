(ns onager.server.big-body-test
  "1 GiB uploads and downloads through a demo server running in its own JVM with
  a 64 MiB heap: the bodies stream, they are never held whole, and every byte
  arrives (checked by length and CRC-32)."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing use-fixtures]]
            [onager.test-jvm :as jvm]
            [onager.test-support :as ts])
  (:import [java.io BufferedInputStream InputStream]
           [java.net Socket]
           [java.net URI]
           [java.net.http HttpRequest HttpRequest$BodyPublishers HttpResponse$BodyHandlers]
           [java.time Duration]
           [java.util.zip CRC32]))

(def ^:private gib (* 1024 1024 1024))

;; The demo's /download bytes: the byte at offset k is (a + k mod 26).
(def ^:private ^"[B" pattern (byte-array (map #(+ 97 (mod % 26)) (range (* 26 2048)))))

(defn- pattern-crc
  "CRC-32 of the first `size` bytes of the pattern."
  [^long size]
  (let [crc (CRC32.)
        block (- (alength pattern) 26)]
    (loop [k 0]
      (when (< k size)
        (let [n (min block (- size k))]
          (.update crc pattern (int (mod k 26)) (int n))
          (recur (+ k n)))))
    (.getValue crc)))

(defn- pattern-stream
  "An InputStream of the first `size` pattern bytes, made as read."
  ^InputStream [^long size]
  (let [pos (volatile! 0)]
    (proxy [InputStream] []
      (read
        ([] (throw (UnsupportedOperationException.)))
        ([^bytes buf off len]
         (let [k (long @pos)
               n (min (long len) (- size k) (- (alength pattern) 26))]
           (if (<= n 0)
             -1
             (do (System/arraycopy pattern (mod k 26) buf off n)
                 (vreset! pos (+ k n))
                 (int n)))))))))

(def ^:private ^:dynamic *demo* nil)

(defn- with-demo [f]
  (let [demo (jvm/start ["-Xmx64m" "-XX:+UseSerialGC"] 'onager.demo "--port" "0" "--max-body" (str (* 2 gib)))]
    (try (binding [*demo* demo] (f))
         (finally (jvm/stop demo)))))

(use-fixtures :once with-demo)

(defn- url [path] (str "http://127.0.0.1:" (:port *demo*) path))

(defn- download
  "GETs `path` and returns [status bytes crc] of its body, read as it streams."
  [path]
  (let [response (.send ts/client
                        (-> (HttpRequest/newBuilder (URI. (url path))) (.timeout (Duration/ofMinutes 5)) (.build))
                        (HttpResponse$BodyHandlers/ofInputStream))
        crc (CRC32.)
        buf (byte-array 65536)]
    (with-open [^InputStream in (.body response)]
      (loop [total 0]
        (let [n (.read in buf)]
          (if (neg? n)
            [(.statusCode response) total (.getValue crc)]
            (do (.update crc buf 0 n) (recur (+ total n)))))))))

(defn- read-line-crlf
  "One header line of an HTTP response, without its CRLF."
  [^InputStream in]
  (let [sb (StringBuilder.)]
    (loop []
      (let [c (.read in)]
        (cond
          (neg? c) (str sb)
          (= c 10) (str/replace (str sb) #"\r$" "")
          :else (do (.append sb (char c)) (recur)))))))

(defn- alive-without-oom? []
  (and (.isAlive ^Process (:process *demo*))
       (not (str/includes? (jvm/log-text *demo*) "OutOfMemoryError"))))

(def ^:private expected-crc (delay (pattern-crc gib)))

(deftest download-an-input-stream-body
  (is (= [200 gib @expected-crc] (download (str "/download?size=" gib))))
  (is (alive-without-oom?)))

(deftest download-a-lazy-seq-body
  (is (= [200 gib @expected-crc] (download (str "/download?as=seq&size=" gib))))
  (is (alive-without-oom?)))

(deftest upload-a-streamed-request-body
  (let [response (.send ts/client
                        (-> (HttpRequest/newBuilder (URI. (url "/upload")))
                            (.timeout (Duration/ofMinutes 5))
                            (.POST (HttpRequest$BodyPublishers/fromPublisher
                                    (HttpRequest$BodyPublishers/ofInputStream #(pattern-stream gib))
                                    gib))
                            (.build))
                        (HttpResponse$BodyHandlers/ofString))]
    (is (= 200 (.statusCode response)))
    (is (= (str gib " bytes, crc32 " (Long/toHexString @expected-crc) "\n") (.body response))))
  (is (alive-without-oom?)))

(deftest echo-streams-both-ways
  (testing "256 MiB in and out at once: the request body is read while the response is sent"
    ;; A raw socket, written and read at the same time: the JDK client reads no
    ;; response before it has sent the whole request, so with it no server that
    ;; holds less than the body in memory could echo it.
    (with-open [socket (Socket. "127.0.0.1" (int (:port *demo*)))]
      (let [size (* 256 1024 1024)
            out (.getOutputStream socket)
            writer (future
                     (.write out (.getBytes (str "POST /echo HTTP/1.0\r\nContent-Length: " size "\r\n\r\n")))
                     (let [in (pattern-stream size)
                           buf (byte-array 65536)]
                       (loop []
                         (let [n (.read in buf 0 (alength buf))]
                           (when (pos? n) (.write out buf 0 n) (recur)))))
                     (.flush out))
            in (BufferedInputStream. (.getInputStream socket))
            head (loop [lines []]
                   (let [line (read-line-crlf in)]
                     (if (empty? line) lines (recur (conj lines line)))))
            crc (CRC32.)
            buf (byte-array 65536)
            total (loop [total 0]
                    (let [n (.read in buf)]
                      (if (neg? n) total (do (.update crc buf 0 n) (recur (+ total n))))))]
        @writer
        (is (str/starts-with? (first head) "HTTP/1.0 200"))
        (is (= [size (pattern-crc size)] [total (.getValue crc)]))
        (is (alive-without-oom?))))))
