"""A database session in the Spark driver's JVM, through the datasource's own JDBC driver: the few statements the
import and export send besides Spark's reads and writes (the largest value of a column, a staging table, the
load of an export in one transaction), each as text in and text out.

A driver on the class path from the start (spark-submit's `--jars`, which `toolkit schedule` passes an import's
and an export's calls) is used as it is. Otherwise the driver's jars are added to the Spark session with Spark's
own `ADD JAR` (`load_driver`): that puts them in the session's class loader, which Spark's JDBC source uses on the
driver and ships to the executors, and makes it the class loader of the driver thread that calls (py4j runs each
Python thread's calls on one JVM thread of its own, so each Python thread adds them once); it costs about 2 s of a
short import. Neither `spark.jars` set on a running session nor SparkContext.addJar reaches the driver's class
loader. A connection is opened from the driver class itself
(`Driver.connect`), never through `DriverManager`, which would refuse a driver its caller's class loader does not
see."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.java_errors import java_error, one_line
from toolkit.core.storage.jdbc.dialect import TableColumn
from toolkit.core.storage.jdbc.endpoint import JdbcEndpoint
from toolkit.core.storage.jvm_classes import jar_file_name

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class DatabaseError(StorageError):
    """A statement or a connection failed (exit 1): the message names the database and what failed, never the
    password."""


def load_driver(spark: SparkSession, endpoint: JdbcEndpoint) -> None:
    """Make the endpoint's driver loadable by the session on the calling thread: nothing to do when its class
    loader sees the driver already and its jars are on `spark.jars` (spark-submit's --jars: the executors fetch
    them); else `ADD JAR`, which sets the class loader of the JVM thread that serves this Python thread only (each
    thread adds the jars once) and ships the jars to the executors. A driver on the driver's class path alone
    (`--driver-class-path`) is added too, for the executors."""
    added = _added_jars(spark)
    if all((threading.get_ident(), jar) in added for jar in endpoint.jars):
        return
    if _on_spark_jars(spark, endpoint.jars) and driver_on_class_path(spark, endpoint.driver_class):
        added.update((threading.get_ident(), jar) for jar in endpoint.jars)
        return
    for jar in endpoint.jars:
        if "'" in jar:
            raise DatabaseError(f"The JDBC driver jar {jar!r} of {endpoint.shown_url} has a quote in its path, which "
                                "Spark's ADD JAR cannot take: move the jar to a path without one.")
        if (threading.get_ident(), jar) in added:
            continue
        try:
            spark.sql(f"ADD JAR '{jar}'")
        except Exception as err:  # noqa: BLE001 - a py4j error: reported in one sentence
            raise DatabaseError(f"The JDBC driver jar {jar} of {endpoint.shown_url} cannot be added to the Spark "
                                f"session ({_said(err)}): check that the file exists on this machine.") from None
        added.add((threading.get_ident(), jar))


def driver_on_class_path(spark: SparkSession, driver_class: str) -> bool:
    """Whether the class loader of the JVM thread serving this Python thread loads `driver_class` (its jar given
    to spark-submit's --jars, or added by this thread before)."""
    jvm: Any = spark._jvm
    try:
        jvm.java.lang.Class.forName(driver_class, False, jvm.java.lang.Thread.currentThread().getContextClassLoader())
    except Exception:  # noqa: BLE001 - ClassNotFoundException through py4j: not there
        return False
    return True


def _on_spark_jars(spark: SparkSession, jars: Sequence[str]) -> bool:
    """Whether each of `jars` is, by its file name, on the session's `spark.jars`, which the executors fetch."""
    listed = {jar_file_name(entry) for entry in (spark.conf.get("spark.jars", "") or "").split(",")}
    return all(jar_file_name(jar) in listed for jar in jars)


_ADDED = "_feed_toolkit_jdbc_jars"


def _added_jars(spark: SparkSession) -> set[tuple[int, str]]:
    added: set[tuple[int, str]] | None = getattr(spark, _ADDED, None)
    if added is None:
        added = set()
        setattr(spark, _ADDED, added)
    return added


class DatabaseSession:
    """One connection of the endpoint's driver in the Spark driver's JVM."""

    def __init__(self, spark: SparkSession, endpoint: JdbcEndpoint, connection: Any) -> None:
        self.spark, self.endpoint, self._connection = spark, endpoint, connection

    def first_row(self, sql: str) -> list[str | None]:
        """The first row of a query, each value as the database spells it as text (None for NULL); [] when the
        query returns no row."""
        statement = self._connection.createStatement()
        try:
            results = statement.executeQuery(sql)
            if not results.next():
                return []
            width = results.getMetaData().getColumnCount()
            return [results.getString(index) for index in range(1, width + 1)]
        except Exception as err:  # noqa: BLE001
            raise self._failed(sql, err) from None
        finally:
            statement.close()

    def execute(self, sql: str) -> int:
        """A statement on its own (committed when it returns); the count of rows it changed (0 for DDL)."""
        statement = self._connection.createStatement()
        try:
            return int(statement.executeUpdate(sql))
        except Exception as err:  # noqa: BLE001
            raise self._failed(sql, err) from None
        finally:
            statement.close()

    def run_in_transaction(self, statements: Sequence[str]) -> list[int]:
        """Every statement, then one commit: the database keeps all of them or none (a failure, or the end of
        this process before the commit, rolls them back). The count of rows each changed."""
        connection = self._connection
        counts: list[int] = []
        connection.setAutoCommit(False)
        current = ""
        try:
            for current in statements:
                counts.append(self._in_transaction(current))
            current = "COMMIT"
            connection.commit()
        except DatabaseError:
            self._roll_back()
            raise
        except Exception as err:  # noqa: BLE001
            self._roll_back()
            raise self._failed(current, err) from None
        finally:
            connection.setAutoCommit(True)
        return counts

    def _in_transaction(self, sql: str) -> int:
        """One statement of `run_in_transaction`."""
        statement = self._connection.createStatement()
        try:
            return int(statement.executeUpdate(sql))
        except Exception as err:  # noqa: BLE001
            raise self._failed(sql, err) from None
        finally:
            statement.close()

    def stored_table(self, table: str) -> str | None:
        """`table` (`name` or `schema.name`, as a definition names it) as the database stores it, None when it has
        no such table: as written, else in lower case, else in upper case, as databases fold unquoted names
        differently (PostgreSQL to lower case; Derby, Oracle, DB2 to upper case), so that the statements, which
        quote names, name the table a user created with `CREATE TABLE daily_totals`."""
        schema, _, name = table.rpartition(".")
        metadata = self._connection.getMetaData()
        for spelled in dict.fromkeys((name, name.lower(), name.upper())):
            for schema_spelled in dict.fromkeys((schema, schema.lower(), schema.upper()) if schema else (None,)):
                if self._has_table(metadata, schema_spelled, spelled):
                    return f"{schema_spelled}.{spelled}" if schema_spelled else spelled
        return None

    @staticmethod
    def _has_table(metadata: Any, schema: str | None, name: str) -> bool:
        """Whether the metadata lists a table spelled `name` (a `_` of the pattern matches any character: compared)."""
        found = metadata.getTables(None, schema, name, None)
        try:
            while found.next():
                if found.getString("TABLE_NAME") == name:
                    return True
            return False
        finally:
            found.close()

    def primary_key(self, table: str) -> tuple[str, ...]:
        """The columns of `table`'s primary key (as the database stores its name: `stored_table`) in the key's
        order, each spelled as the database spells it; () when it has none. A name without a schema is looked up
        in the connection's own database and schema, not in another one's table of the same name; a schema is
        tried as a schema, then as a catalog (MySQL and MariaDB call their databases catalogs)."""
        schema, _, name = table.rpartition(".")
        connection = self._connection
        where = ([(None, schema), (schema, None)] if schema
                 else [(connection.getCatalog(), connection.getSchema())])
        metadata = connection.getMetaData()
        for catalog, schema_spelled in where:
            found = metadata.getPrimaryKeys(catalog, schema_spelled, name)
            key: list[tuple[int, str]] = []
            try:
                while found.next():
                    if found.getString("TABLE_NAME") == name:
                        key.append((int(found.getShort("KEY_SEQ")), found.getString("COLUMN_NAME")))
            finally:
                found.close()
            if key:
                return tuple(column for _, column in sorted(key))
        return ()

    def columns(self, table: str) -> tuple[TableColumn, ...]:
        """The columns of `table` (as the database stores its name), each as the database spells it, with its type."""
        sql = f"SELECT * FROM {self.endpoint.dialect.table(table)} WHERE 1 = 0"
        statement = self._connection.createStatement()
        try:
            shape = statement.executeQuery(sql).getMetaData()
            return tuple(TableColumn(shape.getColumnName(index), int(shape.getColumnType(index)),
                                     shape.getColumnTypeName(index))
                         for index in range(1, shape.getColumnCount() + 1))
        except Exception as err:  # noqa: BLE001
            raise self._failed(sql, err) from None
        finally:
            statement.close()

    def _roll_back(self) -> None:
        with contextlib.suppress(Exception):  # the error being raised says what went wrong
            self._connection.rollback()

    def _failed(self, sql: str, err: Exception) -> DatabaseError:
        return DatabaseError(f"{self.endpoint.shown_url} refused `{_brief(sql)}`: {_said(err)}")


def _said(err: BaseException) -> str:
    """What the database or its driver said, on one line."""
    return one_line(java_error(err)[1] or str(err))


def _brief(sql: str, most: int = 300) -> str:
    return sql if len(sql) <= most else sql[:most] + "..."


@contextmanager
def database_session(spark: SparkSession, endpoint: JdbcEndpoint) -> Iterator[DatabaseSession]:
    """A connection of the endpoint's driver, closed at the end (DatabaseError when it cannot be opened)."""
    load_driver(spark, endpoint)
    jvm: Any = spark._jvm
    registry = jvm.org.apache.spark.sql.execution.datasources.jdbc.DriverRegistry
    properties = jvm.java.util.Properties()
    for name, value in endpoint.connection_properties().items():
        if name != "driver":
            properties.setProperty(name, value)
    try:
        registry.register(endpoint.driver_class)
        connection = registry.get(endpoint.driver_class).connect(endpoint.url, properties)
    except Exception as err:  # noqa: BLE001
        raise DatabaseError(f"Cannot connect to {endpoint.shown_url} as '{endpoint.user}' with the driver "
                            f"{endpoint.driver_class} ({_said(err)}): check the datasource's endpoint, "
                            "credential and driver jars.") from None
    if connection is None:  # the driver does not take this URL
        raise DatabaseError(f"The driver {endpoint.driver_class} does not take the URL {endpoint.shown_url}: check the "
                            "datasource's type, endpoint and driver.")
    try:
        yield DatabaseSession(spark, endpoint, connection)
    finally:
        with contextlib.suppress(Exception):  # closing is best effort
            connection.close()
