"""The catalog against real metastores: the Spark session's embedded one and a Thrift metastore server.

Tables are built, and results checked, without the toolkit's catalog code: Spark SQL on the session's catalog,
Hive's own client (tests/integration/metastore.py) on the server, and the local file system for data effects.
"""

from __future__ import annotations

import itertools
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_factory import catalog_for
from toolkit.core.storage.catalog_records import Partition, TableType
from toolkit.core.storage.filesystem import StorageError

DATABASE = "catalog_test"
_names = itertools.count()


def uri(path: Path) -> str:
    """A local path as the toolkit spells locations: `file:///a b/k=v` (no percent-encoding)."""
    return f"file://{path}"


def sql_string(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


class Backend:
    """A metastore under test: builds tables and reads them back without the toolkit's catalog."""

    name: str
    database_dir: Path
    catalog: Catalog

    def create_table(self, table: str, keys: list[str], external: bool, location: Path | None) -> None:
        raise NotImplementedError

    def add_partition(self, table: str, values: dict[str, str]) -> None:
        raise NotImplementedError

    def partition_names(self, table: str) -> list[str]:
        raise NotImplementedError

    def table_exists(self, table: str) -> bool:
        raise NotImplementedError


class SparkBackend(Backend):
    name = "spark"

    def __init__(self, spark, root: Path) -> None:
        self.spark = spark
        self.database_dir = root / "spark_db"
        spark.sql(f"CREATE DATABASE IF NOT EXISTS {DATABASE} LOCATION {sql_string(uri(self.database_dir))}")
        self.catalog = catalog_for(spark, None)

    def create_table(self, table: str, keys: list[str], external: bool, location: Path | None) -> None:
        partitioned = f" PARTITIONED BY ({', '.join(f'{key} STRING' for key in keys)})" if keys else ""
        where = f" LOCATION {sql_string(uri(location))}" if location else ""
        self.spark.sql(f"CREATE {'EXTERNAL ' if external else ''}TABLE {DATABASE}.{table} (id INT, payload STRING)"
                       f"{partitioned} STORED AS PARQUET{where}")

    def add_partition(self, table: str, values: dict[str, str]) -> None:
        spec = ", ".join(f"{key}={sql_string(value)}" for key, value in values.items())
        self.spark.sql(f"ALTER TABLE {DATABASE}.{table} ADD PARTITION ({spec})")

    def partition_names(self, table: str) -> list[str]:
        return sorted(row[0] for row in self.spark.sql(f"SHOW PARTITIONS {DATABASE}.{table}").collect())

    def table_exists(self, table: str) -> bool:
        return self.spark.catalog.tableExists(table, DATABASE)


class ThriftBackend(Backend):
    name = "thrift"

    def __init__(self, spark, server, root: Path) -> None:
        self.raw = server.client(spark)
        self.database_dir = root / "thrift_db"
        self.raw.create_database(DATABASE, uri(self.database_dir))
        self.catalog = catalog_for(spark, server.uri)

    def create_table(self, table: str, keys: list[str], external: bool, location: Path | None) -> None:
        self.raw.create_table(DATABASE, table, [("id", "int"), ("payload", "string")], keys,
                              uri(location) if location else None, external)

    def add_partition(self, table: str, values: dict[str, str]) -> None:
        self.raw.add_partition(DATABASE, table, list(values.values()))

    def partition_names(self, table: str) -> list[str]:
        return self.raw.partition_names(DATABASE, table)

    def table_exists(self, table: str) -> bool:
        return bool(self.raw.client.tableExists(DATABASE, table))


@pytest.fixture(scope="module", params=["spark", "thrift"])
def backend(request, spark, tmp_path_factory) -> Iterator[Backend]:
    root = tmp_path_factory.mktemp(f"catalog_{request.param}")
    if request.param == "spark":
        made: Backend = SparkBackend(spark, root)
    else:
        made = ThriftBackend(spark, request.getfixturevalue("thrift_metastore"), root)
    yield made
    made.catalog.close()
    if isinstance(made, ThriftBackend):
        made.raw.close()


SHAPES = {
    "daily": (["ds"], [{"ds": "2026-11-19"}, {"ds": "2026-11-20"}, {"ds": "2026-11-21"}]),
    "ymd": (["year", "month", "day"], [{"year": "2025", "month": "12", "day": "31"},
                                        {"year": "2026", "month": "01", "day": "01"},
                                        {"year": "2026", "month": "01", "day": "02"}]),
    "regional": (["ds", "region"], [{"ds": "2026-11-20", "region": "eu"}, {"ds": "2026-11-20", "region": "us"},
                                    {"ds": "2026-11-21", "region": "eu"}]),
}


def make_table(backend: Backend, shape: str, external: bool, tmp_path: Path,
               with_partitions: bool = True) -> tuple[str, Path]:
    """A table of one of the SHAPES with its partitions; returns its name and its directory."""
    keys, partitions = SHAPES[shape]
    table = f"{shape}_{'ext' if external else 'man'}_{next(_names)}"
    location = tmp_path / "external" / table if external else None
    backend.create_table(table, keys, external, location)
    if with_partitions:
        for values in partitions:
            backend.add_partition(table, values)
    return table, location or backend.database_dir / table


@dataclass
class SharedTables:
    """One table per shape and type, with its partitions, for the tests that only read."""

    made: dict[tuple[str, bool], tuple[str, Path]]
    created_after: datetime
    created_before: datetime

    def __call__(self, shape: str, external: bool) -> tuple[str, Path]:
        return self.made[shape, external]


@pytest.fixture(scope="module")
def tables(backend: Backend, tmp_path_factory: pytest.TempPathFactory) -> SharedTables:
    root = tmp_path_factory.mktemp(f"tables_{backend.name}")
    after = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(seconds=1)
    made = {(shape, external): make_table(backend, shape, external, root)
            for shape in SHAPES for external in (False, True)}
    return SharedTables(made, after, datetime.now(timezone.utc) + timedelta(seconds=1))


def dir_of(table_dir: Path, values: dict[str, str]) -> str:
    return uri(table_dir / "/".join(f"{key}={value}" for key, value in values.items()))


def write_file(location: str, name: str = "part-0.parquet") -> Path:
    folder = Path(location.removeprefix("file://"))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_bytes(b"not really parquet")
    return folder / name


# -- table facts --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_table_info(backend: Backend, tables: SharedTables, shape: str, external: bool) -> None:
    table, table_dir = tables(shape, external)
    info = backend.catalog.table_info(DATABASE, table)
    assert (info.database, info.name) == (DATABASE, table)
    assert info.partition_keys == tuple(SHAPES[shape][0])
    assert info.table_type is (TableType.EXTERNAL if external else TableType.MANAGED)
    assert info.is_external is external and info.is_managed is not external
    assert info.location == uri(table_dir)
    assert info.format == "parquet"


def test_table_info_is_case_insensitive(backend: Backend, tables: SharedTables) -> None:
    table, _ = tables("daily", False)
    assert backend.catalog.table_info(DATABASE.upper(), table.upper()).name == table


def test_a_missing_table_or_database_is_named(backend: Backend) -> None:
    with pytest.raises(StorageError, match=rf"{DATABASE}\.no_such_table does not exist in .*check the database"):
        backend.catalog.table_info(DATABASE, "no_such_table")
    with pytest.raises(StorageError, match=r"no_such_db\.t does not exist"):
        backend.catalog.list_partitions("no_such_db", "t")


def test_an_unpartitioned_table(backend: Backend) -> None:
    table = f"flat_{next(_names)}"
    backend.create_table(table, [], False, None)
    info = backend.catalog.table_info(DATABASE, table)
    assert (info.partition_keys, info.table_type, info.location) == ((), TableType.MANAGED,
                                                                     uri(backend.database_dir / table))
    with pytest.raises(StorageError, match=rf"{DATABASE}\.{table} is not partitioned"):
        backend.catalog.list_partitions(DATABASE, table)
    with pytest.raises(StorageError, match=rf"{DATABASE}\.{table} is not partitioned"):
        backend.catalog.add_partition(DATABASE, table, {"ds": "2026-11-20"})


# -- listing ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_list_all_partitions(backend: Backend, tables: SharedTables, shape: str, external: bool) -> None:
    table, table_dir = tables(shape, external)
    listed = backend.catalog.list_partitions(DATABASE, table)
    expected = SHAPES[shape][1]
    assert [dict(p.values) for p in listed] == expected
    assert [list(p.values) for p in listed] == [SHAPES[shape][0]] * len(expected)  # keys in table order
    assert [p.location for p in listed] == [dir_of(table_dir, values) for values in expected]
    assert all(p.create_time is not None and tables.created_after <= p.create_time <= tables.created_before
               for p in listed)
    assert [p.name for p in listed] == backend.partition_names(table)


@pytest.mark.parametrize(("shape", "partial", "expected"), [
    ("daily", {"ds": "2026-11-20"}, [1]),
    ("daily", {"ds": "2026-11-22"}, []),
    ("ymd", {"year": "2026"}, [1, 2]),
    ("ymd", {"month": "01"}, [1, 2]),  # not a prefix of the keys
    ("ymd", {"year": "2026", "day": "02"}, [2]),
    ("ymd", {"YEAR": "2025"}, [0]),  # keys are case-insensitive
    ("ymd", {}, [0, 1, 2]),
    ("regional", {"region": "eu"}, [0, 2]),
    ("regional", {"ds": "2026-11-20"}, [0, 1]),
    ("regional", {"ds": "2026-11-20", "region": "us"}, [1]),
    ("regional", {"region": "asia"}, []),
])
@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
def test_list_with_a_partial_spec(backend: Backend, tables: SharedTables, shape: str, partial: dict,
                                  expected: list[int], external: bool) -> None:
    table, _ = tables(shape, external)
    listed = backend.catalog.list_partitions(DATABASE, table, partial)
    assert [dict(p.values) for p in listed] == [SHAPES[shape][1][index] for index in expected]


def test_a_filter_on_an_unknown_key_is_refused(backend: Backend, tables: SharedTables) -> None:
    table, _ = tables("regional", False)
    with pytest.raises(StorageError, match=rf"'country', which is not a partition key of {DATABASE}\.{table} "
                                           r"\(its partition keys: ds, region\)"):
        backend.catalog.list_partitions(DATABASE, table, {"country": "fr"})


def test_values_are_matched_exactly_not_as_patterns(backend: Backend, tmp_path: Path) -> None:
    """Hive matches partial specs as regular expressions over escaped names; the catalog must not."""
    table, table_dir = make_table(backend, "regional", True, tmp_path, with_partitions=False)
    regions = ["a.b", "axb", "a+b", "aab", "x y", "k:v", "it's", "50%", "(x", "a/b", "é"]
    for region in regions:
        assert backend.catalog.add_partition(DATABASE, table, {"ds": "2026-11-20", "region": region})
    assert backend.catalog.add_partition(DATABASE, table, {"ds": "2026.11.20", "region": "eu"})
    assert backend.catalog.add_partition(DATABASE, table, {"ds": "2026x11x20", "region": "eu"})
    for region in regions:
        listed = backend.catalog.list_partitions(DATABASE, table, {"region": region})
        assert [dict(p.values) for p in listed] == [{"ds": "2026-11-20", "region": region}], region
        location = backend.catalog.partition_location(DATABASE, table, {"ds": "2026-11-20", "region": region})
        assert location == listed[0].location
        assert Path(location.removeprefix("file://")).is_dir(), location
    listed = backend.catalog.list_partitions(DATABASE, table, {"ds": "2026.11.20"})
    assert [dict(p.values) for p in listed] == [{"ds": "2026.11.20", "region": "eu"}]
    everything = backend.catalog.list_partitions(DATABASE, table)
    assert sorted(p.name for p in everything) == backend.partition_names(table)
    # The escaped directory names are Hive's: `k:v` lives in `region=k%3Av`.
    assert backend.catalog.partition_location(DATABASE, table, {"ds": "2026-11-20", "region": "k:v"}) == \
        uri(table_dir / "ds=2026-11-20" / "region=k%3Av")


# -- partition location -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
def test_partition_location(backend: Backend, tables: SharedTables, external: bool) -> None:
    table, table_dir = tables("regional", external)
    spec = {"region": "us", "ds": "2026-11-20"}  # any order
    assert backend.catalog.partition_location(DATABASE, table, spec) == \
        dir_of(table_dir, {"ds": "2026-11-20", "region": "us"})
    assert backend.catalog.partition_location(DATABASE, table, {"ds": "2026-11-21", "region": "us"}) is None
    with pytest.raises(StorageError, match=rf"of {DATABASE}\.{table} lacks a value for region: give every"):
        backend.catalog.partition_location(DATABASE, table, {"ds": "2026-11-20"})
    with pytest.raises(StorageError, match="partition values are strings"):
        backend.catalog.partition_location(DATABASE, table, {"ds": None, "region": "us"})


# -- adding -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
def test_add_partition_at_the_default_place(backend: Backend, external: bool, tmp_path: Path) -> None:
    table, table_dir = make_table(backend, "ymd", external, tmp_path)
    spec = {"day": "03", "year": "2026", "month": "01"}
    assert backend.catalog.add_partition(DATABASE, table, spec)
    expected = dir_of(table_dir, {"year": "2026", "month": "01", "day": "03"})
    assert backend.catalog.partition_location(DATABASE, table, spec) == expected
    assert Path(expected.removeprefix("file://")).is_dir()  # the metastore made it
    assert "year=2026/month=01/day=03" in backend.partition_names(table)
    assert len(backend.catalog.list_partitions(DATABASE, table)) == 4


@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
def test_add_partition_elsewhere(backend: Backend, external: bool, tmp_path: Path) -> None:
    table, _ = make_table(backend, "regional", external, tmp_path)
    elsewhere = uri(tmp_path / "landing" / "batch 7")
    assert backend.catalog.add_partition(DATABASE, table, {"ds": "2026-11-22", "region": "eu"}, elsewhere)
    assert backend.catalog.partition_location(DATABASE, table, {"ds": "2026-11-22", "region": "eu"}) == elsewhere
    listed = backend.catalog.list_partitions(DATABASE, table, {"ds": "2026-11-22"})
    assert listed == [Partition({"ds": "2026-11-22", "region": "eu"}, elsewhere)]


def test_adding_an_existing_partition(backend: Backend, tmp_path: Path) -> None:
    table, _ = make_table(backend, "regional", False, tmp_path)
    spec = {"ds": "2026-11-20", "region": "eu"}
    with pytest.raises(StorageError, match=rf"\(ds='2026-11-20', region='eu'\) of {DATABASE}\.{table} exists "
                                           "already"):
        backend.catalog.add_partition(DATABASE, table, spec)
    assert backend.catalog.add_partition(DATABASE, table, spec, exist_ok=True) is False
    assert len(backend.catalog.list_partitions(DATABASE, table)) == 3


def test_add_partition_needs_every_key(backend: Backend, tmp_path: Path) -> None:
    table, _ = make_table(backend, "regional", False, tmp_path)
    with pytest.raises(StorageError, match="lacks a value for ds"):
        backend.catalog.add_partition(DATABASE, table, {"region": "eu"})
    with pytest.raises(StorageError, match="cannot be empty"):
        backend.catalog.add_partition(DATABASE, table, {"ds": "", "region": "eu"})
    assert len(backend.catalog.list_partitions(DATABASE, table)) == 3


# -- dropping -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("external", "delete_data", "data_stays"), [
    (False, True, False),  # managed: the metastore deletes the files
    (False, False, True),  # managed, asked to keep them
    (True, True, True),  # external: the files always stay (the caller deletes them)
    (True, False, True),
], ids=["managed-delete", "managed-keep", "external-delete", "external-keep"])
def test_drop_partition_and_its_data(backend: Backend, external: bool, delete_data: bool, data_stays: bool,
                                     tmp_path: Path) -> None:
    table, _ = make_table(backend, "regional", external, tmp_path)
    spec = {"ds": "2026-11-20", "region": "eu"}
    location = backend.catalog.partition_location(DATABASE, table, spec)
    data = write_file(location)
    neighbour = write_file(backend.catalog.partition_location(DATABASE, table, {"ds": "2026-11-20", "region": "us"}))
    assert backend.catalog.drop_partition(DATABASE, table, spec, delete_data=delete_data) is True
    assert backend.partition_names(table) == ["ds=2026-11-20/region=us", "ds=2026-11-21/region=eu"]
    assert backend.catalog.partition_location(DATABASE, table, spec) is None
    assert data.exists() is data_stays
    assert neighbour.exists()
    assert backend.catalog.drop_partition(DATABASE, table, spec, delete_data=delete_data) is False


