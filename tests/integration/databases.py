"""Real PostgreSQL and MariaDB servers for the integration tests (toolkit/devtools/local_database.py starts them as
docs/architecture.md says), and `add_driver`, which makes a server's JDBC driver loadable by the running `spark`
session. The fixtures at the end are imported by conftest.py: `postgres_server` and `mariadb_server`, one server
each per test session, started when a test first asks, stopped at the end of the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from toolkit.devtools.local_database import DatabaseServer

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["DatabaseServer", "add_driver", "mariadb_server", "postgres_server"]


def add_driver(spark: SparkSession, server: DatabaseServer) -> None:
    """Debian's JDBC driver of `server` in the session, by Spark's `ADD JAR`: the session's class loader gets it
    (the executors too), and it becomes the class loader of the JVM thread that py4j runs this Python thread's
    calls on. Spark's JDBC source loads the driver class on the calling thread (the schema of `read.jdbc`, the table
    of `write.jdbc`): a test that reads from another Python thread calls this again there. Adding a jar again is
    harmless."""
    spark.sql(f"ADD JAR '{server.driver_jar}'")


# -- fixtures (conftest.py imports them) --------------------------------------------------------------------------

@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatabaseServer]:
    """One PostgreSQL 15 server shared by the session's tests: database and user `toolkit` (scram-sha-256)."""
    server = DatabaseServer.start("postgres", tmp_path_factory.mktemp("postgres"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def mariadb_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DatabaseServer]:
    """One MariaDB server shared by the session's tests: database and user `toolkit` (mysql_native_password)."""
    server = DatabaseServer.start("mariadb", tmp_path_factory.mktemp("mariadb"))
    yield server
    server.stop()
