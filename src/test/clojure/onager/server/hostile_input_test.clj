(ns onager.server.hostile-input-test
  "The battery: bytes no well-behaved client sends, on a raw socket, each with
  the answer it must get, in an HTTP/1.1 status line. Every case is sent on a
  new connection, must end with the connection closed, and is followed by a
  normal request on another connection that must still be served. The table
  runs against a server in each handler mode, since bodies are read
  differently in each."
  (:require [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.test-support :as ts]))

(def ^:private limits
  "Small limits, so that the cases stay short; the timeouts are short enough for
  the slow-client cases, and none is hit by a case that does not stall."
  {:max-body 1000
   :max-uri-length 200
   :max-header-size 1024
   :max-header-count 20
   :header-timeout-ms 500
   :body-timeout-ms 500
   :idle-timeout-ms 500
   :request-timeout-ms 2000})

(defn- req
  "A request with the given request line and header lines (CRLF added), a Host
  and Connection: close unless the lines say otherwise, then `body`."
  ([line] (req line [] ""))
  ([line headers] (req line headers ""))
  ([line headers body]
   (str line "\r\n"
        (when-not (some #(re-find #"(?i)^host[: ]" %) headers) "Host: example.com\r\n")
        (apply str (map #(str % "\r\n") headers))
        (when-not (some #(re-find #"(?i)^connection:" %) headers) "Connection: close\r\n")
        "\r\n" body)))

(defn- post [headers body] (req "POST /echo HTTP/1.1" headers body))
(defn- chunked [body] (post ["Transfer-Encoding: chunked"] body))
(defn- x [n] (apply str (repeat n "x")))

(def cases
  "[name, bytes sent, expected] and optionally a string the response must contain.
  Expected is the status of the one response, or a vector of the statuses of
  several (pipelined) responses; either way the connection must then be closed."
  [;; ---- the request line ----
   ["a plain GET" (req "GET /plain HTTP/1.1") 200 "saw get /plain"]
   ["empty lines before the request line are skipped (RFC 9112 §2.2)" (str "\r\n\r\n" (req "GET / HTTP/1.1")) 200]
   ["NUL before the request line (CVE-2026-50020)" (str "\u0000" (req "GET / HTTP/1.1")) 400]
   ["control character before the request line" (str "\u0001" (req "GET / HTTP/1.1")) 400]
   ["space before the request line" (str " " (req "GET / HTTP/1.1")) 400]
   ["two spaces after the method" (req "GET  / HTTP/1.1") 400]
   ["tab between method and target" (req "GET\t/ HTTP/1.1") 400]
   ["bare CR between target and version" (req "GET /\r HTTP/1.1") 400]
   ["lower-case method" (req "get / HTTP/1.1") 400]
   ["method with a character that is not a token" (req "G(T / HTTP/1.1") 400]
   ["no version (HTTP/0.9)" "GET /\r\n\r\n" 400]
   ["version in lower case" (req "GET / http/1.1") 400]
   ["garbage after the version" (req "GET / HTTP/1.1 x") 400]
   ["HTTP/2.0 in an HTTP/1 request line" (req "GET / HTTP/2.0") 505]
   ["HTTP/1.2" (req "GET / HTTP/1.2") 505]
   ["HTTP/3.0" (req "GET / HTTP/3.0") 505]
   ["HTTP/1.0 without Host is fine" "GET /old HTTP/1.0\r\n\r\n" 200 "saw get /old"]
   ["absolute-form target" (req "GET http://example.com/abs?q=1 HTTP/1.1") 200 "saw get /abs"]
   ["absolute-form target with userinfo (RFC 9110 §4.2.4)" (req "GET http://user@example.com/ HTTP/1.1") 400]
   ["absolute-form target with a port that is not a number" (req "GET http://example.com:80x/ HTTP/1.1") 400]
   ["OPTIONS *" (req "OPTIONS * HTTP/1.1") 200 "saw options *"]
   ["* with another method" (req "GET * HTTP/1.1") 400]
   ["target that is not a path" (req "GET foo HTTP/1.1") 400]
   ["authority-form target (CONNECT)" (req "CONNECT example.com:443 HTTP/1.1") 400]
   ["NUL in the target" (req "GET /a\u0000b HTTP/1.1") 400]
   ["DEL in the target" (req "GET /a\u007fb HTTP/1.1") 400]
   ["byte 0xE9 in the target" (req "GET /caf\u00e9 HTTP/1.1") 400]
   ["target longer than :max-uri-length" (req (str "GET /" (x 200) " HTTP/1.1")) 414]
   ["request line far longer than any limit" (req (str "GET /" (x 5000) " HTTP/1.1")) 414]

   ;; ---- header fields ----
   ["no Host in HTTP/1.1" (str "GET / HTTP/1.1\r\nConnection: close\r\n\r\n") 400]
   ["two Host headers" (req "GET / HTTP/1.1" ["Host: a" "Host: b"]) 400]
   ["Host with a space" (req "GET / HTTP/1.1" ["Host: a b"]) 400]
   ["Host with a path" (req "GET / HTTP/1.1" ["Host: a/b"]) 400]
   ["Host with userinfo" (req "GET / HTTP/1.1" ["Host: user@a"]) 400]
   ["two hosts in one Host" (req "GET / HTTP/1.1" ["Host: a, b"]) 400]
   ["Host with a port that is not a number" (req "GET / HTTP/1.1" ["Host: a:80x"]) 400]
   ["empty Host is allowed (RFC 9112 §3.2)" (req "GET / HTTP/1.1" ["Host:"]) 200]
   ["Host with an IPv6 literal and a port" (req "GET / HTTP/1.1" ["Host: [::1]:8080"]) 200]
   ["whitespace before the colon" (req "GET / HTTP/1.1" ["X-A : b"]) 400]
   ["tab before the colon" (req "GET / HTTP/1.1" ["X-A\t: b"]) 400]
   ["space inside a header name" (req "GET / HTTP/1.1" ["X A: b"]) 400]
   ["control character in a header name (CVE-2021-43797)" (req "GET / HTTP/1.1" ["X\u0001A: b"]) 400]
   ["non-ASCII byte in a header name" (req "GET / HTTP/1.1" ["X\u00e9: b"]) 400]
   ["empty header name" (req "GET / HTTP/1.1" [": b"]) 400]
   ["header line without a colon" (req "GET / HTTP/1.1" ["X-A"]) 400]
   ["control character in a header value" (req "GET / HTTP/1.1" ["X-A: a\u0001b"]) 400]
   ["NUL in a header value" (req "GET / HTTP/1.1" ["X-A: a\u0000b"]) 400]
   ["DEL in a header value" (req "GET / HTTP/1.1" ["X-A: a\u007fb"]) 400]
   ["bare CR in a header value" (req "GET / HTTP/1.1" ["X-A: a\rb"]) 400]
   ["obs-text (Latin-1) in a header value is allowed" (req "GET / HTTP/1.1" ["X-A: caf\u00e9"]) 200]
   ["obsolete line folding" (req "GET / HTTP/1.1" ["X-A: a" " b"]) 400]
   ["folded Transfer-Encoding (smuggling)" (post ["X-A: a" "Transfer-Encoding:" " chunked"] "0\r\n\r\n") 400]
   ["whitespace before the first header" "GET / HTTP/1.1\r\n Host: x\r\nConnection: close\r\n\r\n" 400]
   ["bare LF ending a header line" "GET / HTTP/1.1\r\nHost: x\nConnection: close\r\n\r\n" 400]
   ["bare LF ending every line" "GET / HTTP/1.1\nHost: x\nConnection: close\n\n" 400]
   ["header section over :max-header-size" (req "GET / HTTP/1.1" [(str "X-Big: " (x 2000))]) 431]
   ["more fields than :max-header-count" (req "GET / HTTP/1.1" (map #(str "X-" % ": v") (range 20))) 431]

   ;; ---- body framing ----
   ["Content-Length and Transfer-Encoding" (post ["Content-Length: 5" "Transfer-Encoding: chunked"] "5\r\nhello\r\n0\r\n\r\n") 400]
   ["Transfer-Encoding and Content-Length" (post ["Transfer-Encoding: chunked" "Content-Length: 5"] "5\r\nhello\r\n0\r\n\r\n") 400]
   ["two different Content-Lengths" (post ["Content-Length: 5" "Content-Length: 6"] "hello!") 400]
   ["the same Content-Length twice" (post ["Content-Length: 5" "Content-Length: 5"] "hello") 400]
   ["Content-Length as a list" (post ["Content-Length: 5, 5"] "hello") 400]
   ["Content-Length with a plus sign (Jetty CVE-2023-40167)" (post ["Content-Length: +5"] "hello") 400]
   ["negative Content-Length" (post ["Content-Length: -5"] "hello") 400]
   ["Content-Length that is not a number" (post ["Content-Length: five"] "hello") 400]
   ["hexadecimal Content-Length" (post ["Content-Length: 0x5"] "hello") 400]
   ["Content-Length that overflows a long" (post ["Content-Length: 99999999999999999999999"] "hello") 400]
   ["empty Content-Length" (post ["Content-Length:"] "hello") 400]
   ["Content-Length with a space inside" (post ["Content-Length: 5 5"] "hello") 400]
   ["Content-Length with leading zeros is a length" (post ["Content-Length: 005"] "hello") 200 "body=hello"]
   ["Content-Length over :max-body" (post ["Content-Length: 1001"] (x 1001)) 413]
   ["Transfer-Encoding: chunked, xchunked (CVE-2026-89044)" (post ["Transfer-Encoding: chunked, xchunked"] "5\r\nhello\r\n0\r\n\r\n") 400]
   ["Transfer-Encoding: xchunked" (post ["Transfer-Encoding: xchunked"] "5\r\nhello\r\n0\r\n\r\n") 400]
   ["Transfer-Encoding: gzip, chunked (not implemented)" (post ["Transfer-Encoding: gzip, chunked"] "5\r\nhello\r\n0\r\n\r\n") 501]
   ["Transfer-Encoding: chunked, chunked" (post ["Transfer-Encoding: chunked, chunked"] "5\r\nhello\r\n0\r\n\r\n") 400]
   ["two Transfer-Encoding: chunked lines" (post ["Transfer-Encoding: chunked" "Transfer-Encoding: chunked"] "5\r\nhello\r\n0\r\n\r\n") 400]
   ["Transfer-Encoding: identity" (post ["Transfer-Encoding: identity"] "hello") 400]
   ["Transfer-Encoding in HTTP/1.0" "POST /echo HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n" 400]
   ["Transfer-Encoding: Chunked (any case) is chunked" (post ["Transfer-Encoding: Chunked"] "5\r\nhello\r\n0\r\n\r\n") 200 "body=hello"]
   ["vertical tab after chunked" (post ["Transfer-Encoding: chunked\u000b"] "5\r\nhello\r\n0\r\n\r\n") 400]

   ;; ---- chunked bodies ----
   ["a chunked body" (chunked "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n") 200 "body=hello world"]
   ["negative chunk size" (chunked "-5\r\nhello\r\n0\r\n\r\n") 400]
   ["chunk size with a plus sign" (chunked "+5\r\nhello\r\n0\r\n\r\n") 400]
   ["chunk size that overflows" (chunked "fffffffffffffffff\r\nhello\r\n0\r\n\r\n") 400]
   ["chunk size with 0x" (chunked "0x5\r\nhello\r\n0\r\n\r\n") 400]
   ["chunk size that is not hexadecimal" (chunked "zz\r\nhello\r\n0\r\n\r\n") 400]
   ["space before the chunk size" (chunked " 5\r\nhello\r\n0\r\n\r\n") 400]
   ["empty chunk size" (chunked "\r\nhello\r\n0\r\n\r\n") 400]
   ["chunk extension" (chunked "5;name=value\r\nhello\r\n0\r\n\r\n") 200 "body=hello"]
   ["quoted chunk extension" (chunked "5;name=\"a b\"\r\nhello\r\n0\r\n\r\n") 200 "body=hello"]
   ["bare LF in a chunk extension (CVE-2025-58056)" (chunked "5;a\nhello\r\n0\r\n\r\n") 400]
   ["CRLF in a quoted chunk extension (CVE-2026-33870)" (chunked "5;a=\"b\r\nc\"\r\nhello\r\n0\r\n\r\n") 400]
   ["control character in a chunk extension" (chunked "5;a\u0001\r\nhello\r\n0\r\n\r\n") 400]
   ["chunk size line ended by a bare LF" (chunked "5\nhello\r\n0\r\n\r\n") 400]
   ["chunk data not followed by CRLF" (chunked "5\r\nhelloXX0\r\n\r\n") 400]
   ["chunk data followed by a bare LF" (chunked "5\r\nhello\n0\r\n\r\n") 400]
   ["last chunk ended by a bare LF" (chunked "5\r\nhello\r\n0\r\n\n") 400]
   ["a trailer field" (chunked "5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n") 200 "body=hello"]
   ["control character in a trailer" (chunked "5\r\nhello\r\n0\r\nX-T: a\u0001\r\n\r\n") 400]
   ["trailer line without a colon" (chunked "5\r\nhello\r\n0\r\nX-T\r\n\r\n") 400]
   ["chunked body over :max-body" (chunked (str "3e8\r\n" (x 1000) "\r\n1\r\nx\r\n0\r\n\r\n")) 413]
   ["more trailer fields than :max-header-count allows with the headers"
    (chunked (str "5\r\nhello\r\n0\r\n" (apply str (map #(str "X-T" % ": v\r\n") (range 20))) "\r\n")) 431]
   ["trailers past :max-header-size" (chunked (str "5\r\nhello\r\n0\r\nX-T: " (x 2000) "\r\n\r\n")) 431]

   ;; ---- pipelining and smuggling ----
   ["pipelined requests are answered in order, up to a bad one"
    (str (req "GET /1 HTTP/1.1" ["Connection: keep-alive"]) (req "GET /2 HTTP/1.1" ["Connection: keep-alive"])
         (req "GET /3 HTTP/1.1" ["Host: a b"]) (req "GET /4 HTTP/1.1"))
    [200 200 400]]
   ["a request hidden in a CL+TE body is never answered"
    (str (post ["Content-Length: 32" "Transfer-Encoding: chunked"] "0\r\n\r\n") (req "GET /smuggled HTTP/1.1"))
    400]

   ;; ---- slow and silent clients ----
   ["a head that never ends (slowloris): 408 after :header-timeout-ms" "GET / HTTP/1.1\r\nHost: x\r\nX-A: " 408]
   ["a body that stops arriving: 408 after :body-timeout-ms" (post ["Content-Length: 100"] "only part") 408]
   ["a keep-alive connection with no next request closes after :idle-timeout-ms"
    (req "GET / HTTP/1.1" ["Connection: keep-alive"]) 200]
   ["a handler that answers nothing: 503 after :request-timeout-ms" (req "GET /hang HTTP/1.1") 503]

   ;; ---- response headers a handler must not send ----
   ["response header value with CR LF" (req "GET /inject-crlf HTTP/1.1") 500]
   ["response header value with LF" (req "GET /inject-lf HTTP/1.1") 500]
   ["response header value with NUL" (req "GET /inject-nul HTTP/1.1") 500]
   ["response header name with CR LF" (req "GET /inject-name HTTP/1.1") 500]
   ["streamed response with CR LF in a header" (req "GET /inject-stream HTTP/1.1") 500]])

(defn- answer
  "The battery's handler, for a request whose body (if any) is there to read."
  [request]
  (case (:uri request)
    "/inject-crlf" {:status 200 :headers {"X-Evil" "a\r\nInjected: yes"} :body "x"}
    "/inject-lf" {:status 200 :headers {"X-Evil" ["fine" "a\nInjected: yes"]} :body "x"}
    "/inject-nul" {:status 200 :headers {"X-Evil" "a\u0000Injected"} :body "x"}
    "/inject-name" {:status 200 :headers {"X-Evil\r\nInjected" "yes"} :body "x"}
    "/inject-stream" {:status 200 :headers {"X-Evil" "a\r\nInjected: yes"} :body (list "x")}
    {:status 200
     :headers {"Content-Type" "text/plain"}
     :body (str "saw " (name (:request-method request)) " " (:uri request) " body=" (slurp (:body request)))}))

(defn- handlers
  "The battery's handler for each mode; /hang answers only once `release` is delivered."
  [release]
  {:virtual (fn [r] (if (= "/hang" (:uri r)) (do (deref release 30000 nil) {:status 200}) (answer r)))
   :worker (fn [r] (if (= "/hang" (:uri r)) (do (deref release 30000 nil) {:status 200}) (answer r)))
   :event-loop (fn [r respond _] (when-not (= "/hang" (:uri r)) (respond (answer r))))})

(defn- battery [mode]
  (let [release (promise)
        opts (cond-> (assoc limits :handler-mode mode :vertx @ts/shared-vertx)
               (= mode :event-loop) (assoc :async? true))]
    (ts/with-server [s ((handlers release) mode) opts]
      (try
        (doseq [[case-name bytes expected contains] cases]
          (testing (str (name mode) ": " case-name)
            (let [{:keys [text closed?]} (ts/raw s bytes {:quiet-ms 5000})]
              (is (= (if (vector? expected) expected [expected]) (ts/statuses text)) text)
              (is closed? "the connection is closed")
              ;; RFC 9110 §2.5: the highest version the server conforms to, whatever the client
              ;; sent, unless it said HTTP/1.0 (whose answers Onager sends as HTTP/1.0).
              (when-not (str/includes? bytes " HTTP/1.0\r\n")
                (is (every? #(str/starts-with? % "HTTP/1.1 ") (re-seq #"HTTP/\d\.\d \d{3} " text))
                    (str "every status line says HTTP/1.1: " text)))
              (when contains (is (str/includes? text contains) text))
              (is (not (str/includes? text "Injected")) "nothing a handler must not send reaches the wire"))
            (testing "and a normal request on a new connection is still served"
              (is (= [200 "saw get /after body="] ((juxt :status :body) (ts/request (ts/url s "/after"))))))))
        (finally (deliver release true))))))

(deftest the-battery-has-at-least-sixty-cases
  (is (>= (count cases) 60))
  (is (= (count cases) (count (set (map first cases)))) "case names are unique"))

(deftest hostile-input-virtual
  (battery :virtual))

(deftest hostile-input-worker
  (battery :worker))

(deftest hostile-input-event-loop
  (battery :event-loop))

(deftest line-folding-is-found-wherever-it-falls
  ;; A fold after values of every length up to two words, and one split across two reads of the
  ;; socket, must be found; blanks inside a value must not be taken for one.
  (ts/with-server [s (fn [_] {:status 200 :body "ok"}) (assoc limits :vertx @ts/shared-vertx)]
    (doseq [pad (range 17) blank [" " "\t"]]
      (testing (str "a fold after a value of " pad " bytes, with " (pr-str blank))
        (is (= [400] (ts/statuses (:text (ts/raw s (req "GET / HTTP/1.1" [(str "X-A: " (x pad)) (str blank "b")]))))))))
    (doseq [pad (range 9)]
      (testing (str "blanks inside a value, after " pad " bytes")
        (is (= [200] (ts/statuses (:text (ts/raw s (req "GET / HTTP/1.1" [(str "X-A: " (x pad) " \t b\t")]))))))))
    (testing "a fold whose blank comes in the next read"
      (with-open [socket (ts/connect s)]
        (ts/send! socket "GET / HTTP/1.1\r\nHost: x\r\nX-A: a\r\n")
        (Thread/sleep 200)
        (ts/send! socket " b\r\nConnection: close\r\n\r\n")
        (is (= [400] (ts/statuses (:text (ts/read-all socket)))))))))