def test_drop_needs_every_key(backend: Backend, tmp_path: Path) -> None:
    table, _ = make_table(backend, "regional", False, tmp_path)
    with pytest.raises(StorageError, match="lacks a value for region"):
        backend.catalog.drop_partition(DATABASE, table, {"ds": "2026-11-20"}, delete_data=True)
    assert len(backend.catalog.list_partitions(DATABASE, table)) == 3


# -- create table like --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source_external", [False, True], ids=["from-managed", "from-external"])
@pytest.mark.parametrize("new_external", [False, True], ids=["to-managed", "to-external"])
def test_create_table_like(backend: Backend, source_external: bool, new_external: bool, tmp_path: Path) -> None:
    source, _ = make_table(backend, "regional", source_external, tmp_path)
    copy = f"copy_{next(_names)}"
    location = uri(tmp_path / "copies" / copy) if new_external else None
    info = backend.catalog.create_table_like(DATABASE, source, DATABASE, copy, location)
    assert info == backend.catalog.table_info(DATABASE, copy)
    assert (info.name, info.partition_keys, info.format) == (copy, ("ds", "region"), "parquet")
    assert info.table_type is (TableType.EXTERNAL if new_external else TableType.MANAGED)
    assert info.location == (location or uri(backend.database_dir / copy))
    assert backend.catalog.list_partitions(DATABASE, copy) == []
    assert backend.catalog.add_partition(DATABASE, copy, {"ds": "2026-11-23", "region": "eu"})
    assert backend.catalog.partition_location(DATABASE, copy, {"ds": "2026-11-23", "region": "eu"}) == \
        f"{info.location}/ds=2026-11-23/region=eu"
    assert len(backend.catalog.list_partitions(DATABASE, source)) == 3  # the source is untouched


