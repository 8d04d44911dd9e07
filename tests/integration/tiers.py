"""The markers of the integration tier, and the guard that keeps `jvm` true (docs/architecture.md, "Tests").

- `jvm`: the test starts a JVM of its own in a subprocess (a real spark-submit, a run killed with SIGKILL, a CLI that
  builds its own Spark session): seconds of CPU each. Marked by hand; a test without the mark fails, naming the
  mark, when it starts spark-submit, spark-class or java itself (an audit hook) or when a JVM appears below the
  test process while it runs (tests/integration/jvm_watch.py: a child Python's own SparkSession, a CLI's sweep).
- `server`: the test uses a real server started for the run (a Hive metastore, PostgreSQL, MariaDB, Airflow,
  Prometheus, the Spark standalone cluster): marked from the fixtures it asks for, or by hand where the test starts
  the server itself.

`make test-quick` runs `-m "not jvm and not server"`: the inner loop, on the run's one shared SparkSession. The JVMs
that session-scoped fixtures start (the shared session itself, the metastores, the cluster) are theirs, not a
test's: the guard looks away while one is set up.

`make test` runs the tier on pytest-xdist's workers with `--dist loadgroup`: each worker has its own session and
starts the servers its tests ask for. The tests of a server that takes a minute to start (Airflow, the standalone
cluster) are one group, so one worker starts it; so are the tests of a module that share a module-scoped set-up. Of
the other tests, the `jvm` ones are handed out first: the long ones early, the short ones fill the end.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from typing import Any

import pytest

from tests.integration.jvm_watch import JvmWatch

SERVER_FIXTURES = frozenset({"thrift_metastore", "metastore_factory", "postgres_server", "mariadb_server", "airflow",
                             "spark_cluster", "node_exporter"})
_SPARK_LAUNCHERS = frozenset({"spark-submit", "spark-class"})  # real ones have Spark's spark-class beside them
_STARTS_A_PROGRAM = {"subprocess.Popen": 1, "os.posix_spawn": 1, "os.exec": 1}  # event -> index of its argv
_guarding: list[str] = []  # the node id of the unmarked test running, while one runs
_servers_starting = 0  # how many servers are starting now (from several threads at once, too)
_servers_lock = threading.Lock()
_watches: list[JvmWatch] = []  # the watch of the unmarked test running


def starts_a_jvm(argv: Sequence[Any]) -> bool:
    """True when `argv` runs java, or Spark's spark-submit or spark-class (as its program or through an
    interpreter); a test's stand-in spark-submit, a script that records its call, starts none."""
    words = [argv] if isinstance(argv, (str, bytes, os.PathLike)) else list(argv)
    return any(_is_a_jvm_launcher(os.fsdecode(word)) for word in words[:3]
               if isinstance(word, (str, bytes, os.PathLike)))


def _is_a_jvm_launcher(program: str) -> bool:
    name = os.path.basename(program)
    if name == "java":
        return True
    return name in _SPARK_LAUNCHERS and os.path.isfile(os.path.join(os.path.dirname(program) or ".", "spark-class"))


def _refuse_jvms(event: str, args: tuple[Any, ...]) -> None:
    at = _STARTS_A_PROGRAM.get(event)
    if (_guarding and not _servers_starting and at is not None and len(args) > at and args[at] is not None
            and starts_a_jvm(args[at])):
        raise RuntimeError(f"{_guarding[0]} started a JVM ({os.fsdecode(list(args[at])[0])}) without the `jvm` mark: "
                           "mark it @pytest.mark.jvm, or run the entrypoint in process (tests/integration/tiers.py).")


sys.addaudithook(_refuse_jvms)  # a hook cannot be removed: it acts only while `_guarding` holds a test


_ONE_WORKER_SERVERS = ("airflow", "spark_cluster")  # a minute or more to start: one worker starts each
_SHARED_SCOPES = frozenset({"package", "module", "class"})


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if SERVER_FIXTURES & fixtures:
            item.add_marker(pytest.mark.server)
        group = worker_group(item, fixtures)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
    items.sort(key=lambda item: not starts_first(item))


def starts_first(item: pytest.Item) -> bool:
    """A `jvm` test of no group: sent to a worker before the other tests of no group, so that the tier does not end
    with one worker in a JVM test of half a minute while the others have nothing left (pytest-xdist hands out the
    groups first, the largest first, then the other tests in their order). A fresh clone's tier ended so: one
    worker ran a 36 s JVM test from its 607th second while the two others had finished at 610 and 619 s."""
    return item.get_closest_marker("jvm") is not None and item.get_closest_marker("xdist_group") is None


def pytest_configure(config: pytest.Config) -> None:
    """Refuses `--dist loadgroup` where pytest-xdist cannot group: each worker would then start every slow server and
    every module's set-up, and nothing would say so."""
    if config.getoption("dist", "no") == "loadgroup" and not xdist_can_group():
        raise pytest.UsageError("pytest-xdist's --dist loadgroup cannot group tests with this pytest (xdist marks a "
                                "grouped test by rewriting its node id, which pytest 9.2 no longer reads; "
                                "pytest-dev/pytest-xdist#1386): install what constraints.txt pins (`make install`).")


def xdist_can_group() -> bool:
    """What xdist 3.8's worker does to a grouped test (`item._nodeid = f"{item.nodeid}@{group}"`) shows in its id."""
    probe = object.__new__(pytest.Function)
    probe._nodeid = "probe@group"
    try:
        return probe.nodeid == "probe@group"
    except AttributeError:  # pytest 9.2: the id is a structured `_id`
        return False


def worker_group(item: pytest.Item, fixtures: set[str]) -> str | None:
    """The xdist group of `item`: the slow server it uses, else its module when it shares a set-up of the module's."""
    for server in _ONE_WORKER_SERVERS:
        if server in fixtures:
            return server
    definitions = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    if any(defs and defs[-1].scope in _SHARED_SCOPES for defs in definitions.values()):
        return item.nodeid.split("::", 1)[0]
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None, object, object]:
    guarded = item.get_closest_marker("jvm") is None
    if guarded:
        _guarding.append(item.nodeid)
    try:
        return (yield)
    finally:
        _guarding.clear()


@contextmanager
def starting_a_server() -> Iterator[None]:
    """A server a test asks a session fixture's factory for (a metastore of its own): the run's, not the test's JVM."""
    global _servers_starting
    with _servers_lock:
        _servers_starting += 1
    try:
        with _watches[-1].paused() if _watches else nullcontext():
            yield
    finally:
        with _servers_lock:
            _servers_starting -= 1


@pytest.fixture(autouse=True)
def _no_jvm_below_an_unmarked_test(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails (at its teardown) an integration test without the `jvm` mark below which a JVM ran."""
    if request.node.get_closest_marker("jvm") is not None or "integration" not in request.node.path.parts:
        yield
        return
    watch = JvmWatch()
    _watches.append(watch)
    try:
        yield
    finally:
        _watches.remove(watch)
        seen = watch.stop()
    if seen:
        pytest.fail(f"{request.node.nodeid} ran a JVM of its own ({next(iter(seen.values()))}) without the `jvm` "
                    "mark: mark it @pytest.mark.jvm, or run the entrypoint in process (tests/integration/tiers.py).",
                    pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef: pytest.FixtureDef[object]) -> Generator[None, object, object]:
    """A session's (or a package's) server or shared JVM starts for every test after it: not this test's JVM."""
    if fixturedef.scope not in ("session", "package"):
        return (yield)
    with starting_a_server():
        return (yield)
