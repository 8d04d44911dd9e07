# One-command entry points: `make test`, `make demo` (`make demo-full`), `make bench`, `make lint` (ruff, mypy and the import layers).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
TOOLKIT := $(VENV)/bin/toolkit
STAMP := $(VENV)/.installed
# Spark stays on loopback in tests, benchmarks and the demo (docs/architecture.md).
export SPARK_LOCAL_IP := 127.0.0.1
export PYSPARK_PYTHON := $(abspath $(PY))

DEMO_REPO := config_repo_template
# Where the demo's generated schedules say the toolkit, Spark and the repo are on the scheduler's host.
SCHEDULE_PATHS := --repo-path /srv/conf --toolkit /opt/feed-toolkit/bin/toolkit --spark-submit /opt/spark/bin/spark-submit --entrypoints /opt/feed-toolkit/entrypoints
FALCON_SAMPLES := tests/unit/convert/falcon
FALCON_SPEC := tests/unit/convert/falcon_published/spec
# The demo's Spark jobs run on a standalone master and two workers (one core each) that `make demo` starts on
# 127.0.0.1:7077 (toolkit/devtools/standalone_spark.py sets SPARK_MASTER; docs/standalone-cluster.md); `make demo
# SPARK=local` runs them in local[2] instead. One core per application: the application that an engine-spark process
# starts (top-pages) and two data-triggered runs at once each find a free worker.
SPARK ?= standalone
ifeq ($(SPARK),local)
SPARK_ARGS := --master 'local[2]'
else ifeq ($(SPARK),standalone)
SPARK_ARGS := --master $${SPARK_MASTER:?is not set: run make demo, which starts the cluster, or give SPARK=local} \
  --deploy-mode client --conf spark.executor.cores=1 --conf spark.cores.max=1 --conf spark.executor.memory=512m
else
$(error SPARK=$(SPARK) is neither standalone (the default) nor local)
endif
SPARK_SUBMIT = $(VENV)/bin/spark-submit $(SPARK_ARGS) --conf spark.ui.enabled=false
DEMO_SPARK_FOLDER := /tmp/feed-toolkit-demo/spark-cluster
export PYSPARK_DRIVER_PYTHON := $(abspath $(PY))

.PHONY: test test-quick test-fast demo demo-full demo-steps demo-tables demo-triggers demo-ingest bench bench-quick bench-baseline lint java jar install clean docs chromium airflow databases prometheus dist