def test_create_table_like_refuses_an_existing_table_or_a_missing_source(backend: Backend, tmp_path: Path) -> None:
    source, _ = make_table(backend, "daily", False, tmp_path)
    other, _ = make_table(backend, "daily", False, tmp_path)
    with pytest.raises(StorageError, match=rf"Cannot create the table {DATABASE}\.{other} like .* exists already"):
        backend.catalog.create_table_like(DATABASE, source, DATABASE, other)
    with pytest.raises(StorageError, match=rf"{DATABASE}\.nothing_here does not exist"):
        backend.catalog.create_table_like(DATABASE, "nothing_here", DATABASE, f"never_{next(_names)}")


# -- the session sees what the catalog changed --------------------------------------------------------------------


def test_spark_reads_a_partition_added_through_the_catalog(spark, tmp_path: Path) -> None:
    backend = SparkBackend(spark, tmp_path)
    table, _ = make_table(backend, "regional", True, tmp_path, with_partitions=False)
    assert spark.table(f"{DATABASE}.{table}").count() == 0
    landing = tmp_path / "landing"
    spark.createDataFrame([(1, "a"), (2, "b")], "id INT, payload STRING").write.parquet(str(landing))
    backend.catalog.add_partition(DATABASE, table, {"ds": "2026-11-20", "region": "eu"}, uri(landing))
    rows = spark.table(f"{DATABASE}.{table}").orderBy("id").collect()
    assert [tuple(row) for row in rows] == [(1, "a", "2026-11-20", "eu"), (2, "b", "2026-11-20", "eu")]
    backend.catalog.drop_partition(DATABASE, table, {"ds": "2026-11-20", "region": "eu"}, delete_data=True)
    assert spark.table(f"{DATABASE}.{table}").count() == 0
    assert len(list(landing.glob("*.parquet"))) == 2  # external: the files stay


