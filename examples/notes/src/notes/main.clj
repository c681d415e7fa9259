(ns notes.main
  "Starts the notes app: `clj -M:run [--port 8080] [--host 0.0.0.0] [--db data/notes]`.
  `start` and `stop` do the same from a REPL or a test."
  (:require [clojure.java.io :as io]
            [onager.server :as server]
            [notes.db :as db]
            [notes.routes :as routes]))

(set! *warn-on-reflection* true)

(defn start
  "Opens the database at the JDBC URL `:db-url`, creates its table if need be,
  and starts the app on Onager with the other keys as server options (:port,
  :host, :shutdown-hook?...). Returns {:server :db}, for `stop`."
  [{:keys [db-url] :as opts}]
  (let [db (db/pool db-url)]
    (try
      (db/migrate! db)
      {:db db
       :server (server/start (routes/handler db) (dissoc opts :db-url))}
      (catch Throwable t
        (db/close db)
        (throw t)))))

(defn stop
  "Stops the server (requests in flight finish), then closes the database."
  [{:keys [server db]}]
  (server/stop server)
  (db/close db))

(defn- parse-args [args]
  (loop [opts {:port (or (some-> (System/getenv "PORT") parse-long) 8080)
               :host "0.0.0.0"
               :db "data/notes"}
         [flag value & more] args]
    (cond
      (nil? flag) opts
      (nil? value) (throw (ex-info (str flag " needs a value") {:flag flag}))
      :else (case flag
              "--port" (recur (assoc opts :port (or (parse-long value)
                                                    (throw (ex-info (str "--port needs a number, not " value)
                                                                    {:flag flag :value value}))))
                              more)
              "--host" (recur (assoc opts :host value) more)
              "--db" (recur (assoc opts :db value) more)
              (throw (ex-info (str "Unknown argument " flag
                                   "; use --port N, --host ADDRESS, --db PATH")
                              {:flag flag}))))))

(defn -main
  "Starts the app from the command line, until the JVM is stopped."
  [& args]
  (let [{:keys [port host db]} (parse-args args)
        ;; H2 refuses a file path relative to the working directory unless it
        ;; says so; an absolute one also shows where the data went.
        file (.getAbsolutePath (io/file db))
        ;; H2 would close the database in a shutdown hook of its own, racing the
        ;; requests still in flight; the hook below closes it after them.
        system (start {:db-url (str "jdbc:h2:file:" file ";DB_CLOSE_ON_EXIT=FALSE")
                       :port port
                       :host host})]
    ;; One hook for both, in order, rather than the server's :shutdown-hook?:
    ;; SIGTERM and Ctrl-C stop the server gracefully (requests in flight
    ;; finish), and only then close the database they use.
    (.addShutdownHook (Runtime/getRuntime) (Thread. ^Runnable #(stop system) "notes-shutdown"))
    (println (str "Notes listening on http://127.0.0.1:" (server/port (:server system)) "/"
                  " (database " file ".mv.db)"))
    (flush)))
