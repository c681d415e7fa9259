(ns onager.bench.servers
  "The servers under test: each runs in its own JVM, with the same JDK and the
  same flags, under `onager.bench.probe.Probe` (which answers how many bytes the
  JVM has allocated). This namespace starts them, asks them, and stops them."
  (:require [clojure.java.io :as io]
            [clojure.string :as str]
            [onager.bench.proc :as proc])
  (:import [java.io BufferedReader File InputStreamReader OutputStream]
           [java.lang ProcessBuilder$Redirect]
           [java.net InetSocketAddress ServerSocket Socket]
           [java.nio.charset StandardCharsets]
           [java.util.concurrent LinkedBlockingQueue TimeUnit]))

(set! *warn-on-reflection* true)

(def table
  "Every server the harness knows, in report order. `:main` and `:args` start
  it (the harness adds --port); `:classpath` says what it needs beyond the
  project's class path, or (:uberjar) that the demo's uberjar replaces it. A
  `:memory-only?` server is measured by the memory benchmark only. A `:floor?` server is no contender but a lower bound,
  measured by the memory benchmark only. An `:on-demand?` server runs only when SERVER names it, or in a
  whole run in the scenarios whose `:also` names it: the same server on another transport than the
  default's (epoll on Linux), for the transport comparison, or with :metrics on (a Prometheus
  registry), for what metrics cost. A server with `:beside` (the id of its twin without the
  feature it measures) is also measured at the same time as that twin in each round, each on
  the server CPU with its own load generator (onager.bench.run)."
  [{:id "vertx" :label "raw Vert.x 5 (Java)"
    :main "onager.bench.vertx.RawVertx" :args [] :classpath :raw}
   {:id "onager-virtual" :label "Onager :virtual (default)"
    :main "clojure.main" :args ["-m" "onager.demo"] :classpath :onager}
   {:id "onager-event-loop" :label "Onager :event-loop"
    :main "clojure.main" :args ["-m" "onager.demo" "--mode" "event-loop"] :classpath :onager}
   {:id "onager-worker" :label "Onager :worker"
    :main "clojure.main" :args ["-m" "onager.demo" "--mode" "worker"] :classpath :onager}
   {:id "onager-async" :label "Onager async (3-arity, :event-loop)"
    :main "clojure.main" :args ["-m" "onager.demo" "--async"] :classpath :onager}
   {:id "onager-event-loop-nio" :label "Onager :event-loop on NIO"
    :main "clojure.main" :args ["-m" "onager.demo" "--mode" "event-loop" "--transport" "nio"] :classpath :onager
    :on-demand? true}
   {:id "onager-event-loop-io-uring" :label "Onager :event-loop on io_uring"
    :main "clojure.main" :args ["-m" "onager.demo" "--mode" "event-loop" "--transport" "io-uring"]
    :classpath :onager :on-demand? true}
   {:id "onager-event-loop-metrics" :label "Onager :event-loop with :metrics"
    :main "clojure.main" :args ["-m" "onager.demo" "--mode" "event-loop" "--metrics"] :classpath :onager
    :on-demand? true :beside "onager-event-loop"}
   {:id "onager-virtual-metrics" :label "Onager :virtual with :metrics"
    :main "clojure.main" :args ["-m" "onager.demo" "--metrics"] :classpath :onager :on-demand? true
    :beside "onager-virtual"}
   {:id "vertx-nio" :label "raw Vert.x 5 (Java) on NIO"
    :main "onager.bench.vertx.RawVertx" :args ["--transport" "nio"] :classpath :raw :on-demand? true}
   {:id "vertx-io-uring" :label "raw Vert.x 5 (Java) on io_uring"
    :main "onager.bench.vertx.RawVertx" :args ["--transport" "io-uring"] :classpath :raw :on-demand? true}
   {:id "ring-jetty" :label "ring-jetty-adapter 1.8"
    :main "clojure.main" :args ["-m" "onager.bench.jetty"] :classpath :peer}
   {:id "clojure-floor" :label "floor: Clojure from source, then raw Vert.x"
    :main "clojure.main" :args ["-m" "onager.bench.floor"] :classpath :floor :floor? true}
   {:id "onager-uberjar" :label "Onager uberjar (make uberjar)"
    :main "onager.kernel.launch.Launcher" :args [] :classpath :uberjar :memory-only? true}])

