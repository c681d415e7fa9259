(ns onager.client.options
  "The options of `onager.client/client`, and the request keys that override
  some of them: validation, defaults and documentation all come from `table`;
  `request-table` documents the request map, which the kernel checks as it
  reads it."
  (:require [onager.options :refer [int-in]]
            [onager.server.tls-options :as tls-options])
  (:import [io.vertx.core Vertx]
           [java.net CookieHandler]
           [onager.kernel.client ClientProxies]))

(set! *warn-on-reflection* true)

(def ^:private cpus (.availableProcessors (Runtime/getRuntime)))

(def ^:private max-int Integer/MAX_VALUE)

(def ^:private as-forms #{:string :bytes :byte-array :byte-buffer :stream :json :json-string-keys})

(def ^:private redirect-policies #{:none :same-origin :normal :all})

(def per-request-table
  "The client options a request map may also give, for itself. See `onager.options`."
  [{:key :connect-timeout-ms
    :default 10000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 waits as long as the system does"
    :doc (str "How long to wait for a connection (pooled or new, TLS handshake included); then the request "
              "fails with :connect-timeout.")}
   {:key :idle-timeout-ms
    :default 60000
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 disables it"
    :doc "How long the server may send nothing while a response is awaited or read; then :timeout."}
   {:key :request-timeout-ms
    :default 0
    :default-doc "0 (none)"
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647; 0 disables it"
    :doc (str "How long the whole exchange may take, redirects and the body included (a stream's too, until "
              "it ends); then :timeout.")}
   {:key :redirects
    :default :normal
    :valid? redirect-policies
    :allowed ":none, :same-origin, :normal or :all"
    :doc (str "Which redirects are followed: none; within the same scheme, host and port; any but from "
              "https to http (:normal); any. One not followed is the response. 303 (and 301 or 302 after a "
              "POST) continue with a GET; Authorization and Cookie headers do not go to another origin.")}
   {:key :max-redirects
    :default 20
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647"
    :doc "The most redirects a request follows; one more fails it with :too-many-redirects."}
   {:key :max-body
    :default (* 64 1024 1024)
    :default-doc "67108864 (64 MiB)"
    :valid? (int-in 1 max-int)
    :allowed "an integer from 1 to 2147483647 (bytes)"
    :doc (str "The largest response body read whole (every :as but :stream), decompressed; a larger one "
              "fails with :too-large and its connection is closed. A :stream has no limit unless the request "
              "gives one, its reads then failing past it.")}
   {:key :as
    :default :string
    :valid? as-forms
    :allowed ":string, :bytes (or :byte-array), :byte-buffer, :stream, :json or :json-string-keys"
    :doc (str "What the response :body is: a string (in the Content-Type's charset, else UTF-8), a byte "
              "array, a java.nio.ByteBuffer, an InputStream read as the body arrives (close it when done; "
              "closing it early drops the connection), or parsed JSON with keyword or string keys (nil "
              "for an empty body).")}
   {:key :throw-exceptions?
    :default true
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: a status that is not 2xx or 3xx fails the request with :status, the response (its body "
              "read as :as asks, a :stream's as a string) in the ex-data under :response.")}
   {:key :cookie-store
    :default nil
    :valid? #(or (nil? %) (instance? CookieHandler %))
    :allowed "a store made by `onager.client/cookie-store`, or nil"
    :doc (str "Where cookies are kept: each response's Set-Cookie goes in (redirects' too), and the cookies "
              "for a request's URL go out with it (by domain, path, secure and expiry). nil keeps none.")}
   {:key :proxy
    :default nil
    :valid? #(or (nil? %) (ClientProxies/valid %))
    :allowed (str ClientProxies/ALLOWED ", or nil")
    :doc (str "The proxy requests go through: :http (https through CONNECT, http by absolute URL), :socks5 or "
              ":socks4, with :username and :password when it asks for them.")}])

(def ^:private tls-spec
  (into {} (map (juxt :key identity)) tls-options/table))

(def ^:private client-only-table
  [{:key :max-connections
    :default 64
    :valid? (int-in 1 max-int)
    :allowed "an integer from 1 to 2147483647"
    :doc "HTTP/1.1 connections kept per origin (scheme, host, port); more requests wait for one."}
   {:key :max-http2-connections
    :default 1
    :valid? (int-in 1 max-int)
    :allowed "an integer from 1 to 2147483647"
    :doc "HTTP/2 connections per origin, each carrying as many requests at once as the server allows."}
   {:key :max-waiting
    :default 1024
    :valid? (int-in 0 max-int)
    :allowed "an integer from 0 to 2147483647"
    :doc "Requests that may wait for a connection to one origin; beyond that a request fails at once with :pool-full."}
   {:key :keep-alive-timeout-ms
    :default 60000
    :valid? (int-in 1 max-int)
    :allowed "an integer from 1 to 2147483647, rounded up to whole seconds"
    :doc "How long an unused pooled connection is kept before it is closed."}
   {:key :decompress?
    :default true
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: ask for gzip and deflate (Accept-Encoding), and br too when the application has "
              "com.aayushatharva.brotli4j (Maven Central), and decompress the response; :max-body limits what "
              "it decompresses to.")}
   {:key :http2?
    :default true
    :valid? boolean?
    :allowed "true or false"
    :doc "True: offer HTTP/2 over TLS by ALPN, the server choosing it or HTTP/1.1."}
   {:key :h2c?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc "True: speak HTTP/2 in clear text by prior knowledge (h2c) to every http:// origin."}
   {:key :max-header-size
    :default 65536
    :valid? (int-in 1024 max-int)
    :allowed "an integer from 1024 to 2147483647 (bytes)"
    :doc "The largest response head; a larger one fails the request with :invalid-response."}
   {:key :user-agent
    :default "onager"
    :valid? #(or (nil? %) (and (string? %) (seq %)))
    :allowed "a non-empty string, or nil to send none"
    :doc "The User-Agent header of requests that give none."}
   {:key :non-proxy-hosts
    :default []
    :valid? #(and (sequential? %) (every? (fn [h] (and (string? h) (seq h))) %))
    :allowed "a vector of host names or patterns (\"*.internal\")"
    :doc "The hosts reached directly, not through :proxy."}
   {:key :insecure?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: trust every server certificate and host name. Only for tests: anyone on the way can "
              "read and change the exchange.")}
   (assoc (tls-spec :ssl-ca) :doc "PEM file of the certificate authorities trusted, instead of the system's.")
   (assoc (tls-spec :truststore) :doc "PKCS #12 or JKS keystore of the trusted authorities, instead of :ssl-ca.")
   (tls-spec :trust-password)
   (assoc (tls-spec :ssl-cert) :doc "PEM file of the client's certificate for mutual TLS, its chain after it; with :ssl-key.")
   (assoc (tls-spec :ssl-key) :doc (str "PEM file of the client certificate's private key: PKCS #8 (with "
                                        ":key-password when encrypted) or PKCS #1 RSA."))
   (tls-spec :key-password)
   (assoc (tls-spec :keystore) :doc "PKCS #12 or JKS keystore of the client's certificate and key, instead of PEM files.")
   (tls-spec :keystore-type)
   {:key :event-loops
    :default cpus
    :default-doc "number of CPUs"
    :valid? (int-in 1 1024)
    :allowed "an integer from 1 to 1024"
    :doc "Event loops of the client's own Vert.x instance; ignored with :vertx."}
   {:key :vertx
    :default nil
    :valid? #(or (nil? %) (instance? Vertx %))
    :allowed "an io.vertx.core.Vertx instance, or nil"
    :doc (str "Run on this Vert.x instance (a server's: `onager.server/vertx`) instead of a new one; "
              "closing the client leaves it open.")}])

