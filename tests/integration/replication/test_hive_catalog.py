"""The catalog operations Hive export and import need, on both implementations (Spark's session catalog and a
Thrift metastore server): table descriptions, databases, tables created from a description, a partition moved
to another directory. Tables are built and checked with Spark SQL or Hive's own client."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_factory import catalog_for
from toolkit.core.storage.catalog_records import Column, TableType
from toolkit.core.storage.filesystem import StorageError

DATABASE = "hive_catalog_test"
_names = itertools.count()
PARQUET = ("org.apache.hadoop.hive.ql.io.parquet.MapredParquetInputFormat",
           "org.apache.hadoop.hive.ql.io.parquet.MapredParquetOutputFormat",
           "org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe")


class Backend:
    """A catalog under test, with an independent way in (Spark SQL, or Hive's client)."""

    def __init__(self, spark, server, root: Path) -> None:
        self.spark, self.root = spark, root
        self.raw = server.client(spark) if server is not None else None
        self.name = "thrift" if server is not None else "spark"
        location = f"file://{root / DATABASE}"
        if self.raw is not None:
            self.raw.create_database(DATABASE, location)
        else:
            spark.sql(f"CREATE DATABASE IF NOT EXISTS {DATABASE} LOCATION '{location}'")
        self.catalog: Catalog = catalog_for(spark, server.uri if server is not None else None)

    def create_table(self, table: str) -> None:
        """`(id int COMMENT 'the id', tags array<string>) PARTITIONED BY (ds string, region string)`, parquet,
        with a comment and a property."""
        if self.raw is None:
            self.spark.sql(f"CREATE TABLE {DATABASE}.{table} (id INT COMMENT 'the id', tags ARRAY<STRING>) "
                           "COMMENT 'sessions' PARTITIONED BY (ds STRING, region STRING) STORED AS PARQUET "
                           "TBLPROPERTIES ('team' = 'web')")
            return
        self.raw.create_table(DATABASE, table, [("id", "int"), ("tags", "array<string>")], ["ds", "region"])
        made = self.raw.table(DATABASE, table)
        made.getSd().getCols().get(0).setComment("the id")
        made.getParameters().put("comment", "sessions")
        made.getParameters().put("team", "web")
        self.raw.client.alter_table(DATABASE, table, made)

    def facts(self, database: str, table: str) -> tuple[str, list[tuple[str, str]], list[str], str, str]:
        """(type, columns, partition keys, serde, location) read without the toolkit."""
        if self.raw is None:
            described = self.spark._jsparkSession.sessionState().catalog().getTableMetadata(
                self.spark._jvm.org.apache.spark.sql.catalyst.TableIdentifier(table, self.spark._jvm.scala.Some(
                    database)))
            columns = [(f.name, f.dataType.simpleString()) for f in self.spark.table(f"{database}.{table}").schema]
            keys = [str(k) for k in self.spark._jvm.scala.jdk.javaapi.CollectionConverters.asJava(
                described.partitionColumnNames())]
            return (str(described.tableType().name()), [c for c in columns if c[0] not in keys], keys,
                    str(described.storage().serde().get()), str(described.location()))
        made = self.raw.table(database, table)
        return (str(made.getTableType()).replace("_TABLE", ""),
                [(str(c.getName()), str(c.getType())) for c in made.getSd().getCols()],
                [str(k.getName()) for k in made.getPartitionKeys()], str(made.getSd().getSerdeInfo()
                                                                        .getSerializationLib()),
                str(made.getSd().getLocation()))

    def partition_location(self, table: str, values: list[str]) -> str:
        if self.raw is None:
            spec = ", ".join(f"{k} = '{v}'" for k, v in zip(("ds", "region"), values, strict=True))
            rows = self.spark.sql(f"DESCRIBE FORMATTED {DATABASE}.{table} PARTITION ({spec})").collect()
            return next(str(row[1]) for row in rows if row[0] == "Location")
        return str(self.raw.client.getPartition(DATABASE, table, self.raw._list(values)).getSd().getLocation())


@pytest.fixture(scope="module", params=["spark", "thrift"])
def backend(request, spark, tmp_path_factory) -> Iterator[Backend]:
    server = request.getfixturevalue("thrift_metastore") if request.param == "thrift" else None
    made = Backend(spark, server, tmp_path_factory.mktemp(f"hive_catalog_{request.param}"))
    yield made
    made.catalog.close()
    if made.raw is not None:
        made.raw.close()


def _path(location: str) -> str:
    return location.removeprefix("file://").removeprefix("file:")


def test_describe_table(backend: Backend) -> None:
    table = f"described_{next(_names)}"
    backend.create_table(table)
    described = backend.catalog.describe_table(DATABASE, table)
    assert (described.database, described.name, described.table_type) == (DATABASE, table, TableType.MANAGED)
    assert described.columns == (Column("id", "int", "the id"), Column("tags", "array<string>"))
    assert described.partition_columns == (Column("ds", "string"), Column("region", "string"))
    assert (described.storage.input_format, described.storage.output_format, described.storage.serde) == PARQUET
    assert described.storage.provider is None and described.storage.format == "parquet"
    assert described.comment == "sessions" and described.properties.get("team") == "web"
    assert not any(key in described.properties for key in ("transient_lastDdlTime", "comment", "EXTERNAL"))
    assert described.info == backend.catalog.table_info(DATABASE, table)
    assert _path(described.location or "") == str(backend.root / DATABASE / table)


@pytest.mark.parametrize("kind", ["managed", "external-at-location", "external-default-place"])
def test_create_table_from_a_description(backend: Backend, kind: str) -> None:
    source = f"source_{next(_names)}"
    backend.create_table(source)
    described = backend.catalog.describe_table(DATABASE, source)
    if kind == "external-default-place":
        described = type(described)(**{**described.__dict__, "table_type": TableType.EXTERNAL})
    copy = f"copy_{next(_names)}"
    location = f"file://{backend.root / 'elsewhere' / copy}" if kind == "external-at-location" else None
    info = backend.catalog.create_table(DATABASE, copy, described, location)
    table_type, columns, keys, serde, where = backend.facts(DATABASE, copy)
    assert table_type == ("MANAGED" if kind == "managed" else "EXTERNAL") and info.table_type.value == table_type
    assert columns == [("id", "int"), ("tags", "array<string>")] and keys == ["ds", "region"]
    assert serde == PARQUET[2]
    expected = backend.root / ("elsewhere" if kind == "external-at-location" else DATABASE) / copy
    assert _path(where) == str(expected) and _path(info.location or "") == str(expected)
    again = backend.catalog.describe_table(DATABASE, copy)
    assert (again.columns, again.partition_columns, again.storage, again.comment) == \
        (described.columns, described.partition_columns, described.storage, described.comment)
    assert again.properties.get("team") == "web"
    with pytest.raises(StorageError, match=rf"Cannot create the table {DATABASE}\.{copy}: it exists already"):
        backend.catalog.create_table(DATABASE, copy, described)
    with pytest.raises(StorageError, match=r"the database no_such_db does not exist .*create it first"):
        backend.catalog.create_table("no_such_db", copy, described)


def test_databases_and_tables_exist_or_not(backend: Backend) -> None:
    database = f"hive_catalog_new_{next(_names)}"
    assert not backend.catalog.database_exists(database)
    assert not backend.catalog.table_exists(database, "t")
    assert backend.catalog.create_database(database) is True
    assert backend.catalog.create_database(database) is False
    assert backend.catalog.database_exists(database)
    table = f"exists_{next(_names)}"
    backend.create_table(table)
    assert backend.catalog.table_exists(DATABASE, table) and not backend.catalog.table_exists(DATABASE, "nope")


def test_alter_partition_location(backend: Backend) -> None:
    table = f"moved_{next(_names)}"
    backend.create_table(table)
    spec = {"ds": "2026-11-21", "region": "eu"}
    assert backend.catalog.add_partition(DATABASE, table, spec)
    elsewhere = f"file://{backend.root / 'versions' / table / 'ds=2026-11-21' / 'region=eu'}"
    Path(_path(elsewhere)).mkdir(parents=True)
    backend.catalog.alter_partition_location(DATABASE, table, {"region": "eu", "ds": "2026-11-21"}, elsewhere)
    assert _path(backend.partition_location(table, ["2026-11-21", "eu"])) == _path(elsewhere)
    assert backend.catalog.partition_location(DATABASE, table, spec) == elsewhere
    assert [p.location for p in backend.catalog.list_partitions(DATABASE, table)] == [elsewhere]
    with pytest.raises(StorageError, match=r"\(ds='2026-11-22', region='eu'\) of .* does not exist"):
        backend.catalog.alter_partition_location(DATABASE, table, {"ds": "2026-11-22", "region": "eu"}, elsewhere)


def test_drop_table_drops_external_tables_only_and_keeps_their_files(backend: Backend) -> None:
    source = f"kept_{next(_names)}"
    backend.create_table(source)
    staging = f"staging_{next(_names)}"
    location = backend.root / "staging" / staging
    backend.catalog.create_table_like(DATABASE, source, DATABASE, staging, f"file://{location}")
    backend.catalog.add_partition(DATABASE, staging, {"ds": "2026-11-21", "region": "eu"})
    (location / "ds=2026-11-21" / "region=eu").mkdir(parents=True, exist_ok=True)
    (location / "ds=2026-11-21" / "region=eu" / "part-0").write_text("x")
    assert backend.catalog.drop_table(DATABASE, staging) is True
    assert not backend.catalog.table_exists(DATABASE, staging)
    assert (location / "ds=2026-11-21" / "region=eu" / "part-0").read_text() == "x"
    assert backend.catalog.drop_table(DATABASE, staging) is False
    with pytest.raises(StorageError, match=rf"Refusing to drop the managed table {DATABASE}\.{source}"):
        backend.catalog.drop_table(DATABASE, source)
    assert backend.catalog.table_exists(DATABASE, source)


def test_pinned_tables_read_a_table_once_and_forget_what_they_drop(backend: Backend) -> None:
    table = f"pinned_{next(_names)}"
    backend.create_table(table)
    with backend.catalog.pinned_tables():
        before = backend.catalog.table_info(DATABASE, table)
        if backend.raw is not None:  # changed behind the catalog's back: the pinned description stays
            made = backend.raw.table(DATABASE, table)
            made.getSd().setLocation(f"file://{backend.root / 'moved' / table}")
            backend.raw.client.alter_table(DATABASE, table, made)
            assert backend.catalog.table_info(DATABASE, table) == before
        staging = f"{table}_staging"
        backend.catalog.create_table_like(DATABASE, table, DATABASE, staging, f"file://{backend.root / staging}")
        assert backend.catalog.table_info(DATABASE, staging).location == f"file://{backend.root / staging}"
        assert backend.catalog.drop_table(DATABASE, staging) is True
        assert backend.catalog.drop_table(DATABASE, staging) is False  # not answered from the pin
    if backend.raw is not None:
        assert backend.catalog.table_info(DATABASE, table).location == f"file://{backend.root / 'moved' / table}"
