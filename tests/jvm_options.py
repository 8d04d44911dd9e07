"""The JVM options of the tests' short-lived JVMs.

The JVMs that tests start in subprocesses (spark-submit runs, killed runs, the sweeps' runs) live for seconds: the
JIT's first tier alone and the serial collector start them with about 40% less CPU on this 2-core machine
(spark-submit of a tiny job: 6.5 s of CPU against 11). The integration tier also gives them a class-data sharing
archive of Spark's classes (tests/integration/jvm_archive.py), made once: a JVM that maps it loads some 13,000
classes without parsing and verifying them again, about half of what is left of its start-up CPU. Warnings of the
JVM's own log go to stderr, so that an archive a JVM cannot use (another class path) never reaches the stdout a
test reads. The semantics are the JVM's own; only the tests set them, through SPARK_SUBMIT_OPTS (which spark-submit
gives the driver's JVM), unless the environment sets it already; the tests' Hive metastore servers
(tests/integration/metastore.py) take them as arguments. The shared `spark` session
(tests/integration/conftest.py) takes them too, although it lives for the whole run: its work is many small queries,
which the first tier runs about as fast, without the second's compiler threads taking CPU from the other worker.
"""

from __future__ import annotations

import os
from pathlib import Path

SHORT_LIVED = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xlog:disable -Xlog:all=warning:stderr"
_OURS = "_FEED_TOOLKIT_TESTS_SPARK_SUBMIT_OPTS"  # what we set, to tell it from a value the environment gave


def short_lived(archive: Path | None = None) -> str:
    return SHORT_LIVED + (f" -XX:SharedArchiveFile={archive}" if archive is not None else "")


def use_for_subprocesses(archive: Path | None = None) -> None:
    """SPARK_SUBMIT_OPTS for the JVMs started from now on, unless the environment gave its own."""
    current = os.environ.get("SPARK_SUBMIT_OPTS")
    if current is not None and current != os.environ.get(_OURS):
        return
    os.environ["SPARK_SUBMIT_OPTS"] = os.environ[_OURS] = short_lived(archive)


def with_short_lived(env: dict[str, str]) -> dict[str, str]:
    """`env`, a child's whole environment made from scratch (PATH alone, say, as cron gives), with the tests' JVM
    options when they are in force: its JVMs start as cheaply as the others, their semantics unchanged."""
    options = os.environ.get("SPARK_SUBMIT_OPTS")
    return {**env, "SPARK_SUBMIT_OPTS": options} if options is not None and "SPARK_SUBMIT_OPTS" not in env else env
