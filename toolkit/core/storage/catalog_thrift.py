"""A remote Hive metastore (`thrift://host:9083`, a cluster's `registry` interface), through Hive's own metastore
client (`RetryingMetaStoreClient`, shipped in Spark's jars) in the active SparkSession's JVM.

Before the client is built, each metastore address is tried with a plain TCP connect, then one cheap call is
made through a throw-away client, both bounded by `connect_timeout`: a metastore that is down, unreachable or
not answering is one clear sentence, quickly. Later calls wait up to the read timeout. Results cross
from the JVM as JSON that Thrift's `TSimpleJSONProtocol` writes, fields by their names in hive_metastore.thrift
(one serialisation of the whole list in the JVM, read here by the standard library's JSON decoder), so listing
partitions costs a few JVM calls whatever their number.
"""

from __future__ import annotations

import json
import math
import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from typing import TYPE_CHECKING, Any, TypedDict
from urllib.parse import urlsplit

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
from toolkit.core.storage.hive_sql import column_definition
from toolkit.core.storage.java_errors import java_error, one_line
from toolkit.core.storage.partition_names import partition_name
from toolkit.core.storage.partition_specs import describe_spec, full_spec, matches, partial_spec_of, sort_partitions
from toolkit.core.storage.spark_table_properties import SPARK_PROVIDER, spark_properties, spark_schema_names
from toolkit.core.storage.table_formats import format_of
from toolkit.core.storage.table_locations import default_table_location
from toolkit.secrets_masking import masked

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

_UNREACHABLE = ("TTransportException", "SocketTimeoutException", "ConnectException", "SocketException",
                "UnknownHostException")


def endpoints_of(uri: str) -> list[tuple[str, int]]:
    """`thrift://a:9083,thrift://b:9083` -> [(a, 9083), (b, 9083)]; StorageError for anything else."""
    found = []
    for part in uri.split(","):
        parsed = urlsplit(part.strip())
        try:
            port = parsed.port
        except ValueError:
            port = None
        if parsed.scheme != "thrift" or not parsed.hostname or port is None:
            raise StorageError(f"The metastore URI {masked(uri)!r} is not thrift://host:port (e.g. "
                               "thrift://metastore:9083): fix the cluster's registry interface.")
        found.append((parsed.hostname, port))
    return found


def probe(uri: str, connect_timeout: float) -> None:
    """StorageError unless at least one of the metastore's addresses accepts a TCP connection in time."""
    failures = []
    for host, port in endpoints_of(uri):
        started = time.monotonic()
        try:
            with socket.create_connection((host, port), timeout=connect_timeout):
                return
        except OSError as error:
            if isinstance(error, TimeoutError) or time.monotonic() - started >= connect_timeout:
                reason = f"no answer within {connect_timeout:g} s"
            else:
                reason = error.strerror or str(error)
            failures.append(f"{host}:{port}: {reason}")
    raise StorageError(f"The Hive metastore at {uri} does not answer ({'; '.join(failures)}): start it, or fix the "
                       "cluster's registry interface if it names the wrong host or port, then run again.")


_FILTER_KEY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_]*$")
_FILTER_WORDS = frozenset(["and", "or", "not", "like", "between"])


def hive_filter(partial: Mapping[str, str], key_types: Mapping[str, str]) -> str | None:
    """The metastore's filter language for the equalities of a partial spec (`ds = "2026-11-21" and ...`):
    matched by value, in the metastore's database. A partial *spec* would be a regular expression over names,
    slow (an object lookup per partition) and inexact for values with `.`, `+`, `(` ... Terms the language cannot
    say (a key that is not a plain word or not a string, a value holding both quote marks) are left out and
    matched after listing, as every term is anyway."""
    terms = []
    for key, value in partial.items():
        if key_types.get(key) != "string" or not _FILTER_KEY.match(key) or key.lower() in _FILTER_WORDS:
            continue
        quote = '"' if '"' not in value else "'" if "'" not in value else None
        if quote:
            terms.append(f"{key} = {quote}{value}{quote}")
    return " and ".join(terms) or None