# The toolkit's Java classes (toolkit/core/storage/jvm_classes.py), compiled against the jars of the installed pyspark.
JAVA_SOURCES := $(wildcard toolkit/core/storage/jvm/*.java)
JAR := toolkit/core/storage/jvm/feed-toolkit-jvm.jar

java:
	@v=$$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n1); \
	if [ -z "$$v" ] || [ "$$v" -lt 17 ]; then \
	  echo "Java 17 or newer is required by pyspark 4 and was not found on PATH: install it (Debian: apt-get install openjdk-17-jre-headless)."; \
	  exit 1; \
	fi

# pip's own output goes to $(VENV)/install.log, shown when it fails.
$(STAMP): pyproject.toml constraints.txt
	@echo "Installing the toolkit and its dependencies into $(VENV)/ (a few minutes the first time; log: $(VENV)/install.log)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@{ $(PY) -m pip install --quiet --disable-pip-version-check --upgrade pip && \
	  PYTHONWARNINGS=ignore $(PY) -m pip install --quiet --disable-pip-version-check -c constraints.txt -e '.[spark,quality,test]'; \
	} > $(VENV)/install.log 2>&1 || { cat $(VENV)/install.log; echo "Installing into $(VENV)/ failed (see above)."; exit 1; }
	@touch $(STAMP)

$(JAR): $(JAVA_SOURCES) $(STAMP)
	@command -v javac >/dev/null || { echo "javac (a JDK 17 or newer) is required to build $(JAR): install it (Debian: apt-get install openjdk-17-jdk-headless)."; exit 1; }
	@spark_home=$$($(PY) -c 'import os, pyspark; print(os.path.dirname(pyspark.__file__))') && \
	classes=$$(mktemp -d) && trap 'rm -rf "$$classes"' EXIT && \
	javac --release 17 -Xlint:all,-path -Werror -d "$$classes" -cp "$$spark_home/jars/*" $(JAVA_SOURCES) && \
	jar --create --file $@ -C "$$classes" .

jar: $(JAR)

# The toolkit's bytecode, written as a regular (non-editable) install writes it: where PYTHONDONTWRITEBYTECODE is
# set, an editable install would otherwise compile each module it imports at every call (a quarter of a `toolkit
# trigger` sweep's time), which no installed toolkit pays. Up-to-date modules are skipped (0.3 s).
install: $(STAMP) $(JAR)
	@$(PY) -m compileall -q -j 0 toolkit

# What a YARN, Kubernetes or standalone cluster runs (docs/cluster.md), in dist/: the wheel, the packed environment
# feed-toolkit.pex (a PEX run by the nodes' own python3, for drivers and executors), the jar for --jars and the
# entrypoint scripts. DIST_PYTHONS: interpreters of the Python versions the nodes run (default: the venv's).
DIST_PYTHONS ?=
dist: java install $(JAR)
	$(PY) -m toolkit.devtools.dist --out dist $(foreach python,$(DIST_PYTHONS),--python $(python))

# docs/rules.md is generated from the rule modules' docstrings (a test fails when it is out of date).
docs: install
	$(PY) -m toolkit.authoring.lint.rule_docs docs/rules.md

# The browser tests of `toolkit graph`'s page (tests/integration/graph/) drive Debian's chromium: installed here when
# it is missing and apt-get can (CI runs as root on a fresh Debian machine).
CHROMIUM := /usr/bin/chromium
chromium:
	@test -x $(CHROMIUM) || { command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ] && \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || \
	  { echo "$(CHROMIUM) is missing and could not be installed: install Debian's chromium (apt-get install chromium, as root); the browser tests of toolkit graph need it."; exit 1; }
	@test -x $(CHROMIUM) || { echo "apt-get ran but $(CHROMIUM) is still missing: install Debian's chromium by hand."; exit 1; }

# The tests of `toolkit trigger --notify airflow` (tests/integration/airflow/) run a real Airflow API server, scheduler
# and DAG processor on SQLite: Airflow is installed in a virtualenv of its own (its pins would fight the project's),
# pinned by tests/airflow/constraints.txt, and left alone when that version is already there.
# pip's own output goes to $(AIRFLOW_VENV)/install.log, shown when it fails.
AIRFLOW_VENV := .airflow-venv
AIRFLOW_VERSION := 3.3.2
airflow:
	@if [ "$$($(AIRFLOW_VENV)/bin/python -c 'from importlib.metadata import version; print(version("apache-airflow"))' 2>/dev/null)" != "$(AIRFLOW_VERSION)" ]; then \
	  echo "Installing apache-airflow==$(AIRFLOW_VERSION) into $(AIRFLOW_VENV)/ (about a minute)"; \
	  rm -rf $(AIRFLOW_VENV) && $(PYTHON) -m venv $(AIRFLOW_VENV) && \
	  { $(AIRFLOW_VENV)/bin/python -m pip install --quiet --upgrade pip && \
	    $(AIRFLOW_VENV)/bin/python -m pip install --quiet -c tests/airflow/constraints.txt apache-airflow==$(AIRFLOW_VERSION); \
	  } > $(AIRFLOW_VENV)/install.log 2>&1 || \
	  { cat $(AIRFLOW_VENV)/install.log; echo "Installing apache-airflow==$(AIRFLOW_VERSION) into $(AIRFLOW_VENV)/ failed (see above): the Airflow tests need it."; exit 1; }; \
	fi

# The tests of JDBC tables (tests/integration/databases.py) run real PostgreSQL and MariaDB servers, each in a folder
# of its own on a free port of 127.0.0.1 (toolkit/devtools/local_database.py), from Debian's packages, and read them
# through Debian's JDBC drivers: installed here when missing and apt-get can (CI runs as root on a fresh Debian machine).
# Installing would start Debian's own system servers (5432, 3306): a policy-rc.d that says no, there while apt-get
# runs (unless one is there already), keeps them off; one started anyway is harmless (ours have their own folders,
# free ports and settings).
DATABASE_FILES := /usr/lib/postgresql/15/bin/postgres=postgresql-15 /usr/lib/postgresql/15/bin/psql=postgresql-client-15 \
  /usr/sbin/mariadbd=mariadb-server /usr/bin/mariadb=mariadb-client /usr/share/java/postgresql.jar=libpostgresql-jdbc-java \
  /usr/share/java/mariadb-java-client.jar=libmariadb-java
databases:
	@missing=$$(for pair in $(DATABASE_FILES); do test -e "$${pair%%=*}" || echo "$${pair#*=}"; done | sort -u | xargs); \
	[ -z "$$missing" ] && exit 0; \
	if ! command -v apt-get >/dev/null || [ "$$(id -u)" != 0 ]; then \
	  echo "Debian's packages $$missing are missing and could not be installed: install them (apt-get install $$missing, as root); the database tests need them."; exit 1; \
	fi; \
	echo "Installing Debian's $$missing (the database tests' servers and JDBC drivers; a minute or two)"; \
	policy=/usr/sbin/policy-rc.d; \
	if [ ! -e $$policy ]; then trap 'rm -f '$$policy EXIT; printf '#!/bin/sh\nexit 101\n' > $$policy; chmod 755 $$policy; fi; \
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } || \
	  { echo "apt-get could not install $$missing (see above): the database tests need them."; exit 1; }; \
	for pair in $(DATABASE_FILES); do test -e "$${pair%%=*}" || \
	  { echo "apt-get ran but $${pair%%=*} is still missing: install Debian's $${pair#*=} by hand."; exit 1; }; done

# The tests of `toolkit metrics` (tests/integration/metrics/) read its output with Debian's prometheus-node-exporter
# (the textfile collector), scrape it with Debian's prometheus and check the alerting rules with its promtool, each
# started on a free port of 127.0.0.1 by the tests: installed here when missing and apt-get can (CI runs as root on a
# fresh Debian machine), with their system services kept off as the databases' are.
PROMETHEUS_FILES := /usr/bin/prometheus=prometheus /usr/bin/promtool=prometheus /usr/bin/prometheus-node-exporter=prometheus-node-exporter
prometheus:
	@missing=$$(for pair in $(PROMETHEUS_FILES); do test -e "$${pair%%=*}" || echo "$${pair#*=}"; done | sort -u | xargs); \
	[ -z "$$missing" ] && exit 0; \
	if ! command -v apt-get >/dev/null || [ "$$(id -u)" != 0 ]; then \
	  echo "Debian's packages $$missing are missing and could not be installed: install them (apt-get install $$missing, as root); the tests of toolkit metrics need them."; exit 1; \
	fi; \
	echo "Installing Debian's $$missing (the metrics tests' exporter, server and promtool)"; \
	policy=/usr/sbin/policy-rc.d; \
	if [ ! -e $$policy ]; then trap 'rm -f '$$policy EXIT; printf '#!/bin/sh\nexit 101\n' > $$policy; chmod 755 $$policy; fi; \
	{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; } || \
	  { echo "apt-get could not install $$missing (see above): the tests of toolkit metrics need them."; exit 1; }; \
	for pair in $(PROMETHEUS_FILES); do test -e "$${pair%%=*}" || \
	  { echo "apt-get ran but $${pair%%=*} is still missing: install Debian's $${pair#*=} by hand."; exit 1; }; done

# The whole suite: the unit tier first, on every core (a broken unit fails in minutes), then the integration tier on
# TEST_WORKERS pytest-xdist workers (default: one more than the cores, since a test that waits for a lease, a server or
# a timeout leaves its core to the others: 18.1 min against 19.6 min with one per core on 2 cores), each with its one
# SparkSession and the real servers its tests ask for, started once per worker; the tests of a slow server or of a
# module's shared set-up stay on one worker (`--dist loadgroup`, tests/integration/tiers.py). pyproject.toml's
# addopts list the slowest 20 at the end. docs/architecture.md, "Tests", says which tier is which.
TEST_WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
# The unit tier writes some 136,000 small files (650 MB) into pytest's temporary folders: on a memory file system
# (/dev/shm, when it has 2 GB free) it ran in 80.7 s against 94.3 s on this machine's ext4 /tmp (system time 19.8 s
# against 38.8), and the folder goes at the end instead of pytest removing an older run's, file by file, in a later
# one. Elsewhere, pytest's default place. UNIT_TESTS is the shell command that runs the tier so.
UNIT_TESTS = shm=$$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 && $$4 > 2097152 {print "/dev/shm"}'); \
	base=$${shm:+$$(mktemp -d "$$shm/feed-toolkit-unit-tests.XXXXXX" 2>/dev/null)}; \
	if [ -n "$$base" ]; then trap 'rm -rf "$$base"' EXIT; trap 'exit 130' INT TERM; fi; \
	$(PY) -m pytest -q -n auto $${base:+--basetemp="$$base/t"} tests/unit
# While the unit tier runs, the integration tier's class-data archive is made at the lowest priority, on what CPU that
# tier leaves free, when the checkout's pytest cache has none (tests/integration/jvm_archive.py: 44 s of one core on a
# quiet machine; at a normal priority it slowed the unit tier by 26 s; the maker dies with this recipe's shell, and a
# failed making costs only speed). Airflow's virtualenv, which only the integration tier needs, is installed after the
# unit tier, while the maker finishes on the other core (on a fresh clone it waited 12 s after the unit tier alone).
test: java install chromium databases prometheus
	@nice -n 19 $(PY) -m tests.integration.jvm_archive --prepare $$$$ 900 >/dev/null 2>&1 & maker=$$!; \
	{ $(UNIT_TESTS); } || { kill $$maker 2>/dev/null; exit 1; }; \
	$(MAKE) --no-print-directory airflow || { kill $$maker 2>/dev/null; exit 1; }; \
	wait $$maker || true
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup tests/integration

# The inner loop: the unit tier, then the integration tests that start no JVM of their own and use no server
# (markers `jvm` and `server`): the entrypoints run in process on the shared SparkSession.
test-quick: java install chromium
	@$(UNIT_TESTS)
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup -m "not jvm and not server" tests/integration

# The unit tier alone, on every core (pytest-xdist), in about a minute: no Spark, no Airflow, no subprocess
# (tests/unit/conftest.py fails a unit test that starts one), so it needs neither Java nor the jar.
test-fast: $(STAMP)
	@$(UNIT_TESTS)

# The short tour (demo/tour.py): every capability once, its Spark actions in one long-lived driver (about 2 minutes).
demo: java install databases
	@$(PY) demo/tour.py

# The long tour: every call its own spark-submit, as a scheduler runs them, on a standalone cluster (about 10 minutes).
demo-full: java install
ifeq ($(SPARK),local)
	@$(MAKE) --no-print-directory demo-steps
else
	@$(PY) -m toolkit.devtools.standalone_spark --folder $(DEMO_SPARK_FOLDER) --port 7077 --fresh --timeout 300 -- \
	  $(MAKE) --no-print-directory demo-steps
endif

# The long tour itself, run by `make demo-full` while its Spark master answers (or with SPARK=local).
demo-steps:
	@echo "== Lint the template config repo (what the pre-commit hook runs), and list the rules"
	$(TOOLKIT) lint $(DEMO_REPO)
	$(TOOLKIT) lint --list-rules
	@echo "== What the feed 'clicks' depends on and what depends on it"
	$(TOOLKIT) deps clicks --repo $(DEMO_REPO)
	@echo "== The process instances of the template repo, with resolved input windows and output paths"
	$(TOOLKIT) instances --repo $(DEMO_REPO) --process hourly-clicks-summary --time 2026-11-21T10:00Z
	$(TOOLKIT) instances --repo $(DEMO_REPO) --process daily-clicks-rollup --time 2026-11-21T00:00Z --format text
	@echo "== The feed 'clicks' on cluster 'backup' (its own path there), 2026-11-21 09:00 to 12:00 UTC"
	$(TOOLKIT) instances --repo $(DEMO_REPO) --feed clicks --cluster backup --from 2026-11-21T09:00Z --to 2026-11-21T12:00Z --format text
	@echo "== Migrate Falcon definitions written as Falcon's documentation writes them (host:port execute, localoozie, versions,"
	@echo "   a file feed, a table feed, a Hive workflow and a Spark application on the cluster, queueName), then lint: clean"
	rm -rf demo-output/converted
	$(TOOLKIT) convert-falcon $(FALCON_SPEC)/*.xml --out demo-output/converted
	$(TOOLKIT) lint demo-output/converted
	@grep -A8 '^workflow:' demo-output/converted/processes/user-sessions.yaml
	@echo "   (a feed with Falcon's Sqoop import: reported by name, exit 1, the rest is written)"
	-$(TOOLKIT) convert-falcon $(FALCON_SAMPLES)/customer-emails-feed.xml --out demo-output/converted
	@echo "== Retention: 4 days of generated clicks on 'primary' (kept 90 days), evicted as of 2026-03-31T10:00Z"
	rm -rf /tmp/feed-toolkit-demo/primary/data/clicks /tmp/feed-toolkit-demo/primary/feed-toolkit/working/retention
	$(PY) $(DEMO_REPO)/demo/generate_clicks.py --root /tmp/feed-toolkit-demo/primary --start 2025-12-29T00:00Z --hours 96
	$(SPARK_SUBMIT) entrypoints/retention.py --repo $(DEMO_REPO) --feed clicks --cluster primary --time 2026-03-31T10:00Z --dry-run 2>/dev/null | tail -n 4
	$(SPARK_SUBMIT) entrypoints/retention.py --repo $(DEMO_REPO) --feed clicks --cluster primary --time 2026-03-31T10:00Z 2>/dev/null | tail -n 1
	@echo "   left of 2025-12-31 (the cut-off is 2025-12-31T10:00Z):" $$(ls /tmp/feed-toolkit-demo/primary/data/clicks/2025/12/31 | tr '\n' ' ')
	@echo "   the report:"; head -c 600 /tmp/feed-toolkit-demo/primary/feed-toolkit/working/retention/clicks/20260331T1000Z.json; echo " ..."
	@echo "== Replication: clicks from primary to backup, the instances of 2026-01-01 00:00 to 05:00 (a catch-up), then a rerun"
	rm -rf /tmp/feed-toolkit-demo/backup/replica/clicks /tmp/feed-toolkit-demo/backup/feed-toolkit/working/replication
	$(SPARK_SUBMIT) entrypoints/replication.py --repo $(DEMO_REPO) --feed clicks --source primary --target backup --time 2026-01-01T05:00Z --from 2026-01-01T00:00Z --to 2026-01-01T05:00Z 2>/dev/null | tail -n 1
	@echo "   on backup:" $$(cd /tmp/feed-toolkit-demo/backup/replica/clicks/2026/01/01 && ls -d */* | tr '\n' ' ')
	@echo "   the rerun finds every file there, unchanged, and copies nothing:"
	$(SPARK_SUBMIT) entrypoints/replication.py --repo $(DEMO_REPO) --feed clicks --source primary --target backup --time 2026-01-01T05:00Z --from 2026-01-01T00:00Z --to 2026-01-01T05:00Z 2>/dev/null | tail -n 1
	@echo "   the instance of 2026-01-02T00:00Z was never generated: the run waits (exit 3) until the feed's timeout"
	-$(SPARK_SUBMIT) entrypoints/replication.py --repo $(DEMO_REPO) --feed clicks --target backup --time 2026-01-02T00:00Z --now 2026-01-02T01:00Z 2>&1 | tail -n 2
	@echo "== Data safety: lint refuses feeds that share folders (RP009) and clusters on object stores (CL006)"
	$(PY) $(DEMO_REPO)/demo/safety_repo.py --to /tmp/feed-toolkit-demo/safety-repo --mistakes
	-$(TOOLKIT) lint /tmp/feed-toolkit-demo/safety-repo | grep -E ' (RP009|CL006) ' | cut -c1-230
	@echo "   retention with action: archive (the same repo without the mistakes): each expired instance copied to /archive, verified, then removed"
	$(PY) $(DEMO_REPO)/demo/safety_repo.py --to /tmp/feed-toolkit-demo/safety-repo
	rm -rf /tmp/feed-toolkit-demo/primary/archive
	$(SPARK_SUBMIT) entrypoints/retention.py --repo /tmp/feed-toolkit-demo/safety-repo --feed clicks --cluster primary --time 2026-04-01T00:00Z 2>/dev/null | tail -n 1
	@echo "   in /archive/data/clicks/2025/12/31:" $$(ls /tmp/feed-toolkit-demo/primary/archive/data/clicks/2025/12/31 | tr '\n' ' ')
	@echo "   left in /data/clicks/2025:" $$(ls /tmp/feed-toolkit-demo/primary/data/clicks/2025 2>/dev/null | tr '\n' ' ' | grep . || echo "nothing (the emptied folders are gone)")
	@echo "== Table feeds: web.visits in primary's metastore (port 9083), replicated into backup's (port 9084)"
	rm -rf /tmp/feed-toolkit-demo/primary/warehouse /tmp/feed-toolkit-demo/primary/feed-toolkit/working/retention/visits
	$(PY) -m toolkit.devtools.local_metastore --folder /tmp/feed-toolkit-demo/metastore-primary --port 9083 --fresh -- \
	  $(PY) -m toolkit.devtools.local_metastore --folder /tmp/feed-toolkit-demo/metastore-backup --port 9084 --fresh -- \
	  $(MAKE) --no-print-directory demo-tables
	$(MAKE) --no-print-directory demo-triggers
	$(MAKE) --no-print-directory demo-ingest
	@echo "== How to schedule it: every call primary needs, generated from the repo with Falcon's cadences (toolkit schedule),"
	@echo "   with the paths of a scheduler host: the crontab, then the same calls as Airflow DAG files and an Oozie bundle"
	$(TOOLKIT) schedule --repo $(DEMO_REPO) --cluster primary $(SCHEDULE_PATHS)
	rm -rf demo-output/schedule
	$(TOOLKIT) schedule --repo $(DEMO_REPO) --cluster primary $(SCHEDULE_PATHS) --format airflow --out demo-output/schedule/airflow
	$(TOOLKIT) schedule --repo $(DEMO_REPO) --cluster primary $(SCHEDULE_PATHS) --format oozie --out demo-output/schedule/oozie
	@echo "   in demo-output/schedule/airflow:" $$(ls demo-output/schedule/airflow | head -n 4 | tr '\n' ' ') "..."
	@echo "   in demo-output/schedule/oozie:" $$(ls demo-output/schedule/oozie | head -n 4 | tr '\n' ' ') "..."
	@echo "   regenerating changes nothing, and --check (CI, the pre-commit hook) says the files are up to date:"
	$(TOOLKIT) schedule --repo $(DEMO_REPO) --cluster primary $(SCHEDULE_PATHS) --format airflow --out demo-output/schedule/airflow --check
	@echo "== SLAs (the generated schedule calls this every 5 minutes): the clicks and summaries of 2026-01-01 00:00-02:00"
	@echo "   judged as of 06:00 that day by their slaLow/slaHigh and shouldStartIn/shouldEndIn (exit 1: something missed)"
	-$(TOOLKIT) sla --repo $(DEMO_REPO) --cluster primary --now 2026-01-01T06:00Z --from 2026-01-01T00:00Z --to 2026-01-01T02:00Z --no-notify
	@echo "== The graph of the template repo on primary, each feed and process coloured by its latest status in primary's"
	@echo "   ledger (open demo-output/pipelines.html in a browser: a click on a node shows its definition and instances)"
	@mkdir -p demo-output
	$(TOOLKIT) graph --repo $(DEMO_REPO) --cluster primary --ledger --out demo-output/pipelines.html
	@echo "   as Mermaid, for a Markdown page: the graph on backup (short), coloured by the replications in backup's ledger"
	$(TOOLKIT) graph --repo $(DEMO_REPO) --cluster backup --ledger --format mermaid
	@echo "== A ledger of years: primary's closed instances of January moved into one roll-up file per process and month"
	@echo "   (toolkit ledger-rollup; the generated schedule calls it daily); the summary of 2026-01-01 reads the same"
	$(TOOLKIT) ledger-rollup --repo $(DEMO_REPO) --cluster primary --now 2026-02-01T00:00Z
	@echo "   hourly-clicks-summary's ledger folder now holds:" $$(ls $(DEMO_ROOT)/feed-toolkit/working/ledger/processes/hourly-clicks-summary | tr '\n' ' ')
	$(TOOLKIT) summary --repo $(DEMO_REPO) --process hourly-clicks-summary --cluster primary --from 2026-01-01T00:00Z --to 2026-01-01T23:00Z
	@echo "== The time engine on its own"
	$(TOOLKIT) el eval "lastMonth(0,0,0)" --time 2026-11-21T10:00Z --timezone America/Los_Angeles
	$(TOOLKIT) el instances --start 2012-03-11T08:40Z --frequency "hours(1)" --timezone PST8PDT --from 2012-03-11T08:00Z --to 2012-03-11T12:00Z
	$(TOOLKIT) el path '/data/clicks/$${YEAR}/$${MONTH}/$${DAY}/$${HOUR}' --time 2026-11-21T10:00Z --timezone Asia/Kolkata

