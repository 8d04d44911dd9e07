"""The local PostgreSQL and MariaDB servers (toolkit/devtools/local_database.py) serve what the toolkit does with
JDBC tables: the shared Spark session, given Debian's driver by `ADD JAR` while it runs, writes a table and reads it
back, from the calling thread and from another one that adds the jar itself; a wrong password is refused by the
server itself; and the command line runs a command while a server answers and exits with its code."""

from __future__ import annotations

import datetime
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from chispa import assert_df_equality
from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession

from tests.integration.databases import DatabaseServer, add_driver
from toolkit.core.storage.java_errors import java_error
from toolkit.devtools.local_database import DatabaseCommandError
from toolkit.devtools.local_metastore import port_answers

PROJECT = Path(__file__).resolve().parents[3]
SCHEMA = "id int, name string, amount double, day date, active boolean"
# What each server says to a wrong password (the driver's exception, the cause of Spark's FAILED_JDBC.CONNECTION).
REFUSED = {"postgres": 'password authentication failed for user "toolkit"',
           "mariadb": "Access denied for user 'toolkit'@'127.0.0.1' (using password: YES)"}


@pytest.fixture(params=["postgres", "mariadb"])
def server(request: pytest.FixtureRequest) -> DatabaseServer:
    return request.getfixturevalue(f"{request.param}_server")


def _people(spark: SparkSession) -> DataFrame:
    return spark.createDataFrame([
        (1, "Zoë from Zürich", 12.5, datetime.date(2026, 1, 1), True),
        (2, "plain", -0.25, datetime.date(1999, 12, 31), False),
        (3, None, None, None, None),
    ], SCHEMA)


def test_spark_writes_a_table_through_the_jdbc_driver_and_reads_it_back(
        spark: SparkSession, server: DatabaseServer) -> None:
    server.create_database("roundtrip")
    url = server.jdbc_url("roundtrip")
    add_driver(spark, server)
    people = _people(spark)

    people.write.jdbc(url, "people", properties=server.jdbc_properties)
    back = spark.read.jdbc(url, "people", properties=server.jdbc_properties)

    # Types and values as written; the read adds JDBC's column metadata (scale, isSigned), which is not data.
    assert_df_equality(back, people, ignore_row_order=True, ignore_metadata=True)
    # The rows are in the server's own table, as its own client reads them.
    assert server.execute("SELECT count(*) FROM people", database="roundtrip", password=server.password) == "3\n"


def test_a_thread_that_adds_the_jar_itself_reads_too(spark: SparkSession, postgres_server: DatabaseServer) -> None:
    """ADD JAR makes the driver loadable on the JVM thread of the Python thread that ran it (py4j pins one to each):
    another Python thread adds it again before it reads, as the toolkit's driver loading must."""
    postgres_server.execute("DROP TABLE IF EXISTS threads; CREATE TABLE threads (id int); INSERT INTO threads "
                            "VALUES (7);", password=postgres_server.password)
    add_driver(spark, postgres_server)
    read: list[list[int]] = []

    def reader() -> None:
        add_driver(spark, postgres_server)
        rows = spark.read.jdbc(postgres_server.jdbc_url(), "threads", properties=postgres_server.jdbc_properties)
        read.append([row.id for row in rows.collect()])

    thread = threading.Thread(target=reader)
    thread.start()
    thread.join(timeout=120)
    assert read == [[7]]


def test_a_wrong_password_is_refused_by_the_server(spark: SparkSession, server: DatabaseServer) -> None:
    add_driver(spark, server)
    wrong = {**server.jdbc_properties, "password": "not-" + server.password}

    with pytest.raises(AnalysisException) as refused:
        spark.read.jdbc(server.jdbc_url(), "any_table", properties=wrong).schema  # noqa: B018 - resolving connects
    assert refused.value.getCondition() == "FAILED_JDBC.CONNECTION"
    assert REFUSED[server.kind] in java_error(refused.value)[1]

    with pytest.raises(DatabaseCommandError, match="password authentication failed|Access denied"):
        server.execute("SELECT 1", password="not-" + server.password)
    assert server.execute("SELECT 1", password=server.password) == "1\n"


def test_the_command_line_runs_a_command_while_the_server_answers(tmp_path: Path) -> None:
    script = ("import os, subprocess, sys; print(os.environ['MARIADB_JDBC_URL']); "
              "print(os.environ['MARIADB_DRIVER_JAR']); sys.exit(3)")
    done = subprocess.run(
        [sys.executable, "-m", "toolkit.devtools.local_database", "--kind", "mariadb", "--folder",
         str(tmp_path / "mariadb"), "--", sys.executable, "-c", script],
        capture_output=True, text=True, cwd=PROJECT, timeout=120, env={**os.environ, "PYTHONPATH": str(PROJECT)})

    assert done.returncode == 3, done.stderr
    url, jar = done.stdout.splitlines()  # nothing but what the command printed
    assert url.startswith("jdbc:mysql://127.0.0.1:") and url.endswith("/toolkit")
    assert jar == "/usr/share/java/mariadb-java-client.jar"
    assert not port_answers(int(url.split(":")[3].split("/")[0]))  # stopped after the command
