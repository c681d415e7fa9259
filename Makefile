# The commands people type. Maven does the building; this file only picks a JDK
# and wraps it. See README.md.
SHELL := /bin/bash

JAVA_HOME := $(shell scripts/java-home)
ifeq ($(JAVA_HOME),)
$(error no JDK >= 21 found; see scripts/java-home)
endif
export JAVA_HOME
export PATH := $(JAVA_HOME)/bin:$(PATH)
JAVA_MAJOR := $(shell $(JAVA_HOME)/bin/java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
# JDK 25 brought AOT caches with a one-step training run (JEP 514).
AOT_OK := $(shell [ "$(JAVA_MAJOR)" -ge 25 ] && echo yes)
# Maven 3.8 itself uses sun.misc.Unsafe, which JDK 24+ warns about on every run.
ifeq ($(shell [ "$(JAVA_MAJOR)" -ge 24 ] && echo yes),yes)
export MAVEN_OPTS := --sun-misc-unsafe-memory-access=allow $(MAVEN_OPTS)
endif

MVN := mvn -B -ntp -Dstyle.color=never
# Maven 3.8 prints stray colour codes even in batch mode; this strips them.
STRIP := sed -u 's/\x1b\[[0-9;]*m//g'
SHELL_FLAGS := set -o pipefail;
JVM_OPTS ?= --enable-native-access=ALL-UNNAMED
PORT ?= 8080
# The demo's TLS port (a self-signed certificate for localhost, made at start).
TLS_PORT ?= 8443
# The demo's logging: one line a record, nothing below INFO (without a configuration
# Logback would log everything, DEBUG included).
LOGBACK := -Dlogback.configurationFile=examples/logback.xml
CP_FILE := target/classpath.txt
# Logback's jars, apart: an optional dependency, which the demo uses and no consumer gets.
LOGBACK_CP_FILE := target/logback-classpath.txt
SOURCES := Makefile pom.xml scripts/compile-api.clj scripts/clojure-sources.clj $(shell find src/main/java src/main/clojure -name '*.java' -o -name '*.clj' 2>/dev/null)

.PHONY: run example test repl jar install classpath docs soak clean bench bench-micro bench-memory bench-client bench-profile uberjar aot-cache

# The runtime class path: Clojure sources first, then the compiled kernel and
# the API compiled from them (process-classes; Clojure loads a class only while
# it is newer than its source, so an edit in a REPL needs no rebuild), then the
# dependencies: what a project depending on Onager gets, so Logback apart. The scope
# property is includeScope, not mdep.includeScope, which the dependency plugin (pom.xml
# pins 3.8.1) ignores, listing test jars too.
$(CP_FILE): $(SOURCES)
	@$(SHELL_FLAGS) $(MVN) -q process-classes dependency:build-classpath -DincludeScope=runtime \
	  -Dmdep.outputFile=$(CP_FILE).all 2>&1 | $(STRIP) >&2
	@tr ':' '\n' < $(CP_FILE).all | grep -v '/ch/qos/logback/' | paste -sd: > $(CP_FILE).deps
	@tr ':' '\n' < $(CP_FILE).all | grep '/ch/qos/logback/' | paste -sd: > $(LOGBACK_CP_FILE)
	@echo "$(CURDIR)/src/main/clojure:$(CURDIR)/target/classes:$$(cat $(CP_FILE).deps)" > $(CP_FILE)

# The REPL's class path adds the tests and their libraries (JUnit, test.check).
TEST_CP_FILE := target/test-classpath.txt
$(TEST_CP_FILE): pom.xml
	@$(SHELL_FLAGS) $(MVN) -q dependency:build-classpath -DincludeScope=test \
	  -Dmdep.outputFile=$(TEST_CP_FILE) 2>&1 | $(STRIP) >&2

# Absolute paths, so that it works from any directory; Maven's output goes to stderr.
classpath: $(CP_FILE)
	@cat $(CP_FILE)

run: $(CP_FILE)
	java $(JVM_OPTS) $(LOGBACK) -cp "$$(cat $(CP_FILE)):$$(cat $(LOGBACK_CP_FILE)):examples" clojure.main -m onager.demo --port $(PORT) --tls-port $(TLS_PORT)

# The notes example (examples/notes), a project of its own: its class path comes from its
# deps.edn (scripts/deps-classpath, tools.deps as a library), resolved again only when a
# deps.edn changes; its database goes to target/example/. $(CP_FILE) first, so that the
# kernel and the API are compiled by Maven before tools.deps looks at this checkout.
EXAMPLE_CP_FILE := target/example-classpath.txt
$(EXAMPLE_CP_FILE): deps.edn examples/notes/deps.edn scripts/tools-deps/pom.xml | $(CP_FILE)
	@scripts/deps-classpath examples/notes > $(EXAMPLE_CP_FILE).tmp && mv $(EXAMPLE_CP_FILE).tmp $(EXAMPLE_CP_FILE)

example: $(CP_FILE) $(EXAMPLE_CP_FILE)
	java $(JVM_OPTS) -cp "$$(cat $(EXAMPLE_CP_FILE))" clojure.main -m notes.main --port $(PORT) --db target/example/notes

# A REPL, and an nREPL server beside it for an editor when NREPL_CP names nREPL's
# jars (Debian's libnrepl-clojure by default; yours, with cider-nrepl's, work too).
# NREPL_CP= make repl for the REPL alone; NREPL_PORT picks the server's port.
NREPL_CP ?= $(wildcard /usr/share/java/nrepl.jar)
repl: $(CP_FILE) $(TEST_CP_FILE)
	@NREPL_CP="$(NREPL_CP)" scripts/repl "$$(cat $(CP_FILE)):$(CURDIR)/examples:$(CURDIR)/src/test/clojure:$$(cat $(TEST_CP_FILE))" $(JVM_OPTS)

# NS=a.b-test,c.d-test runs only those Clojure namespaces.
# Without NS, the *IT tests too (src/test/java/onager/it), which need the jar. Reports of
# an earlier run are removed first, so that the summary counts this run's alone.
test:
	@scripts/install-tools test
	@rm -rf target/surefire-reports target/failsafe-reports target/test-times.tsv
	@$(SHELL_FLAGS) rc=0; \
	$(MVN) verify $(if $(NS),-Dclojure.test.ns=$(NS) -Dtest=ClojureSuiteTest -DskipITs) 2>&1 | $(STRIP) || rc=$$?; \
	scripts/test-summary; exit $$rc

# Regenerates README.md's options tables (scripts/readme-tables.clj says which) and the API
# reference in doc/api/ from the docstrings (scripts/api-docs.clj).
docs: $(CP_FILE)
	java -cp "$$(cat $(CP_FILE))" clojure.main scripts/update-docs.clj

# Ten minutes of full load with disconnects and errors, reporting memory growth (not in CI).
# SOAK_SECONDS=60 make soak for a short one.
soak: $(CP_FILE)
	@scripts/soak

# The micro-benchmarks (bench/micro): the kernel's router, params and JSON against
# their peers, each comparison in JVMs of its own. QUICK=1 for a short run, FORKS=n
# forks per comparison, MICRO=params,json/parse for some. Writes bench/results/micro/.
BENCH_MICRO_CP := target/bench-micro-classpath.txt
bench-micro: $(CP_FILE)
	@scripts/install-tools bench-micro
	@$(SHELL_FLAGS) $(MVN) -q -P bench-micro dependency:build-classpath -DincludeScope=test \
	  -Dmdep.outputFile=$(BENCH_MICRO_CP) 2>&1 | $(STRIP) >&2
	java $(JVM_OPTS) $(LOGBACK) -Xms1g -Xmx1g -cp "src/main/clojure:target/classes:bench/micro:$$(cat $(BENCH_MICRO_CP))" \
	  clojure.main -m onager.micro.main

jar:
	@$(SHELL_FLAGS) $(MVN) -q package -DskipTests 2>&1 | $(STRIP)
	@ls target/*.jar

# The demo as one jar, its Clojure compiled ahead of time with direct linking (pom.xml's
# uberjar profile): java -jar target/onager-demo.jar --port 8080
UBERJAR := target/onager-demo.jar
$(UBERJAR): $(SOURCES) examples/logback.xml $(shell find examples/onager examples/static -type f)
	@$(SHELL_FLAGS) $(MVN) -q -P uberjar package -Dmaven.test.skip=true 2>&1 | $(STRIP)

uberjar: $(UBERJAR)
	@ls $(UBERJAR)

# A JDK AOT cache for the uberjar (JDK 25+; JEP 483, 514, 515), written by a training run:
# the uberjar as it is run, plus --train, which requests each endpoint and exits
# (onager.demo.training). A JVM uses it only with the same JDK and the same flags (JVM_OPTS):
# java --enable-native-access=ALL-UNNAMED -XX:AOTCache=target/onager-demo.aot -jar target/onager-demo.jar
# The JVM's warnings about each class it leaves out of the cache (JFR's, generated proxies'), a
# screenful, are routine: errors alone are shown.
AOT_CACHE := target/onager-demo.aot
$(AOT_CACHE): $(UBERJAR)
	@[ -n "$(AOT_OK)" ] || { echo "an AOT cache needs JDK 25 or newer, and make picked JDK $(JAVA_MAJOR) ($(JAVA_HOME)): set JAVA_HOME to a JDK 25" >&2; exit 1; }
	@rm -f $@
	java $(JVM_OPTS) -Xlog:aot=error -XX:AOTCacheOutput=$@ -jar $(UBERJAR) --port 0 --train

aot-cache: $(AOT_CACHE)
	@ls $(AOT_CACHE)

# The jar and its POM into the local Maven repository (~/.m2), for Leiningen,
# the Clojure CLI and Maven projects on this machine.
install:
	@$(SHELL_FLAGS) $(MVN) -q install -DskipTests 2>&1 | $(STRIP)
	@v=$$(sed -n 's:^  <version>\(.*\)</version>:\1:p' pom.xml | head -1); \
	echo "installed io.github.onager/onager $$v in the local Maven repository"

# ---- benchmarks (bench/README.md) ----
# The raw Vert.x baseline and the probe are compiled against the project's own
# class path: no second dependency list.
BENCH_CLASSES := target/bench-classes/.built
BENCH_JAVA := $(shell find bench/java -name '*.java' 2>/dev/null)
# QUICK=1: short runs; SCENARIO=a,b, SERVER=x,y and CLIENT=x,y pick; RUNS, PAIRS (bench-client's
# pairs at once), SETTLE, WARMUP, DURATION (s) override;
# BENCH_JVM_FLAGS adds flags to every server JVM; BASE=<commit> also runs each Onager server
# on that commit's kernel, in the same alternating rounds (before/after a change).
BENCH_ARGS = $(if $(QUICK),--quick) $(if $(SCENARIO),--scenario $(SCENARIO)) $(if $(SERVER),--server $(SERVER)) \
  $(if $(CLIENT),--client $(CLIENT)) \
  $(if $(RUNS),--runs $(RUNS)) $(if $(PAIRS),--pairs $(PAIRS)) $(if $(SETTLE),--settle $(SETTLE)) $(if $(WARMUP),--warmup $(WARMUP)) $(if $(DURATION),--duration $(DURATION)) \
  $(if $(BENCH_JVM_FLAGS),--jvm-flags "$(BENCH_JVM_FLAGS)") $(if $(BASE),--base $(BASE))
BENCH_RUN = java -Djava.awt.headless=true -cp "$$(cat $(CP_FILE)):target/bench-classes:bench/clojure:examples" \
  clojure.main -m onager.bench.main

$(BENCH_CLASSES): $(CP_FILE) $(BENCH_JAVA)
	@rm -rf target/bench-classes && mkdir -p target/bench-classes
	@javac -Xlint:all,-classfile,-processing -Werror -d target/bench-classes -cp "$$(cat $(CP_FILE))" $(BENCH_JAVA)
	@touch $@

# Throughput, latency, CPU and allocation per request: about 80 minutes in full; then,
# unless SCENARIO or SERVER picks a part, the HTTP client's (bench-client) and the
# micro-benchmarks (bench-micro).
bench: $(BENCH_CLASSES)
	@scripts/install-tools bench
	$(BENCH_RUN) bench $(BENCH_ARGS)
	$(if $(SCENARIO)$(SERVER),,@$(MAKE) --no-print-directory bench-client)
	$(if $(SCENARIO)$(SERVER),,@$(MAKE) --no-print-directory bench-micro)

# Smallest heap, throughput at 16 vs 512 MiB, RSS under load, start-up (from source, and of the
# uberjar with and, on JDK 25+, without its AOT cache): about 20 minutes in full.
bench-memory: $(BENCH_CLASSES) $(UBERJAR) $(if $(AOT_OK),$(AOT_CACHE))
	@scripts/install-tools bench
	$(BENCH_RUN) memory $(BENCH_ARGS)

# The HTTP client against the raw Vert.x server: Onager's, the Java-only Vert.x client (the
# ceiling), the JDK's HttpClient and clj-http 2.3; about 70 minutes in full.
bench-client: $(BENCH_CLASSES)
	@scripts/install-tools bench
	$(BENCH_RUN) client $(BENCH_ARGS)

# A JFR profile of one server under one scenario: SERVER=onager-event-loop SCENARIO=plaintext.
bench-profile: $(BENCH_CLASSES)
	@scripts/install-tools bench
	$(BENCH_RUN) profile $(BENCH_ARGS)

clean:
	@$(SHELL_FLAGS) $(MVN) -q clean 2>&1 | $(STRIP)
