(ns onager.client
  "Onager's HTTP client: Ring-style maps both ways, close to clj-http's.

    (require '[onager.client :as client])
    (client/get \"https://example.com/\")
    ;=> {:status 200 :headers {\"content-type\" \"text/html\" ...} :body \"<!doctype html>...\" ...}
    (client/post \"http://localhost:8080/users\" {:json-params {:name \"Ada\"} :as :json})

  A request is a map (`request`'s docstring lists its keys); the response is
  {:status :headers :body :version :url :trace-redirects}, header names in
  lower case, a repeated header's values in a vector.

  Three ways to wait:
    (client/get url)                                 blocks: cheap on a virtual thread
    (client/get url {:async? true})                  a CompletableFuture of the response
    (client/get url {} respond raise)                calls one of them, and returns the future

  respond and raise run on the client's event loop: they must not block; hand
  slow work to another thread. Errors are ex-infos with :onager/error (see
  `request`), the request and the URL in their data; a status that is not 2xx
  or 3xx is one (:status) unless :throw-exceptions? is false.

  Requests go through a default client, made at first use, unless the request
  names one with :client: `client` makes one with its own connection pools and
  options. Close it (it is Closeable: with-open works) when done."
  (:refer-clojure :exclude [get])
  (:require [onager.client.options :as client-options]
            [onager.json :as json]
            [onager.options :as option-specs])
  (:import [java.net CookieManager CookiePolicy HttpCookie]
           [java.util.concurrent CompletableFuture]
           [onager.kernel.client ClientConfig OnagerClient]))

(set! *warn-on-reflection* true)

(defn- check-tls
  "Fails unless the client's TLS options fit together: a certificate needs its key."
  [opts]
  (when (and (:ssl-cert opts) (not (:ssl-key opts)))
    (throw (ex-info "Option :ssl-cert needs :ssl-key, the file of its private key."
                    {:onager/error :invalid-option :key :ssl-key :value nil :allowed "a file path"})))
  (when (and (:ssl-cert opts) (:keystore opts))
    (throw (ex-info "Options :ssl-cert and :keystore both name the client certificate: give one."
                    {:onager/error :invalid-option :key :keystore :value (:keystore opts)
                     :allowed "nil with :ssl-cert"}))))

(defn client
  "A client with its own connection pools: give it as a request's :client, and
  close it (`close`, or with-open) when done. Bad options throw an ex-info
  naming the key, the value and what is allowed; so does a TLS file that
  cannot be used. The options (those that a request may give too, for itself,
  first):"
  (^OnagerClient [] (client {}))
  (^OnagerClient [opts]
   (let [opts (option-specs/validate client-options/table opts)]
     (check-tls opts)
     (OnagerClient/create
      (ClientConfig/from (assoc opts
                                :json-writer (json/writer {})
                                :json-keyword-reader (json/reader {:keywords? true})
                                :json-string-reader (json/reader {:keywords? false})))))))

(alter-meta! #'client update :doc str "\n\n" (option-specs/docstring-of client-options/table))

(defn close
  "Closes `client`'s connections, and its Vert.x instance unless it was given
  one as :vertx. Requests in flight fail. Returns nil."
  [^OnagerClient client]
  (.close client))

(defn cookie-store
  "An empty cookie store, for a client's or a request's :cookie-store: it keeps
  the cookies responses set and sends them back where they belong, as a
  browser does (a java.net.CookieManager that takes cookies only from the
  host that sets them)."
  ^CookieManager []
  (CookieManager. nil CookiePolicy/ACCEPT_ORIGINAL_SERVER))

(defn cookies
  "The cookies in `store`: a vector of {:name :value :domain :path :secure?
  :http-only? :max-age}, :max-age -1 for a cookie that lasts the session."
  [^CookieManager store]
  (mapv (fn [^HttpCookie c]
          {:name (.getName c) :value (.getValue c) :domain (.getDomain c) :path (.getPath c)
           :secure? (.getSecure c) :http-only? (.isHttpOnly c) :max-age (.getMaxAge c)})
        (.getCookies (.getCookieStore store))))

(def ^:private the-default-client
  (delay (client {})))

(defn default-client
  "The client of the requests (and of `onager.websocket/connect`) that name
  none: made with the default options at first use, and never closed."
  ^OnagerClient []
  @the-default-client)

(defn- client-of ^OnagerClient [req]
  (or (:client req) @the-default-client))

(defn request
  "Sends the request map `req` and returns its response map; with :async? true,
  a CompletableFuture of it instead; with `respond` and `raise`, calls one of
  them with the response or the error (on the client's event loop), and
  returns the future.

  The failures are ex-infos whose :onager/error is one of :invalid-request
  (with :key and :value: thrown at once), :connect-failed, :connect-timeout,
  :unknown-host, :pool-full, :tls, :timeout (:timeout :idle or :request),
  :connection-closed, :invalid-response, :too-large, :too-many-redirects,
  :status (with :response) or :body; the data has the :request and the :url.

  The request keys:"
  ([req]
   (let [c (client-of req)]
     (if (:async? req)
       (.execute c req nil nil)
       (.request c req))))
  (^CompletableFuture [req respond raise]
   (.execute (client-of req) req respond raise)))

(alter-meta! #'request update :doc str
             "\n\n" (option-specs/docstring-of client-options/request-table)
             "\n\n  And, for this request, the client options:\n\n"
             (option-specs/docstring-of client-options/per-request-table))

(def ^:private core-async
  (delay
    (try
      {:promise-chan (requiring-resolve 'clojure.core.async/promise-chan)
       :put! (requiring-resolve 'clojure.core.async/put!)}
      (catch java.io.FileNotFoundException e
        (throw (ex-info (str "onager.client/request-chan needs core.async: add org.clojure/core.async "
                             "(Maven Central) to the application's dependencies.")
                        {:onager/error :missing-dependency :artifact "org.clojure/core.async"} e))))))

(defn request-chan
  "Sends `req` as `request` does and returns a core.async promise channel
  that gets its response map, or the ex-info it failed with. Needs
  org.clojure/core.async on the class path; Onager does not depend on it."
  [req]
  (let [{:keys [promise-chan put!]} @core-async
        ch (promise-chan)]
    (request req #(put! ch %) #(put! ch %))
    ch))

(defn- call
  ([method url req] (request (assoc req :method method :url url)))
  ([method url req respond raise] (request (assoc req :method method :url url) respond raise)))

(defmacro ^:private def-http-method
  "Defines `fname`, `request` with :method `method` and :url `url`."
  [fname method doc]
  `(defn ~fname ~doc
     ([~'url] (call ~method ~'url nil))
     ([~'url ~'req] (call ~method ~'url ~'req))
     ([~'url ~'req ~'respond ~'raise] (call ~method ~'url ~'req ~'respond ~'raise))))

(def-http-method get :get "A GET of `url`: `request` with `req`'s keys.")
(def-http-method head :head "A HEAD of `url`: `request` with `req`'s keys.")
(def-http-method post :post "A POST to `url`: `request` with `req`'s keys (:body, :form-params, :json-params...).")
(def-http-method put :put "A PUT to `url`: `request` with `req`'s keys.")
(def-http-method patch :patch "A PATCH of `url`: `request` with `req`'s keys.")
(def-http-method delete :delete "A DELETE of `url`: `request` with `req`'s keys.")
(def-http-method options :options "An OPTIONS request to `url`: `request` with `req`'s keys.")
