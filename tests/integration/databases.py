"""Real PostgreSQL and MariaDB servers for the integration tests (toolkit/devtools/local_database.py starts them as
docs/architecture.md says), and `add_driver`, which makes a server's JDBC driver loadable by the running `spark`
session. The fixtures at the end are imported by conftest.py: `postgres_server` and `mariadb_server`, one server
each per test session, started when a test first asks, stopped at the end of the session.

`DerbyDatabases`: Apache Derby databases embedded in the Spark driver's JVM (Derby's jars ship with pyspark), a
database that speaks standard SQL only and refuses what PostgreSQL and MariaDB let pass (a `CREATE TABLE ... AS`
without `WITH NO DATA`, a number compared with a string, a number cast to VARCHAR): what the `generic` dialect is
checked against. It has the attributes of a `DatabaseServer` that the transfer tests use.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from toolkit.devtools.local_database import DatabaseServer

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

__all__ = ["DatabaseServer", "DerbyDatabases", "add_driver", "mariadb_server", "postgres_server"]


def add_driver(spark: SparkSession, server: DatabaseServer) -> None:
    """Debian's JDBC driver of `server` in the session, by Spark's `ADD JAR`: the session's class loader gets it
    (the executors too), and it becomes the class loader of the JVM thread that py4j runs this Python thread's
    calls on. Spark's JDBC source loads the driver class on the calling thread (the schema of `read.jdbc`, the table
    of `write.jdbc`): a test that reads from another Python thread calls this again there. Adding a jar again is
    harmless."""
    spark.sql(f"ADD JAR '{server.driver_jar}'")


@dataclass(frozen=True)
class DerbyDatabases:
    """Embedded Derby databases in `folder`, each opened by the JVM of `spark` (one JVM at a time may open a
    Derby database: the actions under test run in this process). Derby has no authentication here: it takes any
    user and password, and a user's tables are in the schema of its name."""

    spark: SparkSession
    folder: Path
    kind: str = "derby"
    user: str = "toolkit"
    password: str = "derby-test-password"  # a test value: Derby does not check it
    driver_class: str = "org.apache.derby.iapi.jdbc.AutoloadedDriver"  # derby.jar's own driver since 10.15

    def jdbc_url(self, database: str) -> str:
        return f"jdbc:derby:{self.folder / database};create=true"

    @property
    def driver_jar(self) -> Path:
        """The jar pyspark ships Derby's engine and driver in (on the JVM's class path already)."""
        import pyspark

        jars = sorted((Path(pyspark.__file__).parent / "jars").glob("derby-[0-9]*.jar"))
        assert jars, "pyspark ships no derby jar"
        return jars[-1]

    def create_database(self, name: str) -> None:
        """Nothing to do: the URL creates the database when first opened."""

    def execute(self, sql: str, database: str, password: str | None = None) -> str:
        """One statement as the test user; a query's rows one a line, columns separated by tabs (as
        `DatabaseServer.execute` returns them)."""
        jvm: Any = self.spark._jvm
        connection = jvm.java.sql.DriverManager.getConnection(self.jdbc_url(database), self.user,
                                                              password or self.password)
        try:
            statement = connection.createStatement()
            if not statement.execute(sql):
                return ""
            results = statement.getResultSet()
            width = results.getMetaData().getColumnCount()
            lines = []
            while results.next():
                lines.append("\t".join(results.getString(i) or "" for i in range(1, width + 1)))
            return "".join(line + "\n" for line in lines)
        finally:
            connection.close()

    def shut_down(self, database: str) -> None:
        """Close the database in this JVM (Derby says so by an exception)."""
        jvm: Any = self.spark._jvm
        with contextlib.suppress(Exception):
            jvm.java.sql.DriverManager.getConnection(f"jdbc:derby:{self.folder / database};shutdown=true")


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