def test_a_table_written_by_spark(spark, tmp_path: Path) -> None:
    """A Spark data-source table (`saveAsTable`), as jobs write them, not a Hive DDL one."""
    catalog = catalog_for(spark, None)
    table = f"written_{next(_names)}"
    rows = [(1, "a", "2026-11-20", "eu"), (2, "b", "2026-11-21", "us")]
    frame = spark.createDataFrame(rows, "id INT, payload STRING, ds STRING, region STRING")
    frame.write.partitionBy("ds", "region").format("parquet").saveAsTable(f"default.{table}")
    info = catalog.table_info("default", table)
    assert (info.table_type, info.partition_keys, info.format) == (TableType.MANAGED, ("ds", "region"), "parquet")
    listed = catalog.list_partitions("default", table)
    assert [(dict(p.values), p.location) for p in listed] == [
        ({"ds": "2026-11-20", "region": "eu"}, f"{info.location}/ds=2026-11-20/region=eu"),
        ({"ds": "2026-11-21", "region": "us"}, f"{info.location}/ds=2026-11-21/region=us")]
    assert [dict(p.values) for p in catalog.list_partitions("default", table, {"region": "us"})] == \
        [{"ds": "2026-11-21", "region": "us"}]

    landing = tmp_path / "late"
    spark.createDataFrame([(3, "c")], "id INT, payload STRING").write.parquet(str(landing))
    assert catalog.add_partition("default", table, {"ds": "2026-11-22", "region": "eu"}, uri(landing))
    assert sorted(tuple(row) for row in spark.table(f"default.{table}").collect()) == \
        [*rows, (3, "c", "2026-11-22", "eu")]
    assert catalog.drop_partition("default", table, {"ds": "2026-11-22", "region": "eu"}, delete_data=True)
    assert not landing.exists()  # managed: the metastore deleted the partition's files where they were
    assert catalog.drop_partition("default", table, {"ds": "2026-11-20", "region": "eu"}, delete_data=False)
    assert Path(listed[0].location.removeprefix("file://")).is_dir()  # asked to keep them
    assert [tuple(row) for row in spark.table(f"default.{table}").collect()] == [rows[1]]

    copy = catalog.create_table_like("default", table, "default", f"{table}_copy")
    assert (copy.table_type, copy.partition_keys, copy.format) == (TableType.MANAGED, ("ds", "region"), "parquet")
    assert catalog.list_partitions("default", copy.name) == []
    frame.write.insertInto(f"default.{copy.name}")
    assert sorted(tuple(row) for row in spark.table(f"default.{copy.name}").collect()) == rows
    assert [p.location for p in catalog.list_partitions("default", copy.name)] == [
        f"{copy.location}/ds=2026-11-20/region=eu", f"{copy.location}/ds=2026-11-21/region=us"]


