"""How the import and export load a datasource's JDBC driver (toolkit/core/storage/jdbc/connection.py), in a real
spark-submit against the real PostgreSQL server: a driver given to spark-submit's --jars, as `toolkit schedule`
passes it, is used as it is, with no `ADD JAR` (about 2 s of a short import); without --jars, `ADD JAR` makes it
loadable. Each side opens a connection and reads a row through it."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.integration.databases import DatabaseServer
from tests.integration.spark_submit import PROJECT, environment, script_command

SCRIPT = """
import json, sys
sys.path.insert(0, sys.argv[1])
from pyspark.sql import SparkSession
from toolkit.core.storage.jdbc.connection import database_session, driver_on_class_path
from toolkit.core.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.core.storage.jdbc.registry import dialect_for

url, user, password, driver, jar = sys.argv[2:7]
spark = SparkSession.builder.getOrCreate()
thread = spark._jvm.java.lang.Thread.currentThread()
before = thread.getContextClassLoader()
seen_before = driver_on_class_path(spark, driver)
endpoint = JdbcEndpoint(url=url, user=user, password=password, driver_class=driver, jars=(jar,),
                        dialect=dialect_for("postgres"))
with database_session(spark, endpoint) as session:
    row = session.first_row("SELECT 40 + 2")
print(json.dumps({"seen_before": seen_before, "loader_kept": thread.getContextClassLoader().equals(before),
                  "row": row}))
spark.stop()
"""


def _run(tmp_path: Path, server: DatabaseServer, *options: str) -> dict[str, object]:
    script = tmp_path / "load_driver.py"
    script.write_text(SCRIPT)
    done = subprocess.run(script_command(script, str(PROJECT), server.jdbc_url(), server.user, server.password,
                                         server.driver_class, str(server.driver_jar), options=options),
                          capture_output=True, text=True, env=environment(), timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return result


@pytest.mark.jvm
def test_a_driver_given_to_spark_submits_jars_is_used_as_it_is_without_add_jar(
        postgres_server: DatabaseServer, tmp_path: Path) -> None:
    result = _run(tmp_path, postgres_server, "--jars", str(postgres_server.driver_jar))
    assert result == {"seen_before": True, "loader_kept": True, "row": ["42"]}


@pytest.mark.jvm
def test_a_driver_not_on_the_class_path_is_added_to_the_session(postgres_server: DatabaseServer,
                                                                 tmp_path: Path) -> None:
    result = _run(tmp_path, postgres_server)
    assert result == {"seen_before": False, "loader_kept": False, "row": ["42"]}


@pytest.mark.jvm
def test_a_driver_on_the_drivers_class_path_alone_is_added_for_the_executors(postgres_server: DatabaseServer,
                                                                             tmp_path: Path) -> None:
    result = _run(tmp_path, postgres_server, "--driver-class-path", str(postgres_server.driver_jar))
    assert result == {"seen_before": True, "loader_kept": False, "row": ["42"]}
