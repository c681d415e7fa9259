(ns onager.bench.main
  "The harness's command line, which `make bench` and `make bench-memory` call.

    bench  [--quick] [--scenario a,b] [--server x,y] [--runs N] [--settle S] [--warmup S] [--duration S]
           [--jvm-flags FLAGS]   (FLAGS, one argument, are added to every server JVM)
           [--base COMMIT]       (each Onager server also runs on COMMIT's kernel and API)
    memory [--quick] [--server x,y] [--runs N]
    client [--quick] [--scenario a,b] [--client x,y] [--runs N] [--pairs N] [--settle S] [--warmup S]
           [--duration S]        (--pairs: how many times Onager's client runs at once with the
                                 Java-only one, per scenario; 5 unless --runs asks for more,
                                 and with --quick as many as --runs)
    profile --server x --scenario a [--warmup S] [--duration S]

  --server picks servers and --client clients; the raw Vert.x baseline and the
  Java-only Vert.x client are always added, since every figure is a ratio to
  them. A run with every scenario and every server or client writes its report
  to bench/results/ as well as to target/bench/<time>/."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.bench.client :as client]
            [onager.bench.client-report :as client-report]
            [onager.bench.env :as env]
            [onager.bench.load :as load]
            [onager.bench.memory :as memory]
            [onager.bench.profile :as profile]
            [onager.bench.proc :as proc]
            [onager.bench.report :as report]
            [onager.bench.run :as run]
            [onager.bench.servers :as servers]
            [onager.bench.tls :as tls])
  (:import [java.time LocalDateTime]
           [java.time.format DateTimeFormatter]))

(set! *warn-on-reflection* true)