# -- a metastore that does not answer -----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_closed_port_is_a_clear_error_at_once(spark) -> None:
    address = f"thrift://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(StorageError, match=rf"The Hive metastore at {address} does not answer \(127\.0\.0\.1:\d+: "
                                           r"Connection refused\): start it, or fix the cluster's registry"):
        catalog_for(spark, address)
    assert time.monotonic() - started < 5


def test_a_metastore_that_accepts_but_never_answers_times_out(spark) -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []

    def accept() -> None:
        try:
            while True:
                held.append(listener.accept()[0])
        except OSError:  # closed at the end of the test
            return

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    address = f"thrift://127.0.0.1:{listener.getsockname()[1]}"
    started = time.monotonic()
    try:
        with pytest.raises(StorageError, match=rf"The Hive metastore at {address} does not answer \(.*Read timed "
                                               r"out.*\): check that it runs and is healthy"):
            catalog_for(spark, address, connect_timeout=2)
        elapsed = time.monotonic() - started
        assert 2 <= elapsed < 15, elapsed  # bounded by connect_timeout (plus JVM overhead on a busy machine)
    finally:
        listener.close()
        for connection in held:
            connection.close()


def test_an_unroutable_host_gives_up_within_the_connect_timeout(spark) -> None:
    # Not routed: refused, unreachable, or (behind a proxy that accepts every connection) silent.
    address = "thrift://10.255.255.1:9083"
    started = time.monotonic()
    with pytest.raises(StorageError, match=r"The Hive metastore at thrift://10\.255\.255\.1:9083 does not answer"):
        catalog_for(spark, address, connect_timeout=1)
    assert time.monotonic() - started < 10