# -- Metastore objects as TSimpleJSONProtocol writes them: a struct is an object of its set fields by their names in
# hive_metastore.thrift, a list an array, a map with string keys an object, strings UTF-8, numbers, enums and
# booleans numbers. Only the fields read here are named.


class ThriftFieldSchema(TypedDict, total=False):
    name: str
    type: str
    comment: str


class ThriftSerDeInfo(TypedDict, total=False):
    serializationLib: str
    parameters: dict[str, str]


class ThriftStorageDescriptor(TypedDict, total=False):
    cols: list[ThriftFieldSchema]
    location: str
    inputFormat: str
    outputFormat: str
    serdeInfo: ThriftSerDeInfo


class ThriftTable(TypedDict, total=False):
    tableName: str
    dbName: str
    sd: ThriftStorageDescriptor
    partitionKeys: list[ThriftFieldSchema]
    parameters: dict[str, str]
    tableType: str


class ThriftPartition(TypedDict, total=False):
    values: list[str]
    createTime: int
    sd: ThriftStorageDescriptor


class ThriftPartitionList(TypedDict, total=False):
    """AddPartitionsResult: the metastore's list<Partition> holder, to serialise a whole listing at once."""
    partitions: list[ThriftPartition]


class JsonWriter:
    """Writes Thrift objects with TSimpleJSONProtocol (field names, not ids) into a buffer in the JVM and answers
    the text, decoded from UTF-8 there: py4j carries a string several times faster than a byte array (which it
    sends in base64), and `TSerializer.toString` would decode with the JVM's default charset."""

    def __init__(self, jvm: Any) -> None:
        self._buffer = jvm.java.io.ByteArrayOutputStream()
        self._protocol = jvm.org.apache.thrift.protocol.TSimpleJSONProtocol(
            jvm.org.apache.thrift.transport.TIOStreamTransport(self._buffer))

    def write(self, thrift_object: Any) -> str:
        self._buffer.reset()
        thrift_object.write(self._protocol)
        return str(self._buffer.toString("UTF-8"))


def table_info_of(table: ThriftTable, database: str, name: str) -> tuple[TableInfo, dict[str, str]]:
    """The facts of a decoded table (`database`, `name` where it does not say), and its partition keys' types."""
    sd = table.get("sd", {})
    parameters = table.get("parameters", {})
    hive_type = table.get("tableType", "MANAGED_TABLE")
    if hive_type in ("VIRTUAL_VIEW", "MATERIALIZED_VIEW"):
        table_type = TableType.VIEW
    elif hive_type == "EXTERNAL_TABLE" or str(parameters.get("EXTERNAL", "")).upper() == "TRUE":
        # The metastore keeps an external table's files by the EXTERNAL property; honour either mark.
        table_type = TableType.EXTERNAL
    else:
        table_type = TableType.MANAGED
    location = sd.get("location")
    keys = table.get("partitionKeys", [])
    info = TableInfo(
        database=table.get("dbName", database), name=table.get("tableName", name),
        location=normalize_uri(location) if location else None, table_type=table_type,
        partition_keys=tuple(key["name"] for key in keys),
        format=format_of(parameters.get(SPARK_PROVIDER), sd.get("inputFormat"),
                         sd.get("serdeInfo", {}).get("serializationLib")),
    )
    return info, {key["name"]: str(key.get("type", "")).lower() for key in keys}


def partitions_of(listing: ThriftPartitionList, keys: tuple[str, ...], partial: Mapping[str, str]) -> list[Partition]:
    """The decoded partitions with a value for every key that match the partial spec, in the keys' order."""
    partitions = []
    for item in listing.get("partitions", []):
        values = dict(zip(keys, item.get("values", []), strict=False))
        if len(values) != len(keys) or not matches(values, partial):
            continue
        location = item.get("sd", {}).get("location")
        partitions.append(Partition(values, normalize_uri(location) if location else None,
                                    utc_from_seconds(item.get("createTime"))))
    return sort_partitions(partitions, keys)