(defn- parse-args [args]
  (loop [opts {} [a b & more :as args] args]
    (case a
      nil opts
      "--quick" (recur (assoc opts :quick true) (rest args))
      "--scenario" (recur (assoc opts :scenarios (str/split b #",")) more)
      "--server" (recur (assoc opts :servers (str/split b #",")) more)
      "--client" (recur (assoc opts :clients (str/split b #",")) more)
      "--runs" (recur (assoc opts :runs (parse-long b)) more)
      "--pairs" (recur (assoc opts :pairs (parse-long b)) more)
      "--warmup" (recur (assoc opts :warmup (parse-long b)) more)
      "--settle" (recur (assoc opts :settle (parse-long b)) more)
      "--duration" (recur (assoc opts :duration (parse-long b)) more)
      "--base" (recur (assoc opts :base b) more)
      "--jvm-flags" (recur (assoc opts :extra-flags (vec (remove str/blank? (str/split b #"\s+")))) more)
      (throw (ex-info (str "unknown argument " a "; see onager.bench.main's docstring") {:args args})))))

(defn- pick [ids table by-id what]
  (if (empty? ids)
    table
    (mapv (fn [id] (or (by-id id)
                       (throw (ex-info (str "no " what " " id "; there are: "
                                            (str/join ", " (map :id table))) {}))))
          ids)))

(defn- cpus
  "Where the server and wrk run: the server on CPU 0 and wrk on the others
  when there are two or more; unpinned on one CPU."
  []
  (let [n (proc/cpu-count)]
    (if (>= n 2)
      {:server "0" :wrk (if (= n 2) "1" (str "1-" (dec n))) :wrk-threads (dec n)}
      {:server nil :wrk nil :wrk-threads 1})))

(defn- out-dir [kind]
  (io/file "target/bench" (str (.format (LocalDateTime/now) (DateTimeFormatter/ofPattern "yyyyMMdd-HHmmss"))
                               "-" kind)))

(defn- settings [opts]
  (let [quick (:quick opts)
        c (cpus)]
    {:quick (boolean quick)
     :runs (or (:runs opts) (if quick 1 3))
     :settle (or (:settle opts) (if quick 3 15))
     :warmup (or (:warmup opts) (if quick 2 5))
     :duration (or (:duration opts) (if quick 3 10))
     :cpus {:server (:server c) :wrk (:wrk c)}
     :extra-flags (:extra-flags opts [])
     :wrk {:cpus (:wrk c) :threads (:wrk-threads c)}}))

(defn- with-tls
  "`scenario-defs` without the OpenSSL ones when OpenSSL cannot be used (said
  on stdout), and the settings `s` with the certificate the TLS ones use, made
  in `dir`."
  [scenario-defs s dir]
  (let [openssl? (tls/openssl-available?)
        defs (if openssl? scenario-defs (vec (remove #(= :openssl (:tls %)) scenario-defs)))]
    (when-not openssl?
      (doseq [sc scenario-defs :when (= :openssl (:tls sc))]
        (println (str "Skipping " (:id sc) ": io.netty:netty-tcnative-boringssl-static is not on the class path"))))
    [defs (cond-> s (some :tls defs) (assoc :tls-files (tls/certificate dir)))]))

(defn bench
  "Runs the throughput benchmark and writes its report."
  [opts]
  (let [picked-scenarios (pick (:scenarios opts) load/scenarios load/by-id "scenario")
        ;; Without SERVER, the servers run on demand that the scenarios ask for come too.
        picked (if (seq (:servers opts))
                 (pick (:servers opts) servers/contenders servers/by-id "server")
                 (into servers/contenders (map servers/by-id) (sort (set (mapcat :also picked-scenarios)))))
        server-defs (cond-> (vec (distinct (cons (servers/by-id servers/baseline-id) picked)))
                      (:base opts) (servers/with-base (:base opts)))
        complete? (and (empty? (:scenarios opts)) (empty? (:servers opts)) (nil? (:base opts)))
        dir (out-dir "bench")
        [scenario-defs s] (with-tls picked-scenarios
                            (assoc (settings opts) :log-dir dir :servers-named? (boolean (seq (:servers opts)))
                                   :jvm-flags (vec (concat servers/jvm-flags (servers/heap-flags nil)
                                                           (:extra-flags opts))))
                            dir)
        stamp (env/stamp)
        t0 (System/nanoTime)
        results (run/run-all scenario-defs server-defs s)
        data {:stamp (assoc stamp :load-at-end (env/load-now)
                            :minutes (/ (- (System/nanoTime) t0) 6e10))
              :settings (dissoc s :log-dir :tls-files)
              :scenarios results}]
    (report/write-bench data dir (when complete? (io/file "bench/results")))))

(defn memory
  "Runs the memory and start-up benchmark and writes its report."
  [opts]
  (let [picked (pick (:servers opts) memory/servers servers/by-id "server")
        server-defs (vec (distinct (cons (servers/by-id servers/baseline-id) picked)))
        complete? (empty? (:servers opts))
        dir (out-dir "memory")
        ;; Throughput here only compares heaps: 5 s runs are enough, and keep the whole near 17 min.
        ;; Its servers are not loaded first: each run is a heap size against the same server's other.
        ;; 5 rounds, not 3: a 16 ÷ 512 MiB pair spread over 0.84–1.12 between rounds on this machine.
        s (-> (settings (-> opts
                            (update :duration #(or % (if (:quick opts) 3 5)))
                            (update :runs #(or % (if (:quick opts) 1 5)))))
              (dissoc :settle)
              (assoc :log-dir dir))
        stamp (env/stamp)
        t0 (System/nanoTime)
        results (memory/run-all server-defs s)
        data (assoc results
                    :stamp (assoc stamp :load-at-end (env/load-now)
                                  :minutes (/ (- (System/nanoTime) t0) 6e10))
                    :settings (dissoc s :log-dir))]
    (report/write-memory data dir (when complete? (io/file "bench/results")))))

(defn client-bench
  "Runs the client benchmark and writes its report."
  [opts]
  (let [dir (out-dir "client")
        s (settings opts)
        ;; Each GET run is a new client JVM on one CPU, where the JIT compiles beside the load:
        ;; it warms up at least as long as a server settles before its rounds, and on until
        ;; its JIT is quiet (LoadLoop).
        s (assoc s :warmup (or (:warmup opts) (:settle s)) :log-dir dir :tls-files (tls/certificate dir)
                 ;; The layer's bars are medians of the pairs, whose CPU ratio moves by several per cent
                 ;; from one pair to the next: five of them, against three rounds alone.
                 :pairs (or (:pairs opts) (if (:quick opts) (:runs s) (max 5 (long (:runs s))))))
        scenario-defs (pick (:scenarios opts) client/scenarios (partial client/by-id client/scenarios)
                            "client scenario")
        client-defs (vec (distinct (cons (client/by-id client/clients client/baseline-id)
                                         (pick (:clients opts) client/clients (partial client/by-id client/clients)
                                               "client"))))
        complete? (and (empty? (:scenarios opts)) (empty? (:clients opts)) (not (:quick opts)))
        stamp (env/stamp)
        t0 (System/nanoTime)
        results (client/run-all client-defs scenario-defs s)
        data {:stamp (assoc stamp :load-at-end (env/load-now) :minutes (/ (- (System/nanoTime) t0) 6e10))
              :settings (dissoc s :log-dir :tls-files)
              :scenarios results}]
    (client-report/write data dir (when complete? (io/file "bench/results")))))

(defn profile
  "Records a JFR profile of one server under one scenario and prints where it
  allocates and spends CPU."
  [opts]
  (let [[server-id] (:servers opts)
        [scenario-id] (:scenarios opts)
        server (or (servers/by-id server-id) (throw (ex-info "profile needs --server (SERVER=...)" {})))
        scenario (or (load/by-id scenario-id) (throw (ex-info "profile needs --scenario (SCENARIO=...)" {})))]
    (let [dir (out-dir "profile")
          [[scenario] s] (with-tls [scenario] (assoc (settings opts) :log-dir dir) dir)]
      (when-not scenario
        (throw (ex-info "that scenario needs OpenSSL, which is not on the class path" {})))
      (profile/profile server scenario s))))

(defn -main
  "Entry point: `bench` or `memory`, then the options in the namespace doc."
  [& args]
  (let [[command & more] args
        opts (parse-args more)]
    (case command
      "bench" (bench opts)
      "memory" (memory opts)
      "client" (client-bench opts)
      "profile" (profile opts)
      (throw (ex-info (str "unknown command " (pr-str command) "; use bench, memory, client or profile") {})))
    (shutdown-agents)))
