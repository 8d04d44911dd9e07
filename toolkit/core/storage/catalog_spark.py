"""The active SparkSession's own catalog (with Hive support: its embedded metastore, or the metastore the session
is configured for), through Spark's session catalog in the JVM.

Partition values travel as Scala maps and literals, never spliced into SQL, so any value works. A listing is
one call to the session catalog (with a filter, the way Spark prunes partitions) plus one serialisation of the
whole result to JSON in the JVM (Spark's own Jackson with its Scala module): no JVM round trip per partition.
The statements built as SQL (CREATE TABLE LIKE, CREATE TABLE from a description, CREATE DATABASE) quote their
names, strings and location, and every column type in them is first parsed alone by Spark's type parser.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_records import (
    Column,
    Partition,
    StorageFormat,
    TableDescription,
    TableInfo,
    TableType,
    is_volatile_property,
    refuse_view,
    utc_from_seconds,
)
from toolkit.core.storage.filesystem import StorageError, normalize_uri
from toolkit.core.storage.hive_sql import column_definition, hive_type, property_list, quote_identifier, quote_string
from toolkit.core.storage.java_errors import java_error, one_line
from toolkit.core.storage.partition_specs import describe_spec, full_spec, matches, partial_spec_of, sort_partitions
from toolkit.core.storage.table_formats import data_source, format_of
from toolkit.core.storage.table_locations import default_table_location

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_NOT_FOUND = ("NoSuchTableException", "NoSuchNamespaceException", "NoSuchDatabaseException")


# Table properties Spark refuses in TBLPROPERTIES (they are clauses of their own), and its own internal ones.
_RESERVED_PROPERTIES = frozenset(["comment", "collation", "location", "provider", "owner", "external",
                                  "is_managed_location"])


def _location_of(uri: str) -> str:
    """Spark keeps locations as java.net.URI (`ds=a%20b`); the toolkit spells them as Hadoop paths (`ds=a b`)."""
    return normalize_uri(unquote(uri))


class SparkCatalog(Catalog):
    """The tables of `spark`'s session catalog."""

    description = "the Spark session's catalog"
    _jvm: Any  # py4j's view of the JVM, present while the session runs

    def __init__(self, spark: SparkSession) -> None:
        self._spark = spark
        self._jvm = spark._jvm
        self._catalog = spark._jsparkSession.sessionState().catalog()
        self._mapper: Any = None

    # -- JVM plumbing ----------------------------------------------------------------------------------------------

    @contextmanager
    def _errors(self, action: str, subject: str) -> Iterator[None]:
        """Java failures as one StorageError sentence naming the table or partition."""
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException

        try:
            yield
        except StorageError:
            raise
        except (Py4JError, PySparkException) as error:
            names, message = java_error(error)
            if any(name in names for name in _NOT_FOUND):
                raise StorageError(f"{subject} does not exist in {self.description}: check the database and table "
                                   "names (the feed's catalog URI) and the cluster.") from None
            raise StorageError(f"Could not {action} {subject} in {self.description}: {one_line(message)}") from None

    def _ident(self, database: str, table: str) -> Any:
        return self._jvm.org.apache.spark.sql.catalyst.TableIdentifier(table, self._jvm.scala.Some(database))

    def _scala_map(self, values: Mapping[str, str]) -> Any:
        java_map = self._jvm.java.util.LinkedHashMap()
        for key, value in values.items():
            java_map.put(key, value)
        return self._jvm.org.apache.spark.api.python.PythonUtils.toScalaMap(java_map)

    def _scala_seq(self, items: list[Any]) -> Any:
        java_list = self._jvm.java.util.ArrayList()
        for item in items:
            java_list.add(item)
        return self._jvm.org.apache.spark.api.python.PythonUtils.toSeq(java_list)

    def _json(self, value: Any) -> Any:
        """A Scala value as Python data, serialised in the JVM in one call."""
        if self._mapper is None:
            scala_module = getattr(getattr(self._jvm.com.fasterxml.jackson.module.scala, "DefaultScalaModule$"),
                                   "MODULE$")
            self._mapper = self._jvm.com.fasterxml.jackson.databind.ObjectMapper().registerModule(scala_module)
        return json.loads(self._mapper.writeValueAsString(value))

    def _table(self, database: str, table: str) -> tuple[Any, TableInfo]:
        subject = f"The table {database}.{table}"
        with self._errors("read", subject):
            java_table = self._catalog.getTableMetadata(self._ident(database, table))
            identifier, storage = java_table.identifier(), java_table.storage()
            location = storage.locationUri()
            provider = java_table.provider()
            input_format, serde = storage.inputFormat(), storage.serde()
            keys = self._jvm.scala.jdk.javaapi.CollectionConverters.asJava(java_table.partitionColumnNames())
            info = TableInfo(
                database=str(identifier.database().get()) if identifier.database().isDefined() else database,
                name=str(identifier.table()),
                location=_location_of(str(location.get().toString())) if location.isDefined() else None,
                table_type=TableType(str(java_table.tableType().name())),
                partition_keys=tuple(str(key) for key in keys),
                format=format_of(str(provider.get()) if provider.isDefined() else None,
                                 str(input_format.get()) if input_format.isDefined() else None,
                                 str(serde.get()) if serde.isDefined() else None),
            )
        return java_table, info

    def _predicates(self, java_table: Any, partial: Mapping[str, str]) -> list[Any]:
        """`key = 'value'` for each string key of a partial spec, as Spark's own partition pruning writes them:
        Spark hands them to the metastore as a filter (by value, on its indexed tables) and checks them again
        on what comes back. A partial *spec* would be a regular expression over names in the metastore: slow
        (one object lookup per partition) and inexact for values with `.`, `+`, `(` ..."""
        if not partial:
            return []
        jvm = self._jvm
        expressions = jvm.org.apache.spark.sql.catalyst.expressions
        string_type = jvm.org.apache.spark.sql.types.DataTypes.StringType
        key_types = {field["name"]: field["type"]
                     for field in json.loads(java_table.partitionSchema().json()).get("fields", [])}
        no_qualifier = self._scala_seq([])
        predicates = []
        for key, value in partial.items():
            if key_types.get(key) != "string":
                continue  # matched here only, after listing
            column = expressions.AttributeReference(key, string_type, True, jvm.org.apache.spark.sql.types.Metadata
                                                    .empty(), expressions.NamedExpression.newExprId(), no_qualifier)
            predicates.append(expressions.EqualTo(column, expressions.Literal.create(value, string_type)))
        return predicates

    def _refresh(self, info: TableInfo) -> None:
        """Forget what this session cached about the table's partitions (as ALTER TABLE does)."""
        self._spark.catalog.refreshTable(f"{quote_identifier(info.database)}.{quote_identifier(info.name)}")

    # -- the interface ---------------------------------------------------------------------------------------------

    def table_info(self, database: str, table: str) -> TableInfo:
        return self._table(database, table)[1]

    def list_partitions(self, database: str, table: str,
                        partial_spec: Mapping[str, str] | None = None) -> list[Partition]:
        java_table, info = self._table(database, table)
        partial = partial_spec_of(info, partial_spec)
        with self._errors("list the partitions of", f"the table {info.qualified_name}"):
            ident = self._ident(info.database, info.name)
            predicates = self._predicates(java_table, partial)
            if predicates:
                listed = self._catalog.listPartitionsByFilter(ident, self._scala_seq(predicates))
            else:
                listed = self._catalog.listPartitions(ident, self._jvm.scala.Option.empty())
            listed = self._json(listed)
        by_lower = {key.lower(): key for key in info.partition_keys}
        partitions = []
        for item in listed:
            raw = {by_lower.get(key.lower(), key): value for key, value in item["spec"].items()}
            values = {key: raw[key] for key in info.partition_keys if key in raw}
            if not matches(values, partial):
                continue
            created = item.get("createTime") or 0
            location = (item.get("storage") or {}).get("locationUri")
            partitions.append(Partition(values, _location_of(location) if location else None,
                                        utc_from_seconds(created / 1000)))
        return sort_partitions(partitions, info.partition_keys)

    def partition_location(self, database: str, table: str, spec: Mapping[str, str]) -> str | None:
        info = self.table_info(database, table)
        values = full_spec(info, spec)
        subject = f"the partition {describe_spec(values)} of {info.qualified_name}"
        with self._errors("read", subject):
            found = self._catalog.externalCatalog().getPartitionOption(info.database, info.name,
                                                                       self._scala_map(values))
            if not found.isDefined():
                return None
            location = found.get().storage().locationUri()
            return _location_of(str(location.get().toString())) if location.isDefined() else None

    def add_partition(self, database: str, table: str, spec: Mapping[str, str], location: str | None = None, *,
                      exist_ok: bool = False) -> bool:
        java_table, info = self._table(database, table)
        values = full_spec(info, spec)
        subject = f"the partition {describe_spec(values)} of {info.qualified_name}"
        jvm = self._jvm
        with self._errors("add", subject):
            # The partition is stored as the table is, at `location` (None: Spark and the metastore put it at
            # the table's default place for it and create the directory).
            storage = java_table.storage()
            fields = [storage.productElement(index) for index in range(storage.productArity())]
            fields[0] = (jvm.scala.Some(jvm.org.apache.spark.sql.catalyst.catalog.CatalogUtils.stringToURI(location))
                         if location else jvm.scala.Option.empty())
            partition_class = jvm.org.apache.spark.sql.catalyst.catalog.CatalogTablePartition
            partition = partition_class(self._scala_map(values), storage.copy(*fields),
                                        self._scala_map({}),
                                        int(time.time() * 1000), -1, jvm.scala.Option.empty())
            try:
                self._catalog.createPartitions(self._ident(info.database, info.name), self._scala_seq([partition]),
                                               False)
            except Exception as error:
                if "AlreadyExist" not in java_error(error)[0]:
                    raise
                if exist_ok:
                    return False
                raise StorageError(f"{subject[0].upper()}{subject[1:]} exists already in {self.description}.") \
                    from None
        self._refresh(info)
        return True

    def drop_partition(self, database: str, table: str, spec: Mapping[str, str], delete_data: bool) -> bool:
        info = self.table_info(database, table)
        values = full_spec(info, spec)
        subject = f"the partition {describe_spec(values)} of {info.qualified_name}"
        with self._errors("drop", subject):
            try:
                # retainData keeps the files; the metastore deletes them only for a managed table anyway, and an
                # external table's files stay whatever the caller asked (see Catalog.drop_partition).
                self._catalog.dropPartitions(self._ident(info.database, info.name),
                                             self._scala_seq([self._scala_map(values)]), False, False,
                                             not (delete_data and info.is_managed))
            except Exception as error:
                if "NoSuchPartition" not in java_error(error)[0]:
                    raise
                return False
        self._refresh(info)
        return True

    def _drop_external_table(self, info: TableInfo) -> None:
        with self._errors("drop", f"the table {info.qualified_name}"):
            self._catalog.dropTable(self._ident(info.database, info.name), True, False)

    def create_table_like(self, source_database: str, source_table: str, database: str, table: str,
                          location: str | None = None) -> TableInfo:
        source = self.table_info(source_database, source_table)
        subject = f"the table {database}.{table}"
        with self._errors("create", subject):
            if self._catalog.tableExists(self._ident(database, table)):
                raise StorageError(f"Cannot create {subject} like {source.qualified_name}: it exists already "
                                   f"in {self.description}.")
            statement = (f"CREATE TABLE {quote_identifier(database)}.{quote_identifier(table)} "
                         f"LIKE {quote_identifier(source.database)}.{quote_identifier(source.name)}")
            if location:
                statement += f" LOCATION {quote_string(location)}"
            self._spark.sql(statement)
        return self.table_info(database, table)

    # -- descriptions and creation ---------------------------------------------------------------------------------

    def _columns(self, schema_json: str) -> tuple[Column, ...]:
        columns = []
        for item in json.loads(schema_json).get("fields", []):
            metadata = item.get("metadata") or {}
            kind = hive_type(item.get("type"), metadata)
            if kind is None:  # a type the table above does not know: Spark's own spelling
                kind = str(self._jvm.org.apache.spark.sql.types.DataType.fromJson(json.dumps(item["type"]))
                           .catalogString())
            comment = metadata.get("comment")
            columns.append(Column(str(item["name"]), kind, str(comment) if comment else None))
        return tuple(columns)

    def describe_table(self, database: str, table: str) -> TableDescription:
        java_table, info = self._table(database, table)
        with self._errors("read", f"the table {info.qualified_name}"):
            storage = java_table.storage()
            provider = java_table.provider()
            comment = java_table.comment()
            data_schema, partition_schema = str(java_table.dataSchema().json()), str(java_table.partitionSchema()
                                                                                     .json())
            serde_parameters = self._json(storage.properties())
            properties = self._json(java_table.properties())

            def text(option: Any) -> str | None:
                return str(option.get()) if option.isDefined() else None

            return TableDescription(
                database=info.database, name=info.name, table_type=info.table_type, location=info.location,
                columns=self._columns(data_schema), partition_columns=self._columns(partition_schema),
                storage=StorageFormat(
                    input_format=text(storage.inputFormat()), output_format=text(storage.outputFormat()),
                    serde=text(storage.serde()),
                    serde_parameters={str(key): str(value) for key, value in serde_parameters.items()
                                      if key != "path"},
                    provider=data_source(text(provider))),
                properties={str(key): str(value) for key, value in properties.items()
                            if key != "comment" and not is_volatile_property(str(key))},
                comment=text(comment) or None,
            )

    def table_exists(self, database: str, table: str) -> bool:
        with self._errors("look up", f"the table {database}.{table}"):
            return bool(self._catalog.databaseExists(database)
                        and self._catalog.tableExists(self._ident(database, table)))

    def database_exists(self, database: str) -> bool:
        with self._errors("look up", f"the database {database}"):
            return bool(self._catalog.databaseExists(database))

    def create_database(self, database: str) -> bool:
        subject = f"the database {database}"
        with self._errors("create", subject):
            if self._catalog.databaseExists(database):
                return False
            try:
                self._spark.sql(f"CREATE DATABASE {quote_identifier(database)}")
            except Exception as error:
                if "AlreadyExists" not in java_error(error)[0] and "ALREADY_EXISTS" not in str(error):
                    raise
                return False
        return True

    def _column_ddl(self, column: Column, subject: str) -> str:
        """`name type COMMENT '...'`, the type checked to be one type and nothing more."""
        parser = getattr(getattr(self._jvm.org.apache.spark.sql.catalyst.parser, "CatalystSqlParser$"), "MODULE$")
        try:
            parser.parseDataType(column.type)
        except Exception:
            raise StorageError(f"Cannot create {subject}: the type {column.type!r} of its column {column.name} is "
                               "not a type Spark can read.") from None
        return column_definition(column)

    def create_table(self, database: str, table: str, description: TableDescription,
                     location: str | None = None) -> TableInfo:
        subject = f"the table {database}.{table}"
        refuse_view(description, subject)
        with self._errors("create", subject):
            if not self._catalog.databaseExists(database):
                raise StorageError(f"Cannot create {subject}: the database {database} does not exist in "
                                   f"{self.description}; create it first.")
            if self._catalog.tableExists(self._ident(database, table)):
                raise StorageError(f"Cannot create {subject}: it exists already in {self.description}.")
            external = bool(location) or description.table_type is not TableType.MANAGED
            if external and not location:  # the database's default place for it
                database_uri = self._catalog.getDatabaseMetadata(database).locationUri()
                location = default_table_location(_location_of(str(database_uri.toString())), table)
            storage = description.storage
            name = f"{quote_identifier(database)}.{quote_identifier(table)}"
            properties = {key: value for key, value in description.properties.items()
                          if not is_volatile_property(key) and not key.startswith("spark.sql.")
                          and key.lower() not in _RESERVED_PROPERTIES}
            clauses = []
            if storage.provider:  # a Spark data-source table: partition columns are columns, named again below
                columns = description.columns + description.partition_columns
                statement = f"CREATE TABLE {name} ({', '.join(self._column_ddl(c, subject) for c in columns)})"
                clauses.append(f"USING {quote_identifier(storage.provider)}")
                options = {key: value for key, value in storage.serde_parameters.items()
                           if key not in ("path", "serialization.format")}
                if options:
                    clauses.append(f"OPTIONS ({property_list(options)})")
                if description.partition_columns:
                    clauses.append("PARTITIONED BY (" + ", ".join(quote_identifier(column.name)
                                                                  for column in description.partition_columns) + ")")
            else:
                columns = description.columns
                statement = (f"CREATE {'EXTERNAL ' if external else ''}TABLE {name} "
                             f"({', '.join(self._column_ddl(c, subject) for c in columns)})")
                if description.partition_columns:
                    clauses.append("PARTITIONED BY (" + ", ".join(self._column_ddl(column, subject)
                                                                  for column in description.partition_columns) + ")")
                if storage.serde:
                    clauses.append(f"ROW FORMAT SERDE {quote_string(storage.serde)}")
                    if storage.serde_parameters:
                        clauses.append(f"WITH SERDEPROPERTIES ({property_list(storage.serde_parameters)})")
                if storage.input_format and storage.output_format:
                    clauses.append(f"STORED AS INPUTFORMAT {quote_string(storage.input_format)} "
                                   f"OUTPUTFORMAT {quote_string(storage.output_format)}")
            if location:
                clauses.append(f"LOCATION {quote_string(location)}")
            if description.comment:
                clauses.append(f"COMMENT {quote_string(description.comment)}")
            if properties:
                clauses.append(f"TBLPROPERTIES ({property_list(properties)})")
            self._spark.sql(" ".join([statement, *clauses]))
        return self.table_info(database, table)

    def alter_partition_location(self, database: str, table: str, spec: Mapping[str, str], location: str) -> None:
        info = self.table_info(database, table)
        values = full_spec(info, spec)
        subject = f"the partition {describe_spec(values)} of {info.qualified_name}"
        jvm = self._jvm
        with self._errors("move", subject):
            found = self._catalog.externalCatalog().getPartitionOption(info.database, info.name,
                                                                       self._scala_map(values))
            if not found.isDefined():
                raise StorageError(f"Cannot move {subject}: it does not exist in {self.description}.")
            old = found.get()
            storage = old.storage()
            fields = [storage.productElement(index) for index in range(storage.productArity())]
            fields[0] = jvm.scala.Some(jvm.org.apache.spark.sql.catalyst.catalog.CatalogUtils.stringToURI(location))
            moved = jvm.org.apache.spark.sql.catalyst.catalog.CatalogTablePartition(
                old.spec(), storage.copy(*fields), old.parameters(), old.createTime(), old.lastAccessTime(),
                old.stats())
            self._catalog.alterPartitions(self._ident(info.database, info.name), self._scala_seq([moved]))
        self._refresh(info)
