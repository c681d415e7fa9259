(ns onager.server.proxy-protocol-test
  "The PROXY protocol (:proxy-protocol?): a connection begins with a v1 or v2
  header whose source address is then :remote-addr; one without a valid header
  is closed. From raw sockets, on both listeners, and behind a real HAProxy
  (Debian's) with send-proxy-v2 and send-proxy."
  (:require [clojure.edn :as edn]
            [clojure.java.io :as io]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.client-support :refer [await-listening free-port]]
            [onager.server :as server]
            [onager.test-support :as ts]
            [onager.tls :as tls])
  (:import [java.io ByteArrayOutputStream File]
           [java.net InetAddress Socket]
           [java.nio ByteBuffer]
           [java.nio.charset StandardCharsets]
           [java.nio.file Files]
           [java.nio.file.attribute FileAttribute]
           [java.util.concurrent TimeUnit]
           [javax.net.ssl SSLContext SSLSocket TrustManager X509TrustManager]))

(set! *warn-on-reflection* true)

(defn- echo
  "Answers [:remote-addr :scheme] as EDN."
  [request]
  {:status 200 :headers {"Content-Type" "application/edn"} :body (pr-str [(:remote-addr request) (:scheme request)])})

(defn- ascii ^bytes [^String s] (.getBytes s StandardCharsets/ISO_8859_1))

