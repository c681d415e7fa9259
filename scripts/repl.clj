;; The REPL of `make repl` (scripts/repl): clojure.main's REPL and, when nREPL is
;; on the class path, an nREPL server beside it in the same JVM for an editor
;; (CIDER, Calva). The server listens on 127.0.0.1, on NREPL_PORT or a free
;; port; it says so in nREPL's own words (which CIDER reads) and writes the port
;; to .nrepl-port in the current directory, where editors look, until the REPL
;; ends. With cider-nrepl on the class path too, it serves CIDER's middleware.
(require '[clojure.java.io :as io]
         '[clojure.main :as main])

(set! *warn-on-reflection* true)

(defn- start-nrepl []
  (when (io/resource "nrepl/server.clj")
    (let [start (requiring-resolve 'nrepl.server/start-server)
          handler (when (io/resource "cider/nrepl.clj")
                    @(requiring-resolve 'cider.nrepl/cider-nrepl-handler))
          port (parse-long (or (System/getenv "NREPL_PORT") "0"))
          server (apply start :bind "127.0.0.1" :port port (when handler [:handler handler]))
          port (:port server)
          port-file (io/file ".nrepl-port")]
      (spit port-file port)
      (.deleteOnExit port-file)
      (println (str "nREPL server started on port " port " on host 127.0.0.1 - nrepl://127.0.0.1:" port))
      (when handler (println "with cider-nrepl's middleware"))
      server)))

(let [server (start-nrepl)]
  (main/repl :init #(apply require main/repl-requires))
  (when server ((requiring-resolve 'nrepl.server/stop-server) server))
  (shutdown-agents)
  (System/exit 0))