# Part of `make demo`, run while local metastores answer on primary's and backup's registry ports (9083, 9084):
# table retention and replication, and the processes (the daily rollup writes a table on primary).
demo-tables:
	@echo "-- retention: 45 daily partitions, kept 30 days, as of 2026-04-01"
	$(SPARK_SUBMIT) $(DEMO_REPO)/demo/load_visits.py --repo $(DEMO_REPO) --cluster primary --start 2026-02-20 --days 45 2>/dev/null
	$(SPARK_SUBMIT) entrypoints/retention.py --repo $(DEMO_REPO) --feed visits --cluster primary --time 2026-04-01T00:00Z --dry-run 2>/dev/null | tail -n 3
	$(SPARK_SUBMIT) entrypoints/retention.py --repo $(DEMO_REPO) --feed visits --cluster primary --time 2026-04-01T00:00Z 2>/dev/null | tail -n 1
	$(SPARK_SUBMIT) $(DEMO_REPO)/demo/load_visits.py --repo $(DEMO_REPO) --cluster primary --show 2>/dev/null
	@echo "-- replication: the partitions of 2026-04-01 to 2026-04-05 exported, copied and imported into backup, then a rerun"
	$(SPARK_SUBMIT) entrypoints/replication.py --repo $(DEMO_REPO) --feed visits --target backup --time 2026-04-05T00:00Z --from 2026-04-01T00:00Z --to 2026-04-05T00:00Z 2>/dev/null | tail -n 1
	$(SPARK_SUBMIT) entrypoints/replication.py --repo $(DEMO_REPO) --feed visits --target backup --time 2026-04-05T00:00Z --from 2026-04-01T00:00Z --to 2026-04-05T00:00Z 2>/dev/null | tail -n 1
	@echo "-- the same in two steps, for a target that cannot reach the source's metastore: export on primary, import on backup"
	$(SPARK_SUBMIT) entrypoints/hive_export.py --repo $(DEMO_REPO) --feed visits --cluster primary --time 2026-03-31T00:00Z --to file:///tmp/feed-toolkit-demo/backup/feed-toolkit/staging/exports/visits-20260331 2>/dev/null | tail -n 1
	$(SPARK_SUBMIT) entrypoints/hive_import.py --repo $(DEMO_REPO) --feed visits --cluster backup --from file:///tmp/feed-toolkit-demo/backup/feed-toolkit/staging/exports/visits-20260331 2>/dev/null | tail -n 1
	$(SPARK_SUBMIT) $(DEMO_REPO)/demo/load_visits.py --repo $(DEMO_REPO) --cluster backup --show 2>/dev/null
	@echo "== Processes: the hourly clicks summary of 2026-01-01 (24 instances in one call), then the daily rollup into files and web.clicks_daily"
	rm -rf /tmp/feed-toolkit-demo/primary/data/clicks-hourly-summary /tmp/feed-toolkit-demo/primary/data/clicks-daily /tmp/feed-toolkit-demo/primary/data/top-pages /tmp/feed-toolkit-demo/primary/feed-toolkit/working/ledger
	@echo "   (the clicks of 2025-12-31 22:00 and 23:00, which the first hours read, were archived above: generated again)"
	$(PY) $(DEMO_REPO)/demo/generate_clicks.py --root /tmp/feed-toolkit-demo/primary --start 2025-12-31T22:00Z --hours 2
	$(SPARK_SUBMIT) $(DEMO_REPO)/demo/create_tables.py --repo $(DEMO_REPO) --cluster primary 2>/dev/null
	$(SPARK_SUBMIT) entrypoints/process.py --repo $(DEMO_REPO) --process hourly-clicks-summary --cluster primary --from 2026-01-01T00:00Z --to 2026-01-01T23:00Z 2>/dev/null | grep '^process: 2026' | head -n 3; echo "   ..."
	@echo "   the rollup with OpenLineage on (the client's file transport, set by its OPENLINEAGE__ variables): its events"
	@mkdir -p demo-output && rm -f demo-output/openlineage.jsonl
	OPENLINEAGE__TRANSPORT__TYPE=file OPENLINEAGE__TRANSPORT__LOG_FILE_PATH=$(abspath demo-output)/openlineage.jsonl OPENLINEAGE__TRANSPORT__APPEND=true \
	  $(SPARK_SUBMIT) entrypoints/process.py --repo $(DEMO_REPO) --process daily-clicks-rollup --cluster primary --time 2026-01-02T00:00Z 2>/dev/null | tail -n 1
	$(PY) $(DEMO_REPO)/demo/show_openlineage.py demo-output/openlineage.jsonl
	@echo "   then top-pages, a Falcon-style Spark application (engine spark) run by its own spark-submit with Falcon's arguments:"
	$(SPARK_SUBMIT) entrypoints/process.py --repo $(DEMO_REPO) --process top-pages --cluster primary --time 2026-01-02T00:00Z 2>/dev/null | tail -n 1
	@cat /tmp/feed-toolkit-demo/primary/data/top-pages/2026/01/01/part-*.json
	$(TOOLKIT) summary --repo $(DEMO_REPO) --process hourly-clicks-summary --cluster primary --from 2026-01-01T00:00Z --to 2026-01-01T23:00Z
	$(TOOLKIT) status --repo $(DEMO_REPO) --process daily-clicks-rollup --cluster primary --from 2026-01-02T00:00Z --to 2026-01-02T00:00Z
	@echo "   an instance whose input is missing: --no-wait exits 3 and lists it (2026-01-02T00:00Z was never generated)"
	-$(SPARK_SUBMIT) entrypoints/process.py --repo $(DEMO_REPO) --process hourly-clicks-summary --cluster primary --time 2026-01-02T00:00Z --now 2026-01-02T00:30Z --no-wait 2>&1 | grep '^process:'
	@echo "-- quality gates: each summary above met quality/clicks-hourly-summary.json (Great Expectations) before it was published;"
	@echo "   quality_check.py checks a published hour on demand (exit 0: every expectation holds)"
	$(SPARK_SUBMIT) entrypoints/quality_check.py --repo $(DEMO_REPO) --feed clicks-hourly-summary --cluster primary --time 2026-01-01T10:00Z 2>/dev/null | grep '^quality:'
	@echo "   a bad hour: the tracker sent a page without its leading slash at 2026-01-03T10:00Z; the gate blocks each of the"
	@echo "   3 attempts and nothing is published (--max-retry-delay 0: the retries without the policy's 5 minutes between them)"
	$(PY) $(DEMO_REPO)/demo/generate_clicks.py --root /tmp/feed-toolkit-demo/primary --start 2026-01-03T08:00Z --hours 3 >/dev/null
	sed -i 's|"/cart"|"cart"|' /tmp/feed-toolkit-demo/primary/data/clicks/2026/01/03/10/part-00000.json
	-$(SPARK_SUBMIT) entrypoints/process.py --repo $(DEMO_REPO) --process hourly-clicks-summary --cluster primary --time 2026-01-03T10:00Z --max-retry-delay 0 2>/dev/null | grep -E '^(quality|process: attempt 3)'
	@test ! -e /tmp/feed-toolkit-demo/primary/data/clicks-hourly-summary/2026/01/03/10 && echo "   no summary of 2026-01-03T10:00Z was published; the attempts' ledger records hold each expectation's result"
	@echo "-- late data: the clicks of 2026-01-01T09:00Z rewritten (same size) after the summaries ran; the check at 12:00 reruns the hours whose window holds 09:00"
	sed -i 's|"/cart"|"/carx"|' /tmp/feed-toolkit-demo/primary/data/clicks/2026/01/01/09/part-00000.json
	$(SPARK_SUBMIT) entrypoints/late_check.py --repo $(DEMO_REPO) --process hourly-clicks-summary --cluster primary --time 2026-01-01T12:00Z 2>/dev/null | grep '^late_check:'
	$(TOOLKIT) status --repo $(DEMO_REPO) --process hourly-clicks-summary --cluster primary --from 2026-01-01T08:00Z --to 2026-01-01T12:00Z
	@echo "   called again: nothing is due, nothing reruns"
	$(SPARK_SUBMIT) entrypoints/late_check.py --repo $(DEMO_REPO) --process hourly-clicks-summary --cluster primary --time 2026-01-01T12:05Z 2>/dev/null | tail -n 1
	@echo "-- lineage: the summary of 2026-01-01T10:00Z as the late rerun made it, the clicks that rerun read (no dataset events:"
	@echo "   fingerprinted from their files), and the daily rollup that read its first version (changed since read)"
	$(TOOLKIT) lineage --repo $(DEMO_REPO) --cluster primary --feed clicks-hourly-summary --time 2026-01-01T10:00Z --up 1
	@echo "-- safemode: every action exits 5 before touching data"
	$(TOOLKIT) safemode on --repo $(DEMO_REPO) --cluster primary --reason "demo"
	-$(SPARK_SUBMIT) entrypoints/process.py --repo $(DEMO_REPO) --process hourly-clicks-summary --cluster primary --time 2026-01-01T05:00Z --force 2>/dev/null | tail -n 1
	$(TOOLKIT) safemode off --repo $(DEMO_REPO) --cluster primary
	@echo "-- dataset events: the replication's on backup, the summaries' on primary (the late rerun: replaced), and an outside"
	@echo "   producer's clicks of 2026-01-02T03:00Z published with toolkit publish (04:00 is not there: exit 3)"
	$(PY) $(DEMO_REPO)/demo/generate_clicks.py --root /tmp/feed-toolkit-demo/primary --start 2026-01-02T03:00Z --hours 1
	$(TOOLKIT) publish --repo $(DEMO_REPO) --feed clicks --cluster primary --time 2026-01-02T03:00Z
	-$(TOOLKIT) publish --repo $(DEMO_REPO) --feed clicks --cluster primary --time 2026-01-02T04:00Z
	$(TOOLKIT) events --repo $(DEMO_REPO) --cluster backup --feed clicks --from 2026-01-01T00:00Z --to 2026-01-01T01:00Z
	$(TOOLKIT) events --repo $(DEMO_REPO) --cluster primary --from 2026-01-01T09:00Z --to 2026-01-01T10:00Z
	$(TOOLKIT) events --repo $(DEMO_REPO) --cluster primary --feed clicks --from 2026-01-02T03:00Z --format json

