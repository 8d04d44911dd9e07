"""Fixtures of the integration tests: real components, each started once per test session (docs/architecture.md).

- `spark`: the one SparkSession of the run (local[2], loopback only, UI off, Hive support with an embedded
  Derby metastore); its warehouse, Derby files and scratch space live in a session temporary directory, so
  nothing is written into the repository.
- `spark_cluster`: a Spark standalone master and two workers, for tests that submit to a real cluster.
- `oozie`: a stand-in of an Oozie server's REST API (Oozie cannot run here), for the oozie and pig engines.
- `class_archive_maker` (autouse): the class-data sharing archive the JVMs of spark-submit runs map, made beside the
  tests where the cache has none; `jvm_class_archive`: that archive, waited for.
- `run_entrypoint`: an entrypoint run inside the test process on `spark` (tests/integration/in_process.py), the
  default way to call one; `spark_submit` (tests/integration/spark_submit.py) in tests marked `jvm`.
Add further session fixtures (metastore servers, clusters) below, one section each. The markers `jvm` and `server`,
and the guard of `jvm`, are tests/integration/tiers.py's.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from tests.integration import tiers
from tests.integration.in_process import run_in_process
from tests.integration.jvm_archive import ArchiveMaker, archive_path
from tests.integration.jvm_watch import IGNORED
from tests.jvm_options import use_for_subprocesses

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from tests.oozie_server import StandInOozie
    from toolkit.devtools.standalone_spark import StandaloneCluster


# pyspark.sql.connect (which Great Expectations imports) takes a `__main__` that has neither a spec nor a file for
# a doctest run and exits 0 when its extras are missing; a pytest-xdist worker's `__main__` (execnet's `python -c`)
# is such a module, so the worker says where it comes from.
_MAIN = sys.modules["__main__"]
if getattr(_MAIN, "__spec__", None) is None and not hasattr(_MAIN, "__file__"):
    _MAIN.__file__ = "<pytest-xdist worker>"


# ----------------------------------------------------------------------------------------------- Tiers
def pytest_configure(config: pytest.Config) -> None:
    """The markers' hooks, as a plugin: a conftest's hooks miss the set-up of session fixtures (tiers.py)."""
    if not config.pluginmanager.is_registered(tiers):
        config.pluginmanager.register(tiers, "feed-toolkit-tiers")


# ----------------------------------------------------------------------------------------------- JVMs
@pytest.fixture(scope="session", autouse=True)
def class_archive_maker(request: pytest.FixtureRequest) -> Iterator[ArchiveMaker]:
    """The class-data sharing archive every JVM a test starts in a subprocess maps (tests/integration/jvm_archive.py),
    kept in pytest's cache: made once per machine (about a minute of one core) by a child process while the tests
    run, and mapped by the JVMs started once it is there (`_map_the_class_archive`)."""
    maker = ArchiveMaker(archive_path(request.config.cache.mkdir("jvm-archive")))
    if maker.child is not None:
        IGNORED.add(maker.child.pid)  # its JVM is the run's, not the test's that runs meanwhile
    use_for_subprocesses(maker.ready())
    yield maker
    maker.stop()


@pytest.fixture(autouse=True)
def _map_the_class_archive(class_archive_maker: ArchiveMaker) -> None:
    """The archive in the JVMs' options from the first test after it was made."""
    if "-XX:SharedArchiveFile" not in os.environ.get("SPARK_SUBMIT_OPTS", "") and \
            (archive := class_archive_maker.ready()) is not None:
        use_for_subprocesses(archive)


@pytest.fixture
def jvm_class_archive(class_archive_maker: ArchiveMaker) -> Path | None:
    """The session's archive, waited for (None: it could not be made)."""
    archive = class_archive_maker.wait()
    use_for_subprocesses(archive)
    return archive


