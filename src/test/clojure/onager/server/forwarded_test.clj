(ns onager.server.forwarded-test
  "Behind a proxy: the Forwarded (RFC 7239) and X-Forwarded-* headers tell
  :remote-addr, :scheme, :server-name and :server-port only on a connection
  from a peer in :trusted-proxies. The peer here is always 127.0.0.1; whether it
  is trusted is the option's choice."
  (:require [clojure.edn :as edn]
            [clojure.java.shell :as shell]
            [clojure.string :as str]
            [clojure.test :refer [deftest is testing]]
            [onager.server :as server]
            [onager.test-support :as ts]))

(set! *warn-on-reflection* true)

(def ^:private keys-told [:remote-addr :scheme :server-name :server-port])

(defn- echo
  "Answers the request map's values that a proxy may tell, as EDN."
  [request]
  {:status 200 :headers {"Content-Type" "application/edn"} :body (pr-str (mapv request keys-told))})

(defn- told
  "The values a request with the header lines `headers` (and Host: app.test) gets."
  [s & headers]
  (let [{:keys [text]} (ts/raw s (str "GET / HTTP/1.1\r\nHost: app.test\r\n"
                                      (str/join (map #(str % "\r\n") headers))
                                      "Connection: close\r\n\r\n"))]
    (is (= [200] (ts/statuses text)) text)
    (edn/read-string (second (re-find #"(?s)\r\n\r\n(.*)$" text)))))

(defn- socket-values [s]
  ["127.0.0.1" :http "app.test" (server/port s)])

(def ^:private spoofs
  ["X-Forwarded-For: 203.0.113.7"
   "X-Forwarded-Proto: https"
   "X-Forwarded-Host: bank.example"
   "X-Forwarded-Port: 8443"])

(deftest untrusted-peers-headers-are-ignored
  (doseq [[what opts] {"no :trusted-proxies (the default)" {}
                       "nil" {:trusted-proxies nil}
                       "empty" {:trusted-proxies []}
                       "trusted proxies that do not include the peer"
                       {:trusted-proxies ["10.0.0.0/8" "127.0.0.2" "::1" "192.168.0.0/16"]}}]
    (testing what
      (ts/with-server [s echo opts]
        (is (= (socket-values s) (apply told s spoofs)))
        (is (= (socket-values s) (told s "Forwarded: for=203.0.113.7;proto=https;host=bank.example")))))))

(deftest trusted-peer-gives-the-forwarded-values
  (ts/each-combo [s echo {:trusted-proxies ["127.0.0.1"]}]
    (testing "X-Forwarded-*"
      (is (= ["203.0.113.7" :https "bank.example" 8443] (apply told s spoofs)))
      (testing "the port the scheme implies, when the host has none and no X-Forwarded-Port"
        (is (= ["203.0.113.7" :https "bank.example" 443]
               (told s "X-Forwarded-For: 203.0.113.7" "X-Forwarded-Proto: https" "X-Forwarded-Host: bank.example"))))
      (testing "the host's own port"
        (is (= ["127.0.0.1" :http "bank.example" 8080] (told s "X-Forwarded-Host: bank.example:8080"))))
      (testing "only what is said changes"
        (is (= ["203.0.113.7" :http "app.test" (server/port s)] (told s "X-Forwarded-For: 203.0.113.7")))
        (is (= ["127.0.0.1" :https "app.test" 443] (told s "X-Forwarded-Proto: HTTPS")))))
    (testing "Forwarded"
      (is (= ["203.0.113.7" :https "bank.example" 443]
             (told s "Forwarded: for=203.0.113.7;proto=https;host=bank.example")))
      (is (= ["2001:db8:0:0:0:0:0:1" :http "bank.example" 8080]
             (told s "Forwarded: For=\"[2001:db8::1]:4711\"; Proto=http; Host=\"bank.example:8080\""))))
    (testing "Forwarded wins over X-Forwarded-*"
      (is (= ["198.51.100.1" :http "app.test" 80]
             (apply told s "Forwarded: for=198.51.100.1;proto=http" spoofs))))))

(deftest chains-of-proxies
  (ts/with-server [s echo {:trusted-proxies ["127.0.0.1" "10.0.0.0/8" "fd00::/8"]}]
    (testing "from the right, trusted hops skipped: the first untrusted is the client"
      (is (= "203.0.113.7" (first (told s "X-Forwarded-For: 198.51.100.9, 203.0.113.7, 10.1.2.3, 10.0.0.1")))))
    (testing "over several header lines"
      (is (= "203.0.113.7" (first (told s "X-Forwarded-For: 198.51.100.9, 203.0.113.7" "X-Forwarded-For: 10.0.0.1")))))
    (testing "a client's forged hop left of the client is never reached"
      (is (= "203.0.113.7" (first (told s "X-Forwarded-For: 10.9.9.9, 203.0.113.7, 10.0.0.1")))))
    (testing "every hop trusted: the leftmost"
      (is (= "10.0.0.5" (first (told s "X-Forwarded-For: 10.0.0.5, 10.0.0.1")))))
    (testing "IPv6 hops and ranges"
      (is (= "2001:db8:0:0:0:0:0:5" (first (told s "X-Forwarded-For: 2001:db8::5, fd12::1, [fd00::2]:443")))))
    (testing "IPv4 with a port"
      (is (= "203.0.113.7" (first (told s "X-Forwarded-For: 203.0.113.7:5555, 10.0.0.1")))))
    (testing "Forwarded: the element of the first untrusted hop gives proto and host too"
      (is (= ["203.0.113.7" :https "bank.example" 443]
             (told s (str "Forwarded: for=198.51.100.9;proto=http;host=evil.example, "
                          "for=203.0.113.7;proto=https;host=bank.example, for=10.0.0.2;proto=http;host=lb.internal")))))
    (testing "Forwarded over several lines, with an IPv6 range"
      (is (= "203.0.113.7" (first (told s "Forwarded: for=203.0.113.7" "Forwarded: for=\"[fd00::9]\"")))))
    (testing "Forwarded for=unknown or an obfuscated node: the element counts, its address is the socket's"
      (is (= ["127.0.0.1" :https "bank.example" 443]
             (told s "Forwarded: for=203.0.113.7, for=unknown;proto=https;host=bank.example, for=10.0.0.2")))
      (is (= "127.0.0.1" (first (told s "Forwarded: for=_hidden")))))))

(deftest malformed-values-are-ignored
  (ts/with-server [s echo {:trusted-proxies ["127.0.0.1"]}]
    (doseq [h ["X-Forwarded-For: not-an-address"
               "X-Forwarded-For: 203.0.113.7, rubbish"
               "X-Forwarded-For: 999.1.1.1"
               "X-Forwarded-For: example.com"
               "X-Forwarded-For: "
               "X-Forwarded-For: 203.0.113.7,"
               "X-Forwarded-For: [2001:db8::1"
               "X-Forwarded-For: 203.0.113.7:99999"
               "X-Forwarded-For: fe80::1%eth0"
               "X-Forwarded-Proto: gopher"
               "X-Forwarded-Host: bad host"
               "X-Forwarded-Port: 99999"
               "X-Forwarded-Port: https"
               "Forwarded: for=203.0.113.7;for=198.51.100.1"
               "Forwarded: for=[2001:db8::1]"
               "Forwarded: for=\"203.0.113.7"
               "Forwarded: for"
               "Forwarded: =x"
               "Forwarded: for=203.0.113.7 proto=https"
               "Forwarded: proto=ftp;host=\"\""
               "Forwarded: ,"
               "Forwarded: , ,"
               "Forwarded: ;"
               "Forwarded: "]]
      (testing h
        (is (= (socket-values s) (told s h)))))
    (testing "a malformed Forwarded still hides X-Forwarded-*"
      (is (= (socket-values s) (told s "Forwarded: for=\"broken" "X-Forwarded-For: 203.0.113.7"))))))

(deftest http2-requests-are-told-alike
  (ts/with-server [s echo {:trusted-proxies ["127.0.0.1"] :h2c? true}]
    (let [{:keys [out exit err]} (shell/sh "curl" "-s" "--http2-prior-knowledge" "-w" "\n%{http_version}"
                                           "-H" "X-Forwarded-For: 203.0.113.7, 127.0.0.1"
                                           "-H" "X-Forwarded-Proto: https" "-H" "X-Forwarded-Host: bank.example"
                                           (ts/url s "/"))
          [body version] (str/split-lines out)]
      (is (zero? exit) err)
      (is (= "2" version))
      (is (= ["203.0.113.7" :https "bank.example" 443] (edn/read-string body))))))

(defn- refusal [opts]
  (try (server/stop (ts/start echo opts)) nil
       (catch clojure.lang.ExceptionInfo e e)))

(deftest the-option-is-checked-at-start
  (doseq [[value why] [[["10.0.0.0/8" "10.0.0.0/33"] #"\"10\.0\.0\.0/33\" has a prefix length that is not from 0 to 32"]
                       [["::1/129"] #"\"::1/129\" has a prefix length that is not from 0 to 128"]
                       [["localhost"] #"\"localhost\" is not an IP address or a CIDR range"]
                       [["10.0.0.0/x"] #"\"10\.0\.0\.0/x\" has a prefix length"]
                       [["127.0.0.1" 42] #"the entry 42 \(Long\) is not a string"]
                       ["127.0.0.1" #"it is not a collection"]]]
    (testing (pr-str value)
      (let [e (refusal {:trusted-proxies value})]
        (is (some? e))
        (is (re-find why (str (ex-message e))) (ex-message e))
        (is (re-find #"^Invalid option :trusted-proxies .*expected a collection of IP address" (str (ex-message e))))
        (is (= {:onager/error :invalid-option :key :trusted-proxies :value value}
               (select-keys (ex-data e) [:onager/error :key :value]))))))
  (testing "ranges with host bits set mean their network"
    (ts/with-server [s echo {:trusted-proxies ["127.1.2.3/8"]}]
      (is (= "203.0.113.7" (first (told s "X-Forwarded-For: 203.0.113.7"))))))
  (testing "an IPv4-mapped IPv6 address is the IPv4 one"
    (ts/with-server [s echo {:trusted-proxies #{"::ffff:127.0.0.1"}}]
      (is (= "203.0.113.7" (first (told s "X-Forwarded-For: 203.0.113.7")))))))
