"""The unit tier answers in about a minute (`make test-fast`): its tests start no program (no subprocess, so no
Spark JVM, no spark-submit, no Airflow, no shell) and import no Spark. A test that needs one belongs in
tests/integration, beside the real components. Forking this interpreter (two callers of a lock at once, through
multiprocessing) stays allowed: it runs the toolkit's own code, in milliseconds.

The guard is an audit hook (PEP 578): it sees `subprocess`, `os.exec*`, `os.posix_spawn` and `os.system`
whatever the test calls them through, and turns them into a failure of the test that did."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

_STARTS_A_PROGRAM = frozenset({"subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system"})
_HEAVY = ("pyspark", "py4j", "airflow")
_guarding: list[str] = []  # the node id of the running unit test, while one runs


def _refuse_programs(event: str, args: tuple[Any, ...]) -> None:
    if _guarding and event in _STARTS_A_PROGRAM:
        program = args[0] if args else "?"
        raise RuntimeError(f"{_guarding[0]} started a program ({event}: {program}): the unit tier starts none; "
                           "move the test to tests/integration (tests/unit/conftest.py).")


sys.addaudithook(_refuse_programs)  # a hook cannot be removed: it acts only while `_guarding` holds a test

# The entrypoints read the config repo's git commit with git (toolkit/services/runtime/repo_revision.py): not here.
# Their records keep the definition's hash; tests/integration/provenance/ runs them in git repositories.
os.environ["FEED_TOOLKIT_NO_GIT"] = "1"


@pytest.fixture(autouse=True)
def no_programs_and_no_spark(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails the test that starts a program or imports Spark, Py4J or Airflow."""
    before = {name for name in _HEAVY if name in sys.modules}
    _guarding.append(request.node.nodeid)
    try:
        yield
    finally:
        _guarding.clear()
    imported = sorted(name for name in _HEAVY if name in sys.modules and name not in before)
    if imported:
        pytest.fail(f"{request.node.nodeid} imported {', '.join(imported)}: the unit tier imports no Spark and no "
                    "Airflow; move the test to tests/integration (tests/unit/conftest.py).")
