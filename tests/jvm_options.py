"""The JVM options of the tests' short-lived JVMs.

The JVMs that tests start in subprocesses (spark-submit runs, killed runs, the sweeps' runs) live for seconds: the
JIT's first tier alone and the serial collector start them with about 40% less CPU on this 2-core machine
(spark-submit of a tiny job: 6.5 s of CPU against 11). The semantics are the JVM's own; only the tests set them,
through SPARK_SUBMIT_OPTS (which spark-submit gives the driver's JVM), unless the environment sets it already.
The shared `spark` session (tests/integration/conftest.py) lives for the whole run and keeps the JVM's defaults.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

SHORT_LIVED = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


def use_for_subprocesses() -> None:
    os.environ.setdefault("SPARK_SUBMIT_OPTS", SHORT_LIVED)


@contextmanager
def long_lived() -> Iterator[None]:
    """A JVM started inside keeps the JVM's defaults (the tests' own options are lifted meanwhile, no one else's)."""
    ours = os.environ.get("SPARK_SUBMIT_OPTS") == SHORT_LIVED
    if ours:
        del os.environ["SPARK_SUBMIT_OPTS"]
    try:
        yield
    finally:
        if ours:
            os.environ["SPARK_SUBMIT_OPTS"] = SHORT_LIVED