# ----------------------------------------------------------------------------------------------- Spark
@pytest.fixture(scope="session")
def spark(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SparkSession]:
    """The session every integration test shares; stopped at the end of the run."""
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # before the JVM starts: Spark binds to loopback only
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    from toolkit.core.storage.jvm_classes import jar_path

    home = tmp_path_factory.mktemp("spark")
    derby = home / "derby"
    derby.mkdir()
    # The JVM's start takes the tests' JVM options (tests/jvm_options.py) like every other; the tests' small queries
    # run faster without whole-stage code generation and adaptive execution (whose compiling and re-planning cost
    # more than they save on a few rows): about 12% of a Spark-heavy module. Nor does the session compile the
    # projections and predicates of single expressions (Janino, the one code generation whole-stage's switch leaves):
    # Spark's own tests' `factoryMode` runs them interpreted, the same results for another 13% of a Spark-heavy
    # module's CPU (tests/integration/process_runner/test_runner.py: 71 s against 82). The real spark-submit tests
    # keep Spark's defaults.
    session = (
        SparkSession.builder.master("local[2]")
        .appName("feed-toolkit-tests")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.sql.codegen.factoryMode", "NO_CODEGEN")
        .config("spark.ui.enabled", "false")
        .config("spark.jars", jar_path())  # the toolkit's Java classes (toolkit/core/storage/jvm_classes.py)
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.local.dir", str(home / "scratch"))
        .config("spark.sql.warehouse.dir", str(home / "warehouse"))
        .config("spark.driver.extraJavaOptions", f"-Dderby.system.home={derby}")
        .config("spark.hadoop.javax.jdo.option.ConnectionURL",
                f"jdbc:derby:;databaseName={derby / 'metastore_db'};create=true")
        .enableHiveSupport()
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("WARN")
    yield session
    session.stop()


@pytest.fixture
def run_entrypoint(spark: SparkSession) -> Callable[..., subprocess.CompletedProcess[str]]:
    """`run_entrypoint("retention", "--repo", ..., cwd=tmp_path, env={...})`: the entrypoint run in this process on
    the shared session, its exit code, stdout and stderr returned as `spark_submit` returns them."""
    return functools.partial(run_in_process, spark)


# ----------------------------------------------------------------------------------------------- Hive metastore
# `metastore_factory` starts a real Thrift metastore server per call (Derby and warehouse in a session temporary
# directory, a free port, waits until it answers); all stop at the end of the run. `thrift_metastore` is the one
# server most tests share. See tests/integration/metastore.py.
from tests.integration.metastore import metastore_factory, thrift_metastore  # noqa: E402, F401


# ----------------------------------------------------------------------------------------------- Spark standalone
# `spark_cluster`: one real standalone master and two workers (one core each) from pyspark's jars, on a free port of
# 127.0.0.1, started when a test first asks, stopped at the end of the run (toolkit/devtools/standalone_spark.py).
# Submit to it with `spark_submit(..., master=spark_cluster.url)` (tests/integration/spark_submit.py).
@pytest.fixture(scope="session")
def spark_cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StandaloneCluster]:
    from toolkit.devtools.standalone_spark import StandaloneCluster

    # A generous timeout: on a busy machine the master and workers take minutes to register (no cost when quick).
    cluster = StandaloneCluster.start(tmp_path_factory.mktemp("spark-cluster"), workers=2, timeout=300)
    yield cluster
    cluster.stop()


# ----------------------------------------------------------------------------------------------- Chromium
# `browser`: one headless Debian chromium driven by Playwright for the session, for the pages of `toolkit graph` and
# `toolkit report` (tests/integration/chromium.py).
from tests.integration.chromium import browser  # noqa: E402, F401


# ----------------------------------------------------------------------------------------------- Oozie (a stand-in)
# `oozie`: one STAND-IN of an Oozie server's REST API on a free port of 127.0.0.1 (tests/oozie_server.py; Oozie needs
# Hadoop and cannot run here), which runs a workflow's actions as local shell steps; cleared before each test that
# asks for it (`oozie.reset()`: its jobs, calls and commands), stopped at the end of the run.
@pytest.fixture(scope="session")
def oozie_server() -> Iterator[StandInOozie]:
    from tests.oozie_server import stand_in_oozie

    with stand_in_oozie() as server:
        yield server


@pytest.fixture
def oozie(oozie_server: StandInOozie) -> Iterator[StandInOozie]:
    oozie_server.reset()
    yield oozie_server
    oozie_server.stop_steps()


# ----------------------------------------------------------------------------------------------- Databases
# `postgres_server` and `mariadb_server`: one real PostgreSQL 15 and one MariaDB server each from Debian's packages
# (`make databases`), their data in a session temporary directory, on a free port of 127.0.0.1, started when a test
# first asks, stopped at the end of the run, with a database and user `toolkit` whose password is checked over TCP.
# `add_driver(spark, server)` makes the server's JDBC driver loadable by `spark`. See tests/integration/databases.py.
from tests.integration.databases import mariadb_server, postgres_server  # noqa: E402, F401