TRIGGER_REPO := /tmp/feed-toolkit-demo/trigger-repo
TRIGGER_ROOT := /tmp/feed-toolkit-demo/trigger-primary
SWEEP = $(TOOLKIT) trigger --repo $(TRIGGER_REPO) --cluster primary --spark-submit $(VENV)/bin/spark-submit --submit-args "$(SPARK_ARGS) --conf spark.ui.enabled=false" --wait

# Part of `make demo`: data-aware triggering on a copy of the template whose primary has a root and a ledger of its
# own, emptied first (demo/trigger_repo.py); the runs it starts get the demo's Spark master by --submit-args.
# The sweeps' output is filtered to be short; pipefail keeps a failed sweep or run failing the demo.
demo-triggers: private .SHELLFLAGS := -o pipefail -c
demo-triggers: java install
	@echo "== Data-aware triggering: published clicks start the hourly summaries (trigger: data), whose events start a"
	@echo "   batch consumer (no frequency, summary-row-counts: the rows of each new summary)"
	$(PY) $(DEMO_REPO)/demo/trigger_repo.py --to $(TRIGGER_REPO) --root $(TRIGGER_ROOT)
	$(TOOLKIT) lint $(TRIGGER_REPO)
	@echo "   a producer writes the clicks of 2025-12-31T23:00Z to 2026-01-01T02:00Z and publishes each hour (toolkit publish);"
	@echo "   a sweep starts each summary whose clicks window (H-2 to H) is published, and says what the others wait for:"
	@$(PY) $(DEMO_REPO)/demo/generate_clicks.py --root $(TRIGGER_ROOT) --start 2025-12-31T23:00Z --hours 4 >/dev/null
	@for t in 2025-12-31T23:00Z 2026-01-01T00:00Z 2026-01-01T01:00Z 2026-01-01T02:00Z; do \
	  $(TOOLKIT) publish --repo $(TRIGGER_REPO) --feed clicks --cluster primary --time $$t >/dev/null || exit 1; done
	$(SWEEP) | sed 's/ (log .*//'
	@echo "   the next sweep reads the two summaries' events: the batch consumer consumes them in one batch"
	$(SWEEP) | grep '^started'
	@echo "   the clicks of 03:00 published: a sweep runs the summary of 03:00, the next one a second batch (its one event)"
	@$(PY) $(DEMO_REPO)/demo/generate_clicks.py --root $(TRIGGER_ROOT) --start 2026-01-01T03:00Z --hours 1 >/dev/null
	$(TOOLKIT) publish --repo $(TRIGGER_REPO) --feed clicks --cluster primary --time 2026-01-01T03:00Z | sed -n 1p
	$(SWEEP) | grep '^started'
	$(SWEEP) | grep '^started'
	$(TOOLKIT) queue --repo $(TRIGGER_REPO) --cluster primary --process summary-row-counts
	@echo "   what the batches wrote (each at the hour of the newest summary it consumed):"
	@cat $(TRIGGER_ROOT)/data/summary-row-counts/2026/01/01/0[23]/part-*.json