def _columns(items: list[ThriftFieldSchema], names: Mapping[str, str]) -> tuple[Column, ...]:
    return tuple(Column(names.get(str(item.get("name", "")).lower(), item.get("name", "")),
                        str(item.get("type", "")), item.get("comment") or None) for item in items)


class ThriftCatalog(Catalog):
    """The tables of a remote Hive metastore. One client per catalog; calls are serialised (the client is not
    thread-safe). Close it when done (or use it as a context manager)."""

    _jvm: Any  # py4j's view of the JVM, present while the session runs
    _client: Any  # Hive's metastore client; None once closed

    def __init__(self, spark: SparkSession, uri: str, *, connect_timeout: float = 20.0,
                 read_timeout: float | None = None) -> None:
        self.uri = uri
        self.description = f"the Hive metastore at {uri}"
        self._lock = threading.RLock()
        # (database, table) -> what `_table_fields` read, while `pinned_tables` is entered; else None.
        self._pinned: dict[tuple[str, str], tuple[Any, TableInfo, dict[str, str], ThriftTable]] | None = None
        self._jvm = spark._jvm
        probe(uri, connect_timeout)
        jvm = self._jvm
        hive_conf = jvm.org.apache.hadoop.hive.conf.HiveConf
        conf = hive_conf(spark._jsc.hadoopConfiguration(), hive_conf._java_lang_class)
        conf.set("hive.metastore.uris", uri)
        conf.set("hive.metastore.client.connection.timeout", f"{max(1, math.ceil(connect_timeout))}s")
        if read_timeout is not None:
            conf.set("hive.metastore.client.socket.timeout", f"{max(1, math.ceil(read_timeout))}s")
        self._api = jvm.org.apache.hadoop.hive.metastore.api
        self._client: Any = None
        self._handshake(conf, connect_timeout)
        try:
            self._client = jvm.org.apache.hadoop.hive.metastore.RetryingMetaStoreClient.getProxy(conf, False)
            self._writer = JsonWriter(jvm)
        except Exception as error:
            raise StorageError(f"The Hive metastore at {uri} does not answer ({one_line(java_error(error)[1])}): "
                               "check that it runs and that the cluster's registry interface names it, then run "
                               "again.") from None

    def _handshake(self, conf: Any, connect_timeout: float) -> None:
        """One cheap call through a throw-away client whose every wait is `connect_timeout`: a port that accepts
        connections but is no (working) metastore fails here, quickly, instead of on the first real call, whose
        wait is the (long) read timeout."""
        jvm = self._jvm
        quick = jvm.org.apache.hadoop.hive.conf.HiveConf(conf)
        seconds = f"{max(1, math.ceil(connect_timeout))}s"
        quick.set("hive.metastore.client.socket.timeout", seconds)
        quick.set("hive.metastore.connect.retries", "1")
        quick.set("hive.metastore.execute.setugi", "false")
        client = None
        try:
            client = jvm.org.apache.hadoop.hive.metastore.HiveMetaStoreClient(quick)
            client.getAllDatabases()
        except Exception as error:
            raise StorageError(f"The Hive metastore at {self.uri} does not answer "
                               f"({one_line(java_error(error)[1], 200)}): check that it runs and is healthy, and "
                               "that the cluster's registry interface names it, then run again.") from None
        finally:
            if client is not None:
                with suppress(Exception):
                    client.close()

    def close(self) -> None:
        client, self._client = getattr(self, "_client", None), None
        if client is not None:
            with suppress(Exception):  # the connection or the JVM is gone already: nothing left to release
                client.close()

    # -- JVM plumbing ----------------------------------------------------------------------------------------------

    @contextmanager
    def _errors(self, action: str, subject: str) -> Iterator[None]:
        from py4j.protocol import Py4JError
        from pyspark.errors import PySparkException

        if self._client is None:
            raise StorageError(f"Cannot {action} {subject}: the connection to {self.description} is closed.")
        try:
            with self._lock:
                yield
        except StorageError:
            raise
        except (Py4JError, PySparkException) as error:
            names, message = java_error(error)
            if "NoSuchObjectException" in names:
                raise StorageError(f"{subject[0].upper()}{subject[1:]} does not exist in {self.description}: check "
                                   "the database and table names (the feed's catalog URI) and the cluster.") from None
            if any(name in names or name in message for name in _UNREACHABLE):
                raise StorageError(f"The Hive metastore at {self.uri} does not answer ({one_line(message, 160)}) "
                                   f"while trying to {action} {subject}: check that it runs and is healthy, then "
                                   "run again.") from None
            raise StorageError(f"Could not {action} {subject} in {self.description}: {one_line(message)}") from None

    def _list(self, items: list[str]) -> Any:
        java_list = self._jvm.java.util.ArrayList()
        for item in items:
            java_list.add(item)
        return java_list

    def _decode(self, thrift_object: Any, storages: Callable[[Any], Iterable[Any]]) -> Any:
        """The object as JSON, decoded: one serialisation in the JVM, its text in one transfer.
        TSimpleJSONProtocol cannot write a map keyed by lists, which the storage descriptors (`storages(object)`)
        of a list-bucketed (skewed) table keep as `skewedInfo.skewedColValueLocationMaps` and nothing here reads:
        such an object is written as a copy without them."""
        try:
            return json.loads(self._writer.write(thrift_object))
        except Exception as error:
            if "CollectionMapKeyException" not in java_error(error)[0]:
                raise
        self._writer = JsonWriter(self._jvm)  # the failed write left its protocol inside the object
        copy = thrift_object.deepCopy()
        for storage in storages(copy):
            skewed = storage.getSkewedInfo() if storage is not None else None
            if skewed is not None:
                skewed.unsetSkewedColValueLocationMaps()
        return json.loads(self._writer.write(copy))

    def _table(self, database: str, table: str) -> tuple[Any, TableInfo, dict[str, str]]:
        """The table's Thrift object, its facts, and its partition keys' types."""
        java_table, info, key_types, _ = self._table_fields(database, table)
        return java_table, info, key_types

    @contextmanager
    def pinned_tables(self) -> Iterator[None]:
        outer = self._pinned is not None
        if not outer:
            self._pinned = {}
        try:
            yield
        finally:
            if not outer:
                self._pinned = None

    def _forget_table(self, database: str, table: str) -> None:
        if self._pinned is not None:
            self._pinned.pop((database.lower(), table.lower()), None)

    def _table_fields(self, database: str, table: str) -> tuple[Any, TableInfo, dict[str, str], ThriftTable]:
        """As `_table`, and the decoded Thrift struct (read once while tables are pinned: a get_table and its
        decoding cost 20-30 ms)."""
        key = (database.lower(), table.lower())
        if self._pinned is not None and key in self._pinned:
            return self._pinned[key]
        found = self._read_table_fields(database, table)
        if self._pinned is not None:
            self._pinned[key] = found
        return found

    def _read_table_fields(self, database: str, table: str) -> tuple[Any, TableInfo, dict[str, str], ThriftTable]:
        with self._errors("read", f"the table {database}.{table}"):
            java_table = self._client.getTable(database, table)
            fields: ThriftTable = self._decode(java_table, lambda copy: [copy.getSd()])
        info, key_types = table_info_of(fields, database, table)
        return java_table, info, key_types, fields

    # -- the interface ---------------------------------------------------------------------------------------------

    def table_info(self, database: str, table: str) -> TableInfo:
        return self._table(database, table)[1]

    def list_partitions(self, database: str, table: str,
                        partial_spec: Mapping[str, str] | None = None) -> list[Partition]:
        _, info, key_types = self._table(database, table)
        partial = partial_spec_of(info, partial_spec)
        with self._errors("list the partitions of", f"the table {info.qualified_name}"):
            condition = hive_filter(partial, key_types)
            listed = None
            if condition:
                try:
                    listed = self._client.listPartitionsByFilter(info.database, info.name, condition, -1)
                except Exception as error:
                    if "MetaException" not in java_error(error)[0]:
                        raise
                    # This metastore cannot filter on these keys: list them all and match here.
            if listed is None:
                listed = self._client.listPartitions(info.database, info.name, -1)
            holder = self._api.AddPartitionsResult()
            holder.setPartitions(listed)
            listing: ThriftPartitionList = self._decode(
                holder, lambda copy: [partition.getSd() for partition in copy.getPartitions()])
        return partitions_of(listing, info.partition_keys, partial)

    def partition_location(self, database: str, table: str, spec: Mapping[str, str]) -> str | None:
        info = self.table_info(database, table)
        values = full_spec(info, spec)
        subject = f"the partition {describe_spec(values)} of {info.qualified_name}"
        with self._errors("read", subject):
            # By name, which answers an empty list for a partition that does not exist: getPartition would
            # throw, and a Java exception through py4j costs 10-25 ms.
            found = self._client.getPartitionsByNames(info.database, info.name, self._list([partition_name(values)]))
            wanted = list(values.values())
            for partition in found:
                if [str(value) for value in partition.getValues()] == wanted:
                    location = partition.getSd().getLocation()
                    return normalize_uri(location) if location else None
        return None

    def add_partition(self, database: str, table: str, spec: Mapping[str, str], location: str | None = None, *,
                      exist_ok: bool = False) -> bool:
        java_table, info, _ = self._table(database, table)
        values = full_spec(info, spec)
        subject = f"the partition {describe_spec(values)} of {info.qualified_name}"
        with self._errors("add", subject):
            partition = self._api.Partition()
            partition.setDbName(info.database)
            partition.setTableName(info.name)
            partition.setValues(self._list(list(values.values())))
            # Stored as the table is; at `location`, or (None) where the metastore puts it, which it creates.
            storage = self._api.StorageDescriptor(java_table.getSd())
            storage.setLocation(location)
            serde_parameters = storage.getSerdeInfo().getParameters() if storage.getSerdeInfo() else None
            if serde_parameters is not None:
                serde_parameters.remove("path")  # Spark's table path, not the partition's
            partition.setSd(storage)
            partition.setParameters(self._jvm.java.util.HashMap())
            try:
                self._client.add_partition(partition)
            except Exception as error:
                if "AlreadyExistsException" not in java_error(error)[0]:
                    raise
                if exist_ok:
                    return False
                raise StorageError(f"{subject[0].upper()}{subject[1:]} exists already in {self.description}.") \
                    from None
        return True

    def drop_partition(self, database: str, table: str, spec: Mapping[str, str], delete_data: bool) -> bool:
        info = self.table_info(database, table)
        values = full_spec(info, spec)
        subject = f"the partition {describe_spec(values)} of {info.qualified_name}"
        with self._errors("drop", subject):
            try:
                # The metastore decides by the EXTERNAL property; ask it to delete only what is managed by our
                # reading too, so an external table's files always stay (see Catalog.drop_partition).
                return bool(self._client.dropPartition(info.database, info.name, self._list(list(values.values())),
                                                       bool(delete_data and info.is_managed)))
            except Exception as error:
                if "NoSuchObjectException" in java_error(error)[0]:  # the table exists: the partition does not
                    return False
                raise

    def _drop_external_table(self, info: TableInfo) -> None:
        self._forget_table(info.database, info.name)
        with self._errors("drop", f"the table {info.qualified_name}"):
            self._client.dropTable(info.database, info.name, False, True)  # deleteData false, ignore unknown

    def create_table_like(self, source_database: str, source_table: str, database: str, table: str,
                          location: str | None = None) -> TableInfo:
        self._forget_table(database, table)
        source, source_info, _, source_fields = self._table_fields(source_database, source_table)
        subject = f"the table {database}.{table}"
        with self._errors("create", subject):
            if self._client.tableExists(database, table):
                raise StorageError(f"Cannot create {subject} like {source_info.qualified_name}: it exists already "
                                   f"in {self.description}.")
            external = bool(location)
            if not location:  # managed: where the metastore would put it, spelled out for Spark's `path` below
                location = default_table_location(str(self._client.getDatabase(database).getLocationUri()), table)
            created = self._api.Table(source)  # a deep copy
            created.setDbName(database)
            created.setTableName(table)
            created.setCreateTime(int(time.time()))
            created.setLastAccessTime(0)
            created.setOwner(self._jvm.org.apache.hadoop.security.UserGroupInformation.getCurrentUser()
                             .getShortUserName())
            parameters = self._jvm.java.util.HashMap()
            for key, value in source_fields.get("parameters", {}).items():
                if not is_volatile_property(key):
                    parameters.put(key, value)
            created.setTableType("EXTERNAL_TABLE" if external else "MANAGED_TABLE")
            if external:
                parameters.put("EXTERNAL", "TRUE")
            created.setParameters(parameters)
            storage = created.getSd()
            storage.setLocation(location)
            serde_parameters = storage.getSerdeInfo().getParameters() if storage.getSerdeInfo() else None
            if serde_parameters is not None and serde_parameters.containsKey("path"):
                serde_parameters.put("path", location)  # Spark data-source tables read their location here
            self._client.createTable(created)
        return self.table_info(database, table)

    def describe_table(self, database: str, table: str) -> TableDescription:
        _, info, _, fields = self._table_fields(database, table)
        sd = fields.get("sd", {})
        serde = sd.get("serdeInfo", {})
        parameters = {str(key): str(value) for key, value in fields.get("parameters", {}).items()}
        names = spark_schema_names(parameters)  # the metastore lowers names; Spark kept their case here
        provider = parameters.get(SPARK_PROVIDER)
        return TableDescription(
            database=info.database, name=info.name, table_type=info.table_type, location=info.location,
            columns=_columns(sd.get("cols", []), names),
            partition_columns=_columns(fields.get("partitionKeys", []), names),
            storage=StorageFormat(
                input_format=sd.get("inputFormat"), output_format=sd.get("outputFormat"),
                serde=serde.get("serializationLib"),
                serde_parameters={str(key): str(value) for key, value in serde.get("parameters", {}).items()
                                  if key != "path"},
                provider=provider.lower() if provider and provider.lower() != "hive" else None),
            properties={key: value for key, value in parameters.items()
                        if key != "comment" and not is_volatile_property(key)},
            comment=parameters.get("comment") or None,
        )

    def table_exists(self, database: str, table: str) -> bool:
        with self._errors("look up", f"the table {database}.{table}"):
            return bool(self._client.tableExists(database, table))

    def database_exists(self, database: str) -> bool:
        with self._errors("look up", f"the database {database}"):
            try:
                self._client.getDatabase(database)
            except Exception as error:
                if "NoSuchObjectException" in java_error(error)[0]:
                    return False
                raise
        return True

    def create_database(self, database: str) -> bool:
        with self._errors("create", f"the database {database}"):
            created = self._api.Database()
            created.setName(database)
            created.setDescription("")
            created.setParameters(self._jvm.java.util.HashMap())  # no location: the metastore's default place
            try:
                self._client.createDatabase(created)
            except Exception as error:
                if "AlreadyExistsException" not in java_error(error)[0]:
                    raise
                return False
        return True

    def _field_schemas(self, columns: tuple[Column, ...]) -> Any:
        return self._list([self._api.FieldSchema(column.name, column.type, column.comment) for column in columns])

    def _spark_schema_json(self, columns: tuple[Column, ...]) -> str:
        """Spark's schema JSON of these columns, as Spark's own type parser reads their definitions."""
        ddl = ", ".join(column_definition(column) for column in columns)
        return str(self._jvm.org.apache.spark.sql.types.StructType.fromDDL(ddl).json())

    def create_table(self, database: str, table: str, description: TableDescription,
                     location: str | None = None) -> TableInfo:
        self._forget_table(database, table)
        subject = f"the table {database}.{table}"
        refuse_view(description, subject)
        if not self.database_exists(database):
            raise StorageError(f"Cannot create {subject}: the database {database} does not exist in "
                               f"{self.description}; create it first.")
        provider = description.storage.provider
        with self._errors("create", subject):
            if self._client.tableExists(database, table):
                raise StorageError(f"Cannot create {subject}: it exists already in {self.description}.")
            external = bool(location) or description.table_type is not TableType.MANAGED
            if not location:  # the metastore's default place, spelled out for Spark's `path` below
                location = default_table_location(str(self._client.getDatabase(database).getLocationUri()), table)
            serde_parameters = dict(description.storage.serde_parameters)
            if provider:
                serde_parameters["path"] = location  # Spark data-source tables read their location here
            serde_info = self._api.SerDeInfo()
            serde_info.setSerializationLib(description.storage.serde)
            serde_info.setParameters(self._map(serde_parameters))
            storage = self._api.StorageDescriptor()
            storage.setCols(self._field_schemas(description.columns))
            storage.setLocation(location)
            storage.setInputFormat(description.storage.input_format)
            storage.setOutputFormat(description.storage.output_format)
            storage.setCompressed(False)
            storage.setNumBuckets(-1)
            storage.setSerdeInfo(serde_info)
            storage.setBucketCols(self._list([]))
            storage.setSortCols(self._jvm.java.util.ArrayList())
            storage.setParameters(self._jvm.java.util.HashMap())
            parameters = {key: value for key, value in description.properties.items()
                          if not is_volatile_property(key)}
            if provider and SPARK_PROVIDER not in parameters:
                # Spark's properties of a data-source table, which the description does not carry (read through
                # Spark's session catalog): without them Spark would read the table as a Hive table.
                schema_json = self._spark_schema_json(description.columns + description.partition_columns)
                parameters.update(spark_properties(description, schema_json))
            if description.comment:
                parameters["comment"] = description.comment
            if external:
                parameters["EXTERNAL"] = "TRUE"
            created = self._api.Table()
            created.setDbName(database)
            created.setTableName(table)
            created.setOwner(self._jvm.org.apache.hadoop.security.UserGroupInformation.getCurrentUser()
                             .getShortUserName())
            created.setCreateTime(int(time.time()))
            created.setLastAccessTime(0)
            created.setRetention(0)
            created.setSd(storage)
            created.setPartitionKeys(self._field_schemas(description.partition_columns))
            created.setParameters(self._map(parameters))
            created.setTableType("EXTERNAL_TABLE" if external else "MANAGED_TABLE")
            try:
                self._client.createTable(created)
            except Exception as error:
                if "AlreadyExistsException" in java_error(error)[0]:
                    raise StorageError(f"Cannot create {subject}: it exists already in {self.description}.") \
                        from None
                raise
        return self.table_info(database, table)

    def alter_partition_location(self, database: str, table: str, spec: Mapping[str, str], location: str) -> None:
        info = self.table_info(database, table)
        values = full_spec(info, spec)
        subject = f"the partition {describe_spec(values)} of {info.qualified_name}"
        with self._errors("move", subject):
            partition = self._client.getPartition(info.database, info.name, self._list(list(values.values())))
            partition.getSd().setLocation(location)
            self._client.alter_partition(info.database, info.name, partition)

    def _map(self, items: Mapping[str, str]) -> Any:
        java_map = self._jvm.java.util.HashMap()
        for key, value in items.items():
            java_map.put(key, value)
        return java_map