(def table
  "The client options, in the order the docs show them. See `onager.options`."
  (into per-request-table client-only-table))

(def request-table
  "The keys of a request map, in the order the docs show them; those of
  `per-request-table` too. See `onager.options`."
  [{:key :url
    :valid? string?
    :allowed "an absolute http or https URL string"
    :doc (str "Where the request goes; user:password@ in it is basic auth. Or Ring's :scheme, :server-name, "
              ":server-port, :uri and :query-string.")}
   {:key :method
    :default :get
    :valid? keyword?
    :allowed "a method keyword"
    :doc "The method: :get, :post, :put, :delete, :head, :patch, :options or another; :request-method too."}
   {:key :headers
    :valid? map?
    :allowed "a map of names (strings or keywords) to strings or sequences of them"
    :doc "Request headers; a sequence sends the header once per value."}
   {:key :query-params
    :valid? map?
    :allowed "a map of names to values or sequences of values"
    :doc "Added to the URL's query, percent-encoded (UTF-8); a sequence repeats the name."}
   {:key :form-params
    :valid? map?
    :allowed "a map of names to values or sequences of values"
    :doc "The body as application/x-www-form-urlencoded."}
   {:key :json-params
    :valid? some?
    :allowed "data onager.json writes"
    :doc "The body as JSON (Content-Type application/json)."}
   {:key :multipart
    :valid? sequential?
    :allowed "a sequence of parts {:name :content}, with :filename and :mime-type optional"
    :doc (str "The body as multipart/form-data (RFC 7578), clj-http's way: each part's :content a string, bytes, "
              "a File (its name the :filename unless given) or an InputStream; files and streams are read as "
              "it goes out.")}
   {:key :body
    :valid? some?
    :allowed "a string, bytes, a ByteBuffer, a File, an InputStream, or a sequence of strings and byte arrays"
    :doc (str "The body: a string in the Content-Type's charset (else UTF-8); a file read as it is sent; an "
              "InputStream or a (lazy) sequence streamed chunked as it is read, at the server's pace, sent "
              "once (a redirect that keeps the body is not followed).")}
   {:key :content-type
    :valid? #(or (string? %) (keyword? %))
    :allowed "a media type string, or a keyword (:json is application/json)"
    :doc "The Content-Type header."}
   {:key :accept
    :valid? #(or (string? %) (keyword? %))
    :allowed "a media type string, or a keyword (:json is application/json)"
    :doc "The Accept header."}
   {:key :basic-auth
    :valid? #(or (string? %) (and (sequential? %) (= 2 (count %))))
    :allowed "[user password] or \"user:password\""
    :doc "HTTP basic authentication (RFC 7617), in UTF-8."}
   {:key :oauth-token
    :valid? string?
    :allowed "a string"
    :doc "A bearer token (RFC 6750): Authorization: Bearer <token>."}
   {:key :async?
    :default false
    :valid? boolean?
    :allowed "true or false"
    :doc (str "True: `request` returns at once a CompletableFuture of the response (and calls respond or "
              "raise when given).")}
   {:key :client
    :valid? some?
    :allowed "a client made by `onager.client/client`"
    :doc "The client to send with, instead of the default one."}])