DEMO_ROOT := /tmp/feed-toolkit-demo/primary
INGEST = $(SPARK_SUBMIT) entrypoints/ingest.py --repo $(DEMO_REPO) --feed page-views --cluster primary --once 2>/dev/null
INGEST_SWEEP = $(TOOLKIT) trigger --repo $(DEMO_REPO) --cluster primary --spark-submit $(VENV)/bin/spark-submit --submit-args "$(SPARK_ARGS) --conf spark.ui.enabled=false" --wait
demo-ingest: private .SHELLFLAGS := -o pipefail -c
demo-ingest: java install
	@echo "== Streaming ingest: a shipper drops 40 minutes of page views (from 10:00) into page-views' landing folder;"
	@echo "   ingest commits them into their hour exactly once, and a malformed line goes to the dead letters"
	rm -rf $(DEMO_ROOT)/landing/page-views $(DEMO_ROOT)/rejected/page-views $(DEMO_ROOT)/data/page-views \
	  $(DEMO_ROOT)/data/page-view-counts $(DEMO_ROOT)/feed-toolkit/working/ingest/page-views \
	  $(DEMO_ROOT)/feed-toolkit/working/ledger/ingest/page-views $(DEMO_ROOT)/feed-toolkit/working/ledger/events/page-views \
	  $(DEMO_ROOT)/feed-toolkit/working/ledger/processes/hourly-page-view-counts
	$(PY) $(DEMO_REPO)/demo/drop_page_views.py --root $(DEMO_ROOT) --start 2026-01-01T10:00Z --minutes 40
	$(INGEST) | grep '^ingest:'
	@echo "   the hour 10:00 appeared, open (no flag yet); the dead letter, with its file, offset, line and reason;"
	@echo "   the landing folder emptied: each committed file moved to _ingested/<day> (kept days(7), then deleted)"
	ls $(DEMO_ROOT)/data/page-views/2026/01/01/10
	cat $(DEMO_ROOT)/rejected/page-views/*.json
	ls -A $(DEMO_ROOT)/landing/page-views $(DEMO_ROOT)/landing/page-views/_ingested/*
	@echo "   40 more minutes: the watermark passes 11:10 (10:00 plus its delay, minutes(70)), so 10:00 is closed (flag, event)"
	$(PY) $(DEMO_REPO)/demo/drop_page_views.py --root $(DEMO_ROOT) --start 2026-01-01T10:40Z --minutes 40 >/dev/null
	$(INGEST) | grep '^ingest:'
	ls $(DEMO_ROOT)/data/page-views/2026/01/01/10
	@echo "   run again: nothing new is read (each landing file is ingested once)"
	$(INGEST) | grep '^ingest:'
	@echo "   the shipper restarts and reuses the name of its first file: a new file, ingested whole (never skipped)"
	$(PY) $(DEMO_REPO)/demo/drop_page_views.py --root $(DEMO_ROOT) --start 2026-01-01T11:20Z --minutes 20 \
	  --name views-2026-01-01T10:00:00.csv >/dev/null
	$(INGEST) | grep '^ingest:'
	ls $(DEMO_ROOT)/landing/page-views/_ingested/*
	@echo "   compaction rewrites the closed hour's batch files into one, swapped in atomically"
	$(SPARK_SUBMIT) entrypoints/compact.py --repo $(DEMO_REPO) --feed page-views --cluster primary --time 2026-01-01T10:00Z 2>/dev/null | tail -n 1
	ls $(DEMO_ROOT)/data/page-views/2026/01/01/10
	@echo "   the closed hour's event starts its data-triggered consumer, hourly-page-view-counts:"
	$(INGEST_SWEEP) | grep -E '^(started|trigger:)'
	cat $(DEMO_ROOT)/data/page-view-counts/2026/01/01/10/part-*.json

# Every benchmark runs (the list is bench/run.py's), then one table: each figure now, its baseline
# (bench/baseline.json), its target, pass or fail, flagged when more than 20% worse than the baseline, and the
# machine's load. The target fails when a figure missed its target. bench-quick: the subset that runs in under
# 3 minutes; bench-baseline: a whole run whose figures become the baseline (refused when the machine was loaded).
bench: java install databases
	$(PY) bench/run.py

bench-quick: java install
	$(PY) bench/run.py --quick

bench-baseline: java install
	$(PY) bench/run.py --write-baseline

# Style (ruff), types (mypy, files and settings in pyproject.toml's [tool.mypy]) and the import layers of
# pyproject.toml's [tool.importlinter] (no cycle, no arrow pointing up).
lint: install
	$(VENV)/bin/ruff check toolkit tests bench demo $(wildcard entrypoints)
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports --no-cache

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache $(JAR)
