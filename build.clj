(ns build
  "Prepares this repository as a deps.edn dependency (`:deps/prep-lib` in
  deps.edn, run by `clojure -X:deps prep`). Maven builds the jar; this is only
  for :local/root and git dependencies, which take the Clojure sources as they
  are and need the Java kernel compiled."
  (:require [clojure.tools.build.api :as b]))

(set! *warn-on-reflection* true)

(defn prep
  "Compiles the Java kernel (src/main/java) for Java 21 into target/classes,
  against deps.edn's libraries and its :metrics and :proxy-protocol aliases':
  the kernel's metrics and proxy packages name Micrometer's and Netty's
  HAProxy decoder's types, optional dependencies a project adds only to use
  them (classes are loaded when used, so without them the rest runs).
  Takes no options. A failed compilation leaves no target/classes, which
  tools.deps would take for a finished prep."
  [_]
  (try
    (b/javac {:src-dirs ["src/main/java"]
              :class-dir "target/classes"
              :basis (b/create-basis {:project "deps.edn" :aliases [:metrics :proxy-protocol]})
              :javac-opts ["--release" "21"]})
    (catch Throwable t
      (b/delete {:path "target/classes"})
      (throw t))))
