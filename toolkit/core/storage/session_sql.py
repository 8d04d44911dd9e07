"""DDL run through a Spark session's SQL, for what the `Catalog` interface does not describe: Spark data-source
tables over files and views (the ledger's tables, toolkit/actions/ledger_tables/tables.py). The session must have Hive
support pointed at the cluster's metastore (toolkit/services/runtime/session.py), so the statements land there. Failures
are one StorageError sentence naming what was being done."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.java_errors import java_error, one_line

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def run_ddl(spark: SparkSession, statement: str, subject: str) -> None:
    """Run one DDL statement; `subject` names what it makes (`create the table db.t`) for the error."""
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    try:
        spark.sql(statement)
    except (Py4JError, PySparkException) as error:
        raise StorageError(f"Could not {subject}: {one_line(java_error(error)[1])}") from None