@pytest.mark.parametrize("address", ["http://metastore:9083", "thrift://metastore", "thrift://:9083"])
def test_a_uri_that_is_not_thrift_host_port(spark, address: str) -> None:
    with pytest.raises(StorageError, match="is not thrift://host:port"):
        catalog_for(spark, address)


class CuttableProxy:
    """A TCP relay to a metastore that the test can cut, as a metastore that goes away in the middle of a run."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        try:
            while True:
                client = self.listener.accept()[0]
                upstream = socket.create_connection(("127.0.0.1", self.target))
                self.sockets += [client, upstream]
                for source, sink in ((client, upstream), (upstream, client)):
                    threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()
        except OSError:  # cut
            return

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            return

    def cut(self) -> None:
        with suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes the accepting thread (a bare close would not)
        self.listener.close()
        for connection in self.sockets:
            with suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
            connection.close()


def test_a_metastore_that_goes_away_mid_run(spark, thrift_metastore) -> None:
    proxy = CuttableProxy(thrift_metastore.port)
    address = f"thrift://127.0.0.1:{proxy.port}"
    with catalog_for(spark, address) as catalog:
        with pytest.raises(StorageError, match=r"default\.absent does not exist"):  # it answers
            catalog.table_info("default", "absent")
        proxy.cut()
        started = time.monotonic()
        with pytest.raises(StorageError, match=rf"The Hive metastore at {address} does not answer \(.*\) while trying "
                                               r"to read the table default\.absent: check that it runs"):
            catalog.table_info("default", "absent")
        assert time.monotonic() - started < 20
