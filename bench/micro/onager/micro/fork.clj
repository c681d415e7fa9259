(ns onager.micro.fork
  "Runs each comparison in JVMs of its own, as JMH forks one per benchmark: a
  JVM compiles a method once for all its callers, from the profile they left,
  so code measured in a JVM that also ran the other comparisons is compiled for
  all of them at once and measures differently from one run to the next (the
  very case JMH's forking sample describes). Ours and its peers still share
  their fork, measured in alternating rounds. Several forks of each
  comparison pool their rounds, so that how one JVM happened to compile the
  code counts once among several.

  The parent (`measure`) starts the forks with its own java, class path and JVM
  flags; a fork (`-main`) measures the comparisons it is given and prints
  their results as one line of JSON. `measure-shared` measures every
  comparison in one JVM too, for the report to show what sharing a JVM does."
  (:require [onager.json :as json]
            [onager.micro.harness :as harness])
  (:import [java.io BufferedReader InputStreamReader]
           [java.lang.management ManagementFactory]
           [java.nio.charset StandardCharsets]))

(set! *warn-on-reflection* true)

(def suites
  "The namespaces that hold the comparisons, each with a `benchmarks` function.
  A comparison's id starts with its suite's last name: params/typical is one of
  onager.micro.params."
  '[onager.micro.params onager.micro.json onager.micro.routes])

(def ^:private marker "onager.micro.fork result: ")

(defn comparisons
  "Every comparison of the suites `namespaces` (all of them by default), in
  order, loading the suites."
  ([] (comparisons suites))
  ([namespaces]
   (vec (mapcat (fn [suite]
                  (require suite)
                  ((ns-resolve suite 'benchmarks)))
                namespaces))))

(defn- suite-of
  "The suite of the comparison `id`."
  [^String id]
  (symbol (str "onager.micro." (subs id 0 (max 0 (.indexOf id "/"))))))

(defn verify!
  "Checks that every candidate of the comparison `spec` computes the same
  result; throws an ex-info naming the comparison otherwise."
  [{:keys [id candidates same verify]}]
  (if verify
    (when-not (verify) (throw (ex-info (str id ": the candidates do not compute the same results") {:id id})))
    (let [results (map (fn [{:keys [name f]}] [name (same (f))]) candidates)]
      (when-not (apply = (map second results))
        (throw (ex-info (str id ": the candidates do not compute the same results") {:id id :results results}))))))

(defn -main
  "In a fork: measures the comparisons whose ids are `ids` (EDN, a vector)
  together in this JVM with the harness `settings` (EDN), and prints their
  candidates' figures as one JSON line."
  [ids settings]
  (let [ids (read-string ids)
        ;; Only the suites measured here are loaded: building the others' comparisons
        ;; would run their code in this JVM too.
        by-id (into {} (map (juxt :id identity)) (comparisons (distinct (map suite-of ids))))
        specs (mapv #(or (by-id %) (throw (ex-info (str "no comparison " %) {:id %}))) ids)
        label (if (= 1 (count ids)) (first ids) (str (count ids) " comparisons in one JVM"))
        _ (run! verify! specs)
        measured (harness/measure (mapv :candidates specs) (read-string settings)
                                  #(binding [*out* *err*] (println "micro-benchmarks:" label %)))]
    (println (str marker (json/write (mapv (fn [candidates]
                                             (mapv #(select-keys % [:name :samples :bytes-per-op :ratio]) candidates))
                                           measured))))
    (flush)
    (shutdown-agents)))

(defn- run-fork
  "Starts a JVM like this one that measures the comparisons `ids` together;
  their figures, a vector of candidates' figures per comparison."
  [ids settings]
  (let [java (str (System/getProperty "java.home") "/bin/java")
        flags (vec (.getInputArguments (ManagementFactory/getRuntimeMXBean)))
        command (concat [java] flags ["-cp" (System/getProperty "java.class.path")
                                      "clojure.main" "-m" "onager.micro.fork" (pr-str (vec ids)) (pr-str settings)])
        process (-> (ProcessBuilder. ^java.util.List (vec command))
                    (.redirectError java.lang.ProcessBuilder$Redirect/INHERIT)
                    (.start))
        lines (with-open [r (BufferedReader. (InputStreamReader. (.getInputStream process) StandardCharsets/UTF_8))]
                (doall (line-seq r)))
        exit (.waitFor process)
        result (some #(when (.startsWith ^String % marker) (subs % (count marker))) lines)]
    (when (or (not (zero? exit)) (nil? result))
      (throw (ex-info (str "the fork measuring " (vec ids) " failed (exit " exit ")")
                      {:ids ids :exit exit :output lines})))
    (json/read result {:keywords? true})))

(defn- pooled
  "One candidate's figures over all `forks` (each a vector of candidates' figures):
  its rounds pooled, and for a peer (i > 0) the ratio of each round to ours
  in the same round, their median, and each fork's median ratio."
  [forks i]
  (let [mine (mapcat #(:samples (% i)) forks)
        ours (mapcat #(:samples (% 0)) forks)]
    (cond-> {:name (:name ((first forks) i))
             :samples (vec mine)
             :median-ns (harness/median mine)
             :min-ns (apply min mine)
             :max-ns (apply max mine)
             :bytes-per-op (harness/median (map #(:bytes-per-op (% i)) forks))}
      (pos? i) (assoc :ratio (harness/median (map / mine ours))
                      :ratio-of-medians (/ (harness/median mine) (harness/median ours))
                      :fork-ratios (mapv #(:ratio (% i)) forks)))))

(defn measure
  "Measures each of `specs` (comparisons, as `comparisons` returns them) in
  `forks` JVMs of its own, with the harness `settings`. The forks go round
  the comparisons, one fork of each per turn, so that the machine's drift
  hits all alike. Returns, per comparison, its candidates' pooled figures:
  :samples (ns/op of every round of every fork), :median-ns, :min-ns,
  :max-ns, :bytes-per-op (the median over forks), and for the peers :ratio
  (the median over all rounds of the peer's time over ours in that round),
  :ratio-of-medians and :fork-ratios (each fork's median ratio). `progress`
  is called with a message before each fork."
  [specs forks settings progress]
  (let [runs (vec (for [turn (range forks)
                        {:keys [id]} specs]
                    (do (progress (str "fork " (inc turn) " of " forks ": " id))
                        [id (first (run-fork [id] settings))])))
        by-id (reduce (fn [m [id result]] (update m id (fnil conj []) result)) {} runs)]
    (vec (for [{:keys [id candidates]} specs
               :let [results (by-id id)]]
           (mapv #(pooled results %) (range (count candidates)))))))

(defn measure-shared
  "Measures all of `specs` together in one more JVM, as the harness did before
  it forked: code that the comparisons share is then compiled for all of
  them, as in a server that sees every kind of request. Returns, per
  comparison, each peer's median ratio to ours (nil for ours)."
  [specs settings progress]
  (progress "one JVM for every comparison")
  (mapv (fn [candidates] (mapv :ratio candidates)) (run-fork (mapv :id specs) settings)))