(def ^:private get-close (ascii "GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))

(defn- concat-bytes ^bytes [& parts]
  (let [out (ByteArrayOutputStream.)]
    (doseq [^bytes p parts] (.write out p))
    (.toByteArray out)))

(def ^:private v2-signature
  (byte-array (map unchecked-byte [0x0D 0x0A 0x0D 0x0A 0x00 0x0D 0x0A 0x51 0x55 0x49 0x54 0x0A])))

(defn- v2-header
  "A PROXY protocol v2 header: PROXY of TCP from `src` to `dst` (both IPv4 or both
  IPv6 address strings), or LOCAL when `src` is nil."
  ^bytes [src dst]
  (if (nil? src)
    (concat-bytes v2-signature (byte-array [(unchecked-byte 0x20) 0 0 0]))
    (let [s (.getAddress (InetAddress/getByName src))
          d (.getAddress (InetAddress/getByName dst))
          v6? (= 16 (alength s))
          body (doto (ByteBuffer/allocate (+ (* 2 (alength s)) 4))
                 (.put s) (.put d) (.putShort (unchecked-short 56324)) (.putShort (short 443)))]
      (concat-bytes v2-signature
                    (byte-array [(unchecked-byte 0x21) (unchecked-byte (if v6? 0x21 0x11)) 0 (+ (* 2 (alength s)) 4)])
                    (.array body)))))

(defn- temp-dir ^File [prefix]
  (.toFile (Files/createTempDirectory prefix (make-array FileAttribute 0))))

(defn- body-of [text]
  (edn/read-string (second (re-find #"(?s)\r\n\r\n(.*)$" text))))

(defn- send-raw
  "Sends `bytes` to `s`'s clear-text port; {:text :closed?}."
  [s ^bytes bytes]
  (ts/raw s bytes {:quiet-ms 3000}))

(deftest headers-v1-and-v2
  (ts/each-combo [s echo {:proxy-protocol? true}]
    (testing "v1, TCP4"
      (let [{:keys [text]} (send-raw s (concat-bytes (ascii "PROXY TCP4 203.0.113.7 127.0.0.1 56324 8080\r\n") get-close))]
        (is (= ["203.0.113.7" :http] (body-of text)) text)))
    (testing "v1, TCP6"
      (let [{:keys [text]} (send-raw s (concat-bytes (ascii "PROXY TCP6 2001:db8::7 ::1 56324 8080\r\n") get-close))]
        (is (= ["2001:db8:0:0:0:0:0:7" :http] (body-of text)) text)))
    (testing "v2, IPv4"
      (let [{:keys [text]} (send-raw s (concat-bytes (v2-header "198.51.100.4" "127.0.0.1") get-close))]
        (is (= ["198.51.100.4" :http] (body-of text)) text)))
    (testing "v2, IPv6"
      (let [{:keys [text]} (send-raw s (concat-bytes (v2-header "2001:db8::9" "::1") get-close))]
        (is (= ["2001:db8:0:0:0:0:0:9" :http] (body-of text)) text)))
    (testing "v2 LOCAL (a proxy's own health check): the socket's address"
      (let [{:keys [text]} (send-raw s (concat-bytes (v2-header nil nil) get-close))]
        (is (= ["127.0.0.1" :http] (body-of text)) text)))
    (testing "v1 UNKNOWN: the socket's address"
      (let [{:keys [text]} (send-raw s (concat-bytes (ascii "PROXY UNKNOWN\r\n") get-close))]
        (is (= ["127.0.0.1" :http] (body-of text)) text)))))

(deftest the-header-comes-once-per-connection
  (ts/with-server [s echo {:proxy-protocol? true}]
    (with-open [socket (ts/connect s)]
      (ts/send! socket (str "PROXY TCP4 203.0.113.7 127.0.0.1 56324 8080\r\n"
                            "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
      (let [{:keys [text]} (ts/read-all socket)]
        (is (= [200 200] (ts/statuses text)) text)
        (is (= 2 (count (re-seq #"\"203\.0\.113\.7\"" text))) text)))
    (testing "the header may arrive in pieces"
      (with-open [socket (ts/connect s)]
        (ts/send! socket "PROXY TCP4 203.0")
        (Thread/sleep 100)
        (ts/send! socket ".113.8 127.0.0.1 56324 8080\r\nGET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        (is (= ["203.0.113.8" :http] (body-of (:text (ts/read-all socket)))))))))

(deftest missing-or-malformed-headers-close-the-connection
  (ts/with-server [s echo {:proxy-protocol? true :header-timeout-ms 1000}]
    (doseq [[what bytes] [["no header: a plain request" get-close]
                          ["v1 with a bad address" (concat-bytes (ascii "PROXY TCP4 203.0.113 127.0.0.1 1 2\r\n") get-close)]
                          ["v1 with a bad port" (concat-bytes (ascii "PROXY TCP4 203.0.113.7 127.0.0.1 99999 2\r\n") get-close)]
                          ["v1 too long" (concat-bytes (ascii (str "PROXY TCP4 " (apply str (repeat 200 "1")) "\r\n")) get-close)]
                          ["v2 of a bad version" (concat-bytes v2-signature (byte-array [(unchecked-byte 0x31) 0x11 0 12])
                                                               (byte-array 12) get-close)]]]
      (testing what
        (let [records (ts/capture-logs {:until #(seq (ts/logged % :message #"PROXY protocol"))}
                                       #(is (= {:text "" :closed? true} (send-raw s bytes))))]
          (is (seq (ts/logged records :level :debug :message #"PROXY protocol: closed")) (ts/messages records))
          (is (empty? (ts/loud records)) (ts/messages records)))))
    (testing "a header that never comes: closed after :header-timeout-ms"
      (let [records (ts/capture-logs {:until #(seq (ts/logged % :message #"PROXY protocol"))}
                                     #(with-open [socket (ts/connect s)]
                                        (ts/send! socket "PROX")
                                        (let [{:keys [text closed?]} (ts/read-all socket)]
                                          (is (= "" text))
                                          (is closed?))))]
        (is (seq (ts/logged records :level :debug :message #"PROXY protocol: .* sent no header within :header-timeout-ms"))
            (ts/messages records))
        (is (empty? (ts/loud records)) (ts/messages records))))))

(defn- trust-all ^SSLContext []
  (doto (SSLContext/getInstance "TLS")
    (.init nil (into-array TrustManager [(reify X509TrustManager
                                          (checkClientTrusted [_ _ _])
                                          (checkServerTrusted [_ _ _])
                                          (getAcceptedIssuers [_] (make-array java.security.cert.X509Certificate 0)))])
           nil)))

(deftest the-header-comes-before-the-tls-handshake
  (let [dir (temp-dir "onager-proxy-tls")]
    (ts/with-server [s echo (merge {:proxy-protocol? true :ssl-port 0} (tls/self-signed {:dir dir}))]
      (with-open [plain (Socket. "127.0.0.1" (int (server/ssl-port s)))]
        (.write (.getOutputStream plain) ^bytes (v2-header "192.0.2.33" "127.0.0.1"))
        (let [tls ^SSLSocket (.createSocket (.getSocketFactory (trust-all)) plain "localhost"
                                            (int (server/ssl-port s)) true)]
          (.setSoTimeout tls 15000)
          (.write (.getOutputStream tls) ^bytes get-close)
          (let [text (String. (.readAllBytes (.getInputStream tls)) StandardCharsets/ISO_8859_1)]
            (is (= ["192.0.2.33" :https] (body-of text)) text)))))))

(deftest the-proxy-protocols-address-is-the-peer-for-trusted-proxies
  (ts/with-server [s echo {:proxy-protocol? true :trusted-proxies ["10.0.0.0/8"]}]
    (let [xff (ascii "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.7\r\nConnection: close\r\n\r\n")]
      (testing "a trusted proxy behind the PROXY header: its X-Forwarded-For counts"
        (is (= ["203.0.113.7" :http]
               (body-of (:text (send-raw s (concat-bytes (ascii "PROXY TCP4 10.1.1.1 127.0.0.1 1 2\r\n") xff)))))))
      (testing "a client the PROXY header names: its X-Forwarded-For is only a header"
        (is (= ["198.51.100.2" :http]
               (body-of (:text (send-raw s (concat-bytes (ascii "PROXY TCP4 198.51.100.2 127.0.0.1 1 2\r\n") xff))))))))))

(deftest off-by-default
  (ts/with-server [s echo {}]
    (testing "a PROXY header is then a bad request line"
      (let [header (ascii "PROXY TCP4 203.0.113.7 127.0.0.1 1 2\r\n")]
        (is (= [400] (ts/statuses (:text (send-raw s (concat-bytes header get-close))))))))))

(deftest without-the-decoder-start-names-the-artifact
  (let [java (-> (java.lang.ProcessHandle/current) .info .command .get)
        classpath (->> (str/split (System/getProperty "java.class.path") (re-pattern File/pathSeparator))
                       (remove #(str/includes? % "netty-codec-haproxy"))
                       (str/join File/pathSeparator))
        code (str "(require 'onager.server)"
                  "(try (onager.server/start (fn [_] {:status 200}) {:host \"127.0.0.1\" :port 0 :proxy-protocol? true})"
                  "  (println \"started\")"
                  "  (catch clojure.lang.ExceptionInfo e (prn (ex-message e) (ex-data e))))"
                  "(shutdown-agents)")
        {:keys [out err exit]} (shell/sh java "-cp" classpath "clojure.main" "-e" code)]
    (is (zero? exit) err)
    (is (str/includes? out ":proxy-protocol? true needs io.netty/netty-codec-haproxy") out)
    (is (str/includes? out ":onager/error :missing-dependency") out)
    (is (str/includes? out ":artifact \"io.netty/netty-codec-haproxy\"") out)))

;; ---- behind HAProxy ----

(defn- haproxy-binary
  "The haproxy executable (Debian installs it in /usr/sbin, often not on a user's PATH), or nil."
  []
  (or (some #(let [f (io/file % "haproxy")] (when (.canExecute f) (.getPath f)))
            (concat (str/split (or (System/getenv "PATH") "") #":") ["/usr/sbin" "/sbin"]))
      nil))

(defn- haproxy-config [v2-port v1-port h2-port tls-port onager-port onager-tls-port]
  (str "global\n  maxconn 100\n  log stdout format raw local0 debug\n"
       "defaults\n  mode http\n  log global\n  option httplog\n"
       "  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\n"
       "frontend v2\n  bind 127.0.0.1:" v2-port "\n  default_backend onager-v2\n"
       "frontend v1\n  bind 127.0.0.1:" v1-port "\n  default_backend onager-v1\n"
       "frontend h2\n  bind 127.0.0.1:" h2-port "\n  default_backend onager-h2\n"
       "frontend tls\n  mode tcp\n  bind 127.0.0.1:" tls-port "\n  default_backend onager-tls\n"
       "backend onager-v2\n  option httpchk GET /health/ready\n"
       "  server onager 127.0.0.1:" onager-port " send-proxy-v2 check inter 200ms\n"
       "backend onager-v1\n  server onager 127.0.0.1:" onager-port " send-proxy\n"
       "backend onager-h2\n  server onager 127.0.0.1:" onager-port " send-proxy-v2 proto h2\n"
       "backend onager-tls\n  mode tcp\n  server onager 127.0.0.1:" onager-tls-port " send-proxy-v2\n"))

(defn- request-from
  "A request for `path` through `port` from the local address `from`: the response's text."
  [port from path]
  (with-open [socket (Socket. "127.0.0.1" (int port) (InetAddress/getByName ^String from) 0)]
    (.setSoTimeout socket 15000)
    (.write (.getOutputStream socket) (ascii (str "GET " path " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")))
    (String. (.readAllBytes (.getInputStream socket)) StandardCharsets/ISO_8859_1)))

(deftest behind-haproxy
  (if-let [haproxy (haproxy-binary)]
    (let [seen (atom [])
          handler (fn [request]
                    (swap! seen conj [(:uri request) (:remote-addr request) (:protocol request)])
                    (echo request))]
      (ts/with-server [s handler (merge {:proxy-protocol? true :ssl-port 0}
                                         (tls/self-signed {:dir (temp-dir "onager-haproxy-tls")}))]
        (let [dir (temp-dir "onager-haproxy")
              v2-port (free-port)
              tls-port (free-port)
              v1-port (free-port)
              h2-port (free-port)
              conf (io/file dir "haproxy.cfg")
              out (io/file dir "out.log")
              _ (spit conf (haproxy-config v2-port v1-port h2-port tls-port (server/port s) (server/ssl-port s)))
              process (-> (ProcessBuilder. ^java.util.List (vector haproxy "-db" "-f" (.getPath conf)))
                          (.redirectErrorStream true)
                          (.redirectOutput out)
                          (.start))]
          (try
            (doseq [port [v2-port v1-port h2-port tls-port]]
              (await-listening port process #(str "haproxy did not start:\n" (slurp out))))
            ;; The client connects from 127.0.0.2; HAProxy reaches Onager from 127.0.0.1.
            (testing "send-proxy-v2"
              (let [text (request-from v2-port "127.0.0.2" "/v2")]
                (is (= ["127.0.0.2" :http] (body-of text)) text)))
            (testing "send-proxy (v1)"
              (let [text (request-from v1-port "127.0.0.3" "/v1")]
                (is (= ["127.0.0.3" :http] (body-of text)) text)))
            (testing "send-proxy-v2 then HTTP/2 (h2c) to Onager"
              (let [text (request-from h2-port "127.0.0.4" "/h2")]
                (is (= ["127.0.0.4" :http] (body-of text)) (str text (slurp out)))
                (is (some #(= ["/h2" "127.0.0.4" "HTTP/2.0"] %) @seen) (pr-str @seen))))
            (testing "send-proxy-v2 in TCP mode, TLS passed through to :ssl-port"
              (with-open [plain (Socket. "127.0.0.1" (int tls-port) (InetAddress/getByName "127.0.0.5") 0)]
                (let [tls ^SSLSocket (.createSocket (.getSocketFactory (trust-all)) plain "localhost" (int tls-port) true)]
                  (.setSoTimeout tls 15000)
                  (.write (.getOutputStream tls) ^bytes get-close)
                  (let [text (String. (.readAllBytes (.getInputStream tls)) StandardCharsets/ISO_8859_1)]
                    (is (= ["127.0.0.5" :https] (body-of text)) (str text (slurp out)))))))
            (testing "the example configuration is one HAProxy takes"
              (let [{:keys [exit out err]} (shell/sh haproxy "-c" "-f" "examples/deploy/haproxy.cfg")]
                (is (zero? exit) (str out err))))
            (testing "HAProxy's health checks, PROXY v2 LOCAL, reach the handler from HAProxy's own address"
              (let [deadline (+ (System/currentTimeMillis) 10000)]
                (while (and (not-any? #(= "/health/ready" (first %)) @seen) (< (System/currentTimeMillis) deadline))
                  (Thread/sleep 50)))
              (is (some #(= ["/health/ready" "127.0.0.1"] (take 2 %)) @seen) (pr-str @seen)))
            (finally
              (.destroy process)
              (.waitFor process 10 TimeUnit/SECONDS))))))
    (if (= "true" (System/getenv "CI"))
      (is false "haproxy is not installed: scripts/install-tools test installs it")
      (clojure.test/do-report {:type :skip :message "haproxy is not installed (scripts/install-tools test installs it)"}))))