(def contenders
  "The servers of the throughput benchmark: the table without its floors,
  without the uberjar, whose code is the default mode's (it is there for its
  start-up and heap), and without the servers run on demand only."
  (filterv #(not (or (:floor? %) (:memory-only? %) (:on-demand? %))) table))

(def baseline-id "The server every figure is a ratio to." "vertx")

(defn by-id
  "The server `id` names, or nil."
  [id]
  (first (filter #(= id (:id %)) table)))

(def jvm-flags
  "The flags every server JVM gets, before the heap flags. SerialGC is what
  the JVM picks on one CPU anyway; naming it keeps runs comparable."
  ["-XX:+UseSerialGC" "--enable-native-access=ALL-UNNAMED"])

(defn heap-flags
  "The heap flags for a heap of `mib` MiB: fixed size, so that no run pays for
  growing it. `nil` gives the benchmark's default of 512 MiB."
  [mib]
  (let [m (or mib 512)]
    [(str "-Xms" m "m") (str "-Xmx" m "m")]))

;; ---- class paths ----

(defn- project-classpath []
  (let [f (io/file "target/classpath.txt")]
    (when-not (.exists f)
      (throw (ex-info "target/classpath.txt is missing: run the harness through `make bench`" {})))
    (str/trim (slurp f))))

(defn peer-jars
  "The Debian jars of ring-core, ring-jetty-adapter and what they need, as the
  one build file lists them for the tests (pom.xml's additionalClasspathElement)."
  []
  (map second (re-seq #"<additionalClasspathElement>(.*?)</additionalClasspathElement>" (slurp "pom.xml"))))

(def uberjar
  "The demo's uberjar, which `make uberjar` builds."
  "target/onager-demo.jar")

(defn classpath
  "The class path a server of `kind` runs with: only what it needs, so that
  start-up and memory are each server's own."
  [kind]
  (str/join ":" (if (= kind :uberjar)
                  [uberjar "target/bench-classes"]
                  (concat [(project-classpath) "target/bench-classes"]
                          (case kind
                            :raw []
                            :onager ["examples"]
                            :floor ["bench/clojure"]
                            :peer (concat ["examples" "bench/clojure"] (peer-jars)))))))

;; ---- running one ----

;; ---- another commit's kernel, to compare with ----

(defn- exec!
  "Runs `cmd` (strings, then optionally `:dir dir` to run it in), returning its
  output; throws with the output if it fails."
  [& args]
  (let [[cmd [_ dir]] (split-with string? args)
        p (.start (cond-> (doto (ProcessBuilder. ^java.util.List (vec cmd)) (.redirectErrorStream true))
                    dir (.directory (io/file dir))))
        out (slurp (.getInputStream p))]
    (when-not (zero? (.waitFor p))
      (throw (ex-info (str (str/join " " cmd) " failed:\n" out) {})))
    out))

(defn base-classpath
  "Builds the kernel and API of `commit` (its src/main, compiled against the
  current dependencies) under target/bench-base/, once, and returns the class
  path that runs them with that commit's demo (which may need its API) and the
  current bench classes."
  [commit]
  (let [sha (str/trim (exec! "git" "rev-parse" "--short=10" commit))
        dir (io/file "target/bench-base" sha)
        classes (io/file dir "classes")
        deps (str/trim (slurp "target/classpath.txt.deps"))]
    (when-not (.exists classes)
      (.mkdirs dir)
      (exec! "sh" "-c" (str "git archive " sha " src/main examples | tar -x -C " (.getPath dir)))
      (let [sources (->> (file-seq (io/file dir "src/main/java"))
                         (filter #(str/ends-with? (.getName ^File %) ".java"))
                         (map #(.getPath ^File %)))
            tmp (io/file dir "classes.tmp")]
        (apply exec! (concat [(str (System/getProperty "java.home") "/bin/javac") "-nowarn" "-proc:none"
                             "-d" (.getPath tmp) "-cp" deps]
                            sources))
        ;; Its API compiled to classes as the build does now, whether or not that
        ;; commit's build did: a comparison is then about the code, not the build.
        (exec! (str (System/getProperty "java.home") "/bin/java") "-Dclojure.compile.path=classes.tmp"
               "-cp" (str "src/main/clojure:classes.tmp:" deps)
               "clojure.main" (.getAbsolutePath (io/file "scripts/compile-api.clj"))
               :dir dir)
        (.renameTo tmp classes)))
    {:sha sha
     :classpath (str/join ":" [(.getPath (io/file dir "src/main/clojure")) (.getPath classes) deps
                               "target/bench-classes" (.getPath (io/file dir "examples"))])}))

(defn with-base
  "`server-defs` plus, for each Onager server among them, the same server on
  the kernel and API of `commit` (id suffixed @SHA)."
  [server-defs commit]
  (let [{:keys [sha classpath]} (base-classpath commit)]
    (vec (concat server-defs
                 (for [s server-defs :when (= :onager (:classpath s))]
                   (assoc s :id (str (:id s) "@" sha) :label (str (:label s) " @ " sha) :cp classpath))))))

(defn free-port
  "A TCP port nothing listens on now."
  []
  (with-open [s (ServerSocket. 0)]
    (.getLocalPort s)))

(defn launch
  "Starts `server` on `port` pinned to `cpus`, with `heap-mib` MiB of heap
  (nil: 512), logging to `log-dir`, with `extra-flags` added to the JVM's and
  `args` to the server's command line (`ssl-port`, the TLS port they name, is
  kept in the handle) and, when given, `classpath` instead of the server's own.
  Returns a handle for the other functions here; call `await-ready` next."
  [server {:keys [port cpus heap-mib log-dir extra-flags classpath tag args ssl-port]}]
  (let [java (str (System/getProperty "java.home") "/bin/java")
        tag (str (:id server) (when heap-mib (str "-" heap-mib "m")) (when tag (str "-" tag)) "-" port)
        err (io/file log-dir (str tag ".err.log"))
        out (io/file log-dir (str tag ".out.log"))
        cmd (vec (concat (proc/taskset-prefix cpus)
                         [java] jvm-flags (heap-flags heap-mib) extra-flags
                         ["-cp" (or classpath (:cp server) (onager.bench.servers/classpath (:classpath server)))
                          "onager.bench.probe.Probe" (:main server)]
                         (:args server)
                         ["--port" (str port)]
                         args))
        _ (io/make-parents err)
        pb (doto (ProcessBuilder. ^java.util.List cmd)
             (.redirectError (ProcessBuilder$Redirect/appendTo err)))
        started (System/nanoTime)
        p (.start pb)
        answers (LinkedBlockingQueue.)
        reader (doto (Thread.
                      (fn []
                        (with-open [in (BufferedReader. (InputStreamReader. (.getInputStream p)
                                                                            StandardCharsets/UTF_8))
                                    w (io/writer out)]
                          (loop []
                            (when-let [line (.readLine in)]
                              (if (str/starts-with? line "#probe ")
                                (.put answers line)
                                (do (.write w (str line "\n")) (.flush w)))
                              (recur)))))
                      (str "bench-out-" tag))
                 (.setDaemon true)
                 (.start))]
    {:server server :port port :ssl-port ssl-port :process p :pid (.pid p) :started-ns started
     :answers answers :reader reader :err-log err :out-log out :command cmd}))

(defn transport
  "The transport the server says it runs on in the line saying where it listens
  (\"transport epoll\"), as the demo and raw Vert.x print it; nil when it says
  none (ring-jetty)."
  [handle]
  (let [f ^File (:out-log handle)]
    (when (.exists f)
      (second (re-find #"transport ([a-z_-]+)" (slurp f))))))

(defn alive?
  "True while the server's JVM runs."
  [handle]
  (.isAlive ^Process (:process handle)))

(defn log-tail
  "The last lines the server wrote to stderr."
  [handle]
  (let [f ^File (:err-log handle)]
    (if (.exists f)
      (str/join "\n" (take-last 15 (str/split-lines (slurp f))))
      "")))

(defn http-ok?
  "True when GET `path` on 127.0.0.1:`port` answers 200 within `timeout-ms`
  (5 s when not given)."
  ([port path] (http-ok? port path 5000))
  ([port path timeout-ms]
   (try
     (with-open [s (Socket.)]
       (.connect s (InetSocketAddress. "127.0.0.1" (int port)) 1000)
       (.setSoTimeout s (int timeout-ms))
       (let [out (.getOutputStream s)]
         (.write out (.getBytes (str "GET " path " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                                StandardCharsets/ISO_8859_1))
         (.flush out))
       (let [in (BufferedReader. (InputStreamReader. (.getInputStream s) StandardCharsets/ISO_8859_1))
             line (.readLine in)]
         (boolean (and line (re-find #"^HTTP/1\.[01] 200 " line)))))
     (catch java.io.IOException _ false))))

(defn- accepts?
  "True when a TCP connection to 127.0.0.1:`port` is accepted."
  [port]
  (try
    (with-open [s (Socket.)]
      (.connect s (InetSocketAddress. "127.0.0.1" (int port)) 1000)
      true)
    (catch java.io.IOException _ false)))

(defn await-ready
  "Waits until the server answers GET /plaintext with 200 (and, when it has a
  TLS port, accepts connections there: its TLS context may be made after the
  clear-text port listens) and returns the milliseconds from its launch to
  then. Throws when it dies or `timeout-ms` pass first."
  [handle timeout-ms]
  (let [deadline (+ (System/nanoTime) (* 1000000 (long timeout-ms)))]
    (loop []
      (cond
        (and (http-ok? (:port handle) "/plaintext")
             (or (nil? (:ssl-port handle)) (accepts? (:ssl-port handle))))
        (/ (- (System/nanoTime) (long (:started-ns handle))) 1e6)

        (not (alive? handle))
        (throw (ex-info (str (:id (:server handle)) " exited before it served a request:\n" (log-tail handle))
                        {:handle (dissoc handle :process)}))

        (> (System/nanoTime) deadline)
        (throw (ex-info (str (:id (:server handle)) " did not answer within " timeout-ms " ms:\n" (log-tail handle))
                        {:handle (dissoc handle :process)}))

        :else (do (Thread/sleep 10) (recur))))))

(defn probe
  "Asks the server's probe: {:alloc bytes allocated so far, :gc collections,
  :gc-ms their time}, and with `live?` first collects the garbage and adds
  :live, the heap bytes still in use; nil when it does not answer."
  ([handle] (probe handle false))
  ([handle live?]
   (try
     (let [^Process p (:process handle)
           ^OutputStream in (.getOutputStream p)]
       (.write in (.getBytes (if live? "live\n" "\n") StandardCharsets/UTF_8))
       (.flush in)
       (when-let [line ^String (.poll ^LinkedBlockingQueue (:answers handle) 30 TimeUnit/SECONDS)]
         (let [[_ alloc gc gcms] (re-find #"alloc=(\d+) gc=(\d+) gcms=(\d+)" line)
               live (second (re-find #"live=(\d+)" line))]
           (cond-> {:alloc (parse-long alloc) :gc (parse-long gc) :gc-ms (parse-long gcms)}
             live (assoc :live (parse-long live))))))
     (catch java.io.IOException _ nil))))

(defn cpu-times
  "{:user :system} CPU seconds the server's JVM has used so far."
  [handle]
  (proc/cpu-times (:pid handle)))

(defn stop
  "Stops the server: closing its stdin makes the probe exit the JVM (shutdown
  hooks run); it is killed if it has not gone within 20 s."
  [handle]
  (let [^Process p (:process handle)]
    (try (.close (.getOutputStream p)) (catch java.io.IOException _))
    (when-not (.waitFor p 20 TimeUnit/SECONDS)
      (.destroyForcibly p)
      (.waitFor p 10 TimeUnit/SECONDS))
    (.join ^Thread (:reader handle) 2000)
    nil))
