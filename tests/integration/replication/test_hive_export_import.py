"""Hive export and import between two real Thrift metastore servers (one per cluster) in one SparkSession:
tables with one dated key, year/month/day keys, a dated key beside a static `region`, managed and external;
the target table missing (created) or existing (partition added, then replaced), incompatible (refused,
nothing changed), a partition that does not exist yet (waiting), a damaged export (refused); round trips
through Spark's own session catalog; and both entrypoints through the real spark-submit.

Tables are built and checked with Hive's own client (RawMetastore), data read back with spark.read.parquet on
the partition's location and compared with chispa. Each test uses tables of its own.
"""

from __future__ import annotations

import itertools
import json
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from chispa import assert_df_equality

from tests.crc32c import crc32c
from tests.integration.metastore import RawMetastore
from tests.integration.replication.hive_feed import sessions_feed
from tests.integration.spark_submit import spark_submit
from toolkit.actions.replication.hive import export_partition, import_partition
from toolkit.actions.replication.hive.export import ExportOrigin
from toolkit.core.el.templates import CatalogTemplate
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.hive_transfers import hive_records
from toolkit.core.ledger.locks import LockLostError
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.catalog_factory import catalog_for
from toolkit.core.storage.catalog_records import PartitionAddress
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError, SkippedError, WaitingError
from toolkit.statuses import Status

UTC = timezone.utc
T = datetime(2026, 11, 21, tzinfo=UTC)
COLUMNS = [("id", "int"), ("name", "string")]
SCHEMA = "id INT, name STRING"
ROWS = {"v1": [(1, "ada"), (2, "grace"), (3, "edsger")], "v2": [(10, "barbara"), (11, "donald")],
        "other": [(99, "neighbour")]}
PARQUET, ORC = RawMetastore.PARQUET, ("org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
                                       "org.apache.hadoop.hive.ql.io.orc.OrcOutputFormat",
                                       "org.apache.hadoop.hive.ql.io.orc.OrcSerde")
SHAPES = {
    # shape: (partition keys, the catalog URI's spec, the instance's partition name, a neighbour's values)
    "daily": (["ds"], "ds=${YEAR}-${MONTH}-${DAY}", "ds=2026-11-21", ["2026-11-20"]),
    "ymd": (["year", "month", "day"], "year=${YEAR};month=${MONTH};day=${DAY}", "year=2026/month=11/day=21",
            ["2026", "11", "20"]),
    "regional": (["ds", "region"], "ds=${YEAR}-${MONTH}-${DAY};region=eu", "ds=2026-11-21/region=eu",
                 ["2026-11-21", "us"]),
}
_names = itertools.count()


def local(uri: str) -> Path:
    return Path(uri.removeprefix("file://").removeprefix("file:"))


def uri(path: Path) -> str:
    return f"file://{path}"


@dataclass
class Side:
    """One cluster: its metastore server, Hive's raw client, the toolkit's catalog, its file-system root."""

    server: Any
    raw: RawMetastore
    catalog: Catalog
    root: Path
    database: str

    def create_table(self, table: str, keys: list[str], external: bool, columns: list[tuple[str, str]] = COLUMNS,
                     formats: tuple[str, str, str] = PARQUET, database: str | None = None) -> None:
        """A Hive table as Hive's DDL makes it (RawMetastore.create_table, with a choice of format)."""
        database = database or self.database
        location = uri(self.root / "external" / database / table) if external else None
        if formats == PARQUET:
            self.raw.create_table(database, table, columns, keys, location, external)
            return
        api, raw = self.raw.api, self.raw
        serde = api.SerDeInfo()
        serde.setSerializationLib(formats[2])
        serde.setParameters(raw._map({"serialization.format": "1"}))
        sd = api.StorageDescriptor()
        sd.setCols(raw._list([api.FieldSchema(name, kind, None) for name, kind in columns]))
        sd.setLocation(location)
        sd.setInputFormat(formats[0])
        sd.setOutputFormat(formats[1])
        sd.setSerdeInfo(serde)
        sd.setParameters(raw._map({}))
        created = api.Table()
        created.setDbName(database)
        created.setTableName(table)
        created.setOwner("test")
        created.setSd(sd)
        created.setPartitionKeys(raw._list([api.FieldSchema(key, "string", None) for key in keys]))
        created.setTableType("EXTERNAL_TABLE" if external else "MANAGED_TABLE")
        created.setParameters(raw._map({"EXTERNAL": "TRUE"} if external else {}))
        raw.client.createTable(created)

    def partition_location(self, table: str, values: list[str], database: str | None = None) -> str:
        return str(self.raw.client.getPartition(database or self.database, table, self.raw._list(values)).getSd()
                   .getLocation())

    def table_location(self, table: str, database: str | None = None) -> str:
        return str(self.raw.table(database or self.database, table).getSd().getLocation())


@dataclass
class Clusters:
    spark: Any
    source: Side
    target: Side
    data: dict[str, Path]  # parquet files of each row set, written once by Spark


@pytest.fixture(scope="module")
def clusters(metastore_factory, request, tmp_path_factory) -> Any:
    """A metastore server per cluster, both started while the Spark session starts (if it is not running yet):
    the whole wait is about one server's start."""
    tmp_path_factory.getbasetemp()  # made here, once: the threads below only make folders in it
    with ThreadPoolExecutor(max_workers=2) as pool:
        servers = [pool.submit(metastore_factory, f"hive_{name}") for name in ("source", "target")]
        spark = request.getfixturevalue("spark")
        source_server, target_server = (started.result() for started in servers)
    root = tmp_path_factory.mktemp("hive_clusters")
    sides = []
    for name, server in (("primary", source_server), ("backup", target_server)):
        raw = server.client(spark)
        database = f"hive_{name}"
        raw.create_database(database, uri(root / name / "warehouse" / f"{database}.db"))
        sides.append(Side(server, raw, catalog_for(spark, server.uri), root / name, database))
    everything = [(version, *row) for version, rows in ROWS.items() for row in rows]
    (spark.createDataFrame(everything, f"version STRING, {SCHEMA}").repartition(2, "id").write
     .partitionBy("version").parquet(uri(root / "parquet")))  # one job: two files per row set
    data = {version: root / "parquet" / f"version={version}" for version in ROWS}
    yield Clusters(spark, sides[0], sides[1], data)
    for side in sides:
        side.catalog.close()
        side.raw.close()


def fill(location: str, source: Path) -> None:
    """Replace a partition directory's content with a row set's files, and the hidden files writers leave
    beside them (Spark's .crc files come along; a _SUCCESS flag and its .crc are added)."""
    folder = local(location)
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(source, folder)
    (folder / "_SUCCESS").write_bytes(b"")
    (folder / "._SUCCESS.crc").write_bytes(b"crc")


def contents(folder: Path) -> dict[str, bytes]:
    """The visible files' bytes by name."""
    return {p.name: p.read_bytes() for p in visible(folder)}


def visible(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if not p.name.startswith(("_", ".")))


def make_source(clusters: Clusters, shape: str, external: bool, rows: str = "v1") -> tuple[str, dict[str, str]]:
    """A source table of `shape` with the instance's partition (holding `rows`) and a neighbour; returns the
    table and the instance's spec, as the feed's catalog URI formats it."""
    keys, template, _, neighbour = SHAPES[shape]
    side = clusters.source
    table = f"{shape}_{'ext' if external else 'man'}_{next(_names)}"
    side.create_table(table, keys, external)
    spec = CatalogTemplate(f"catalog:{side.database}:{table}#{template}").format(T, UTC)
    for values, data in ((list(spec.values()), rows), (neighbour, "other")):
        side.raw.add_partition(side.database, table, values)
        fill(side.partition_location(table, values), clusters.data[data])
    return table, spec


def rows_of(spark, location: str, rows: str) -> None:
    assert_df_equality(spark.read.parquet(location), spark.createDataFrame(ROWS[rows], SCHEMA),
                       ignore_row_order=True)


def export_dir(clusters: Clusters, table: str) -> str:
    return uri(clusters.target.root / "staging" / f"{table}-{next(_names)}")


# -- the copier ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("local_by_nio", [True, False], ids=["nio", "hadoop-streams"])
def test_files_are_copied_with_their_crc32c(clusters: Clusters, tmp_path: Path, local_by_nio: bool) -> None:
    """Both ways the copier goes (java.nio between local paths; Hadoop streams, as for every other scheme)."""
    from toolkit.actions.replication.hive.copying import CopyTask, copy_files, crc32c_files
    from toolkit.core.storage.hadoop import HadoopFileSystem

    fs = HadoopFileSystem(clusters.spark)
    sources = {"empty": b"", "small": b"0123456789" * 7, "big": bytes(range(251)) * 10_000}  # 2.4 MiB: buffers
    tasks = []
    for name, data in sources.items():
        path = tmp_path / "in" / name
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(data)
        tasks.append(CopyTask(uri(path), uri(tmp_path / "out" / "deep" / name), len(data),
                              path.stat().st_mtime_ns // 1_000_000))
    copied = copy_files(clusters.spark, fs, tasks, local_by_nio=local_by_nio)
    assert [(c.bytes, c.crc32c) for c in copied] == [(len(d), crc32c(d)) for d in sources.values()]
    assert {p.name: p.read_bytes() for p in (tmp_path / "out" / "deep").iterdir()} == sources
    sums = crc32c_files(clusters.spark, [task.target for task in tasks], local_by_nio=local_by_nio)
    assert list(sums.values()) == [crc32c(d) for d in sources.values()]
    changed = CopyTask(tasks[1].source, uri(tmp_path / "again"), 1, tasks[1].modification_time)
    with pytest.raises(StorageError, match=r"Cannot copy .*/in/small to .*/again: the source changed since it was "
                                           "listed"):
        copy_files(clusters.spark, fs, [changed], local_by_nio=local_by_nio)
    assert not (tmp_path / "again").exists()


# -- export, then import into a missing table ------------------------------------------------------------------


@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_export_then_import_creates_database_and_table(clusters: Clusters, shape: str,
                                                       external: bool) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spark = clusters.spark
    fs = HadoopFileSystem(spark)
    source, target = clusters.source, clusters.target
    keys, _, name, _ = SHAPES[shape]
    table, spec = make_source(clusters, shape, external)
    directory = export_dir(clusters, table)
    exported = export_partition(spark, source.catalog, fs, PartitionAddress(source.database, table, spec), directory,
                                origin=ExportOrigin("sessions", "primary", T))

    source_folder = local(source.partition_location(table, list(spec.values())))
    files = visible(source_folder)
    assert files and (source_folder / "_SUCCESS").exists()  # hidden files are there, and not exported
    metadata = json.loads((local(directory) / "_metadata.json").read_text())
    assert metadata["table"]["columns"] == [{"name": n, "type": t, "comment": None} for n, t in COLUMNS]
    assert [key["name"] for key in metadata["table"]["partition_keys"]] == keys
    assert metadata["table"]["type"] == ("EXTERNAL" if external else "MANAGED")
    storage = metadata["table"]["storage"]
    assert (storage["input_format"], storage["output_format"], storage["serde"]) == PARQUET
    assert "transient_lastDdlTime" not in metadata["table"]["properties"]
    assert metadata["partition"]["values"] == spec and metadata["instance_time"] == "2026-11-21T00:00Z"
    assert [(f["path"], f["size"], f["crc32c"]) for f in metadata["files"]] == \
        [(p.name, p.stat().st_size, crc32c(p.read_bytes())) for p in files]
    assert sorted(p.name for p in (local(directory) / "data").iterdir()) == [p.name for p in files]
    assert all((local(directory) / "data" / p.name).read_bytes() == p.read_bytes() for p in files)
    assert (exported.files, exported.bytes) == (len(files), sum(p.stat().st_size for p in files))

    database, copy = f"hive_new_{next(_names)}", f"{table}_copy"  # neither exists on the target
    imported = import_partition(spark, target.catalog, fs, directory, PartitionAddress(database, copy, spec))
    made = target.raw.table(database, copy)
    assert str(made.getTableType()) == ("EXTERNAL_TABLE" if external else "MANAGED_TABLE")
    assert [(str(c.getName()), str(c.getType())) for c in made.getSd().getCols()] == COLUMNS
    assert [str(k.getName()) for k in made.getPartitionKeys()] == keys
    assert (str(made.getSd().getInputFormat()), str(made.getSd().getOutputFormat()),
            str(made.getSd().getSerdeInfo().getSerializationLib())) == PARQUET
    assert target.raw.partition_names(database, copy) == [name]
    assert not source.catalog.table_exists(database, copy)  # two metastores, one session: each sees its own
    location = target.partition_location(copy, list(spec.values()), database)
    assert local(location) == local(target.table_location(copy, database)) / name
    rows_of(spark, location, "v1")
    assert not local(directory).exists()  # consumed: its files were moved into the partition
    assert (imported.files, imported.bytes, imported.table_created, imported.replaced, imported.moved) == \
        (len(files), exported.bytes, True, False, True)
    assert source.raw.partition_names(source.database, table) == sorted(  # the source is untouched
        [name, "/".join(f"{k}={v}" for k, v in zip(keys, SHAPES[shape][3], strict=True))])
    assert visible(source_folder) == files


# -- an existing table: the partition is added, then replaced ---------------------------------------------------


@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
def test_import_into_an_existing_table_then_replace_the_partition(clusters: Clusters, external: bool) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spark = clusters.spark
    fs = HadoopFileSystem(spark)
    source, target = clusters.source, clusters.target
    keys, _, name, neighbour = SHAPES["regional"]
    table, spec = make_source(clusters, "regional", external)
    copy = f"{table}_existing"
    target.create_table(copy, keys, external)
    target.raw.add_partition(target.database, copy, neighbour)  # the target's own, untouched by the import
    fill(target.partition_location(copy, neighbour), clusters.data["other"])
    table_dir = local(target.table_location(copy))

    first = export_dir(clusters, table)
    export_partition(spark, source.catalog, fs, PartitionAddress(source.database, table, spec), first)
    added = import_partition(spark, target.catalog, fs, first, PartitionAddress(target.database, copy, spec))
    assert (added.table_created, added.replaced) == (False, False)
    assert target.raw.partition_names(target.database, copy) == ["ds=2026-11-21/region=eu", "ds=2026-11-21/region=us"]
    assert local(target.partition_location(copy, list(spec.values()))) == table_dir / name
    rows_of(spark, target.partition_location(copy, list(spec.values())), "v1")

    fill(source.partition_location(table, list(spec.values())), clusters.data["v2"])  # the source changes
    second = export_dir(clusters, table)
    export_partition(spark, source.catalog, fs, PartitionAddress(source.database, table, spec), second)
    replaced = import_partition(spark, target.catalog, fs, second, PartitionAddress(target.database, copy, spec))
    location = target.partition_location(copy, list(spec.values()))
    assert replaced.replaced and local(replaced.location) == local(location)
    assert local(location) == table_dir / ".toolkit-partitions" / replaced.export_id / name  # a new directory
    assert not (table_dir / name).exists()  # the old one is gone, after the switch
    rows_of(spark, location, "v2")
    assert target.raw.partition_names(target.database, copy) == ["ds=2026-11-21/region=eu", "ds=2026-11-21/region=us"]

    fill(source.partition_location(table, list(spec.values())), clusters.data["v1"])
    third = export_dir(clusters, table)
    export_partition(spark, source.catalog, fs, PartitionAddress(source.database, table, spec), third)
    back = import_partition(spark, target.catalog, fs, third, PartitionAddress(target.database, copy, spec))
    assert local(back.location) == table_dir / name  # back at the plain place; the version folder is gone
    assert not (table_dir / ".toolkit-partitions" / replaced.export_id).exists()
    assert local(target.partition_location(copy, list(spec.values()))) == table_dir / name
    assert contents(table_dir / name) == contents(clusters.data["v1"])
    assert contents(local(target.partition_location(copy, neighbour))) == contents(clusters.data["other"])


def test_a_lease_lost_before_the_partition_switch_publishes_nothing(clusters: Clusters) -> None:
    """The guard (the caller's lease check) passes before the rename into place and refuses before the
    metastore switch: the rename is undone, the partition stays as it was, the export stays whole for the
    rerun, which imports it."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spark = clusters.spark
    fs = HadoopFileSystem(spark)
    source, target = clusters.source, clusters.target
    keys, _, name, _ = SHAPES["daily"]
    table, spec = make_source(clusters, "daily", external=True)
    copy = f"{table}_guarded"
    target.create_table(copy, keys, external=True)
    directory = export_dir(clusters, table)
    export_partition(spark, source.catalog, fs, PartitionAddress(source.database, table, spec), directory)
    exported = contents(local(directory) / "data")
    checks: list[int] = []

    def guard() -> None:
        checks.append(len(checks))
        if len(checks) == 2:
            raise LockLostError("The lock x was not renewed in time: this run publishes nothing.")

    with pytest.raises(LockLostError):
        import_partition(spark, target.catalog, fs, directory, PartitionAddress(target.database, copy, spec),
                         guard=guard)

    assert checks == [0, 1]  # before the rename, before the switch
    assert target.raw.partition_names(target.database, copy) == []
    assert contents(local(directory) / "data") == exported
    assert not (local(target.table_location(copy)) / name).exists()
    imported = import_partition(spark, target.catalog, fs, directory, PartitionAddress(target.database, copy, spec))
    rows_of(spark, imported.location, "v1")


def test_a_rerun_after_an_interrupted_import_completes_it(clusters: Clusters) -> None:
    """Killed after the files were moved into the partition's directory, before the metastore heard of it: the
    partition is not visible, and the rerun finds the files in place, checks them and registers them."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spark = clusters.spark
    fs = HadoopFileSystem(spark)
    source, target = clusters.source, clusters.target
    table, spec = make_source(clusters, "ymd", False)
    copy = f"{table}_interrupted"
    target.create_table(copy, SHAPES["ymd"][0], False)
    directory = export_dir(clusters, table)
    export_partition(spark, source.catalog, fs, PartitionAddress(source.database, table, spec), directory)
    place = local(target.table_location(copy)) / SHAPES["ymd"][2]
    place.parent.mkdir(parents=True)
    (local(directory) / "data").rename(place)  # what the import does first
    assert target.raw.partition_names(target.database, copy) == []
    finished = import_partition(spark, target.catalog, fs, directory, PartitionAddress(target.database, copy, spec))
    assert target.raw.partition_names(target.database, copy) == [SHAPES["ymd"][2]]
    assert local(finished.location) == place and finished.moved and not local(directory).exists()
    rows_of(spark, uri(place), "v1")


# -- refusals -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("difference", "message"), [
    ("type", r"column 1 is `id bigint` there and `id int` in the export"),
    ("keys", r"partition key 1 is `dt string` there and `ds string` in the export"),
    ("format", r"its storage format is orc and the export's is parquet"),
])
def test_an_incompatible_table_is_refused_and_nothing_changes(clusters: Clusters, difference: str,
                                                              message: str) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spark = clusters.spark
    fs = HadoopFileSystem(spark)
    source, target = clusters.source, clusters.target
    table, spec = make_source(clusters, "daily", False)
    copy = f"{table}_{difference}"
    target.create_table(copy, ["dt"] if difference == "keys" else ["ds"], False,
                        columns=[("id", "bigint"), ("name", "string")] if difference == "type" else COLUMNS,
                        formats=ORC if difference == "format" else PARQUET)
    table_dir = local(target.table_location(copy))
    before = sorted(p.relative_to(table_dir) for p in table_dir.rglob("*")) if table_dir.exists() else []
    directory = export_dir(clusters, table)
    export_partition(spark, source.catalog, fs, PartitionAddress(source.database, table, spec), directory)
    exported = sorted(p.relative_to(local(directory)) for p in local(directory).rglob("*"))
    with pytest.raises(StorageError, match=rf"The table {target.database}\.{copy} in the Hive metastore at "
                                           rf"{target.server.uri} does not match the table exported in .*{message}"):
        import_partition(spark, target.catalog, fs, directory, PartitionAddress(target.database, copy, spec))
    assert target.raw.partition_names(target.database, copy) == []
    after = sorted(p.relative_to(table_dir) for p in table_dir.rglob("*")) if table_dir.exists() else []
    assert after == before
    assert sorted(p.relative_to(local(directory)) for p in local(directory).rglob("*")) == exported


def test_exporting_a_partition_that_does_not_exist_yet_waits(clusters: Clusters) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spark = clusters.spark
    source = clusters.source
    table, _ = make_source(clusters, "ymd", False)
    directory = export_dir(clusters, table)
    with pytest.raises(WaitingError, match=rf"The partition year=2026/month=11/day=22 of {source.database}\.{table} "
                                           "does not exist yet") as raised:
        export_partition(spark, source.catalog, HadoopFileSystem(spark),
                         PartitionAddress(source.database, table, {"year": "2026", "month": "11", "day": "22"}),
                         directory)
    assert raised.value.exit_code == 3
    assert not local(directory).exists()


def _damage(folder: Path, how: str) -> str:
    data = folder / "data"
    first = visible(data)[0]
    if how == "missing":
        first.unlink()
        return rf"{first.name} is missing"
    if how == "size":
        first.write_bytes(first.read_bytes()[:-1])
        return rf"{first.name} is \d+ bytes where the export's list says \d+"
    if how == "checksum":
        content = bytearray(first.read_bytes())
        content[len(content) // 2] ^= 0xFF
        first.write_bytes(bytes(content))
        return rf"{first.name} has CRC32C [0-9a-f]{{8}} where the export's list says [0-9a-f]{{8}}"
    (data / "stray.parquet").write_bytes(b"not listed")
    return r"stray\.parquet is not in the export's file list"


def test_a_damaged_export_is_refused_and_nothing_changes(clusters: Clusters) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spark = clusters.spark
    fs = HadoopFileSystem(spark)
    source, target = clusters.source, clusters.target
    table, spec = make_source(clusters, "daily", True)
    directory = export_dir(clusters, table)
    export_partition(spark, source.catalog, fs, PartitionAddress(source.database, table, spec), directory)
    for how in ("missing", "size", "checksum", "extra"):
        damaged = local(directory).with_name(f"{local(directory).name}-{how}")
        shutil.copytree(local(directory), damaged)
        message = _damage(damaged, how)
        with pytest.raises(StorageError, match=message):
            import_partition(spark, target.catalog, fs, uri(damaged),
                             PartitionAddress(target.database, f"{table}_{how}", spec))
        assert not target.raw.client.tableExists(target.database, f"{table}_{how}"), how  # nothing created
        assert (damaged / "_metadata.json").exists() and (damaged / "data").exists(), how
    with pytest.raises(StorageError, match=r"holds no complete export \(no _metadata.json\)"):
        import_partition(spark, target.catalog, fs, uri(local(directory) / "data"),
                         PartitionAddress(target.database, table, spec))


# -- through Spark's own session catalog --------------------------------------------------------------------------


def test_round_trip_through_the_session_catalog(clusters: Clusters) -> None:
    """Thrift source -> Spark's embedded catalog (created there by SQL DDL, read back with Spark SQL) -> the
    Thrift target: both catalogs' descriptions and creations."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spark = clusters.spark
    fs = HadoopFileSystem(spark)
    source, target = clusters.source, clusters.target
    table, spec = make_source(clusters, "regional", True)
    session = catalog_for(spark, None)
    middle_db = f"hive_session_{next(_names)}"
    first = export_dir(clusters, table)
    export_partition(spark, source.catalog, fs, PartitionAddress(source.database, table, spec), first)
    imported = import_partition(spark, session, fs, first, PartitionAddress(middle_db, table, spec))
    assert imported.table_created
    read = spark.sql(f"SELECT id, name FROM {middle_db}.{table} WHERE ds = '2026-11-21' AND region = 'eu'")
    assert_df_equality(read, spark.createDataFrame(ROWS["v1"], SCHEMA), ignore_row_order=True,
                       ignore_nullable=True)
    assert session.table_info(middle_db, table).is_external

    second = export_dir(clusters, table)
    export_partition(spark, session, fs, PartitionAddress(middle_db, table, spec), second)
    import_partition(spark, target.catalog, fs, second, PartitionAddress(target.database, f"{table}_back", spec))
    assert target.raw.partition_names(target.database, f"{table}_back") == ["ds=2026-11-21/region=eu"]
    rows_of(spark, target.partition_location(f"{table}_back", list(spec.values())), "v1")


def test_a_spark_data_source_table_stays_one(clusters: Clusters) -> None:
    """A `USING parquet` table of the session catalog becomes, on a Thrift target, a table Spark reads as a data
    source (its provider and schema properties written as Spark writes them)."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spark = clusters.spark
    fs = HadoopFileSystem(spark)
    target = clusters.target
    database, table = f"hive_ds_{next(_names)}", f"events_{next(_names)}"
    spark.sql(f"CREATE DATABASE {database} LOCATION '{uri(clusters.source.root / 'session' / database)}'")
    spark.sql(f"CREATE TABLE {database}.{table} (Id INT COMMENT 'the id', name STRING, ds STRING) USING parquet "
              "PARTITIONED BY (ds) TBLPROPERTIES ('team' = 'web')")
    spark.sql(f"INSERT INTO {database}.{table} VALUES (1, 'ada', '2026-11-21'), (2, 'grace', '2026-11-21'), "
              "(3, 'edsger', '2026-11-20')")
    session = catalog_for(spark, None)
    directory = export_dir(clusters, table)
    export_partition(spark, session, fs, PartitionAddress(database, table, {"ds": "2026-11-21"}), directory)
    import_partition(spark, target.catalog, fs, directory, PartitionAddress(target.database, table))
    made = target.raw.table(target.database, table)
    parameters = {str(k): str(v) for k, v in dict(made.getParameters()).items()}
    assert parameters["spark.sql.sources.provider"] == "parquet" and parameters["team"] == "web"
    schema = json.loads(parameters["spark.sql.sources.schema"])
    assert [(f["name"], f["type"]) for f in schema["fields"]] == [("Id", "integer"), ("name", "string"),
                                                                  ("ds", "string")]
    assert schema["fields"][0]["metadata"] == {"comment": "the id"}
    assert parameters["spark.sql.sources.schema.partCol.0"] == "ds"
    assert str(made.getSd().getSerdeInfo().getParameters().get("path")) == str(made.getSd().getLocation())
    assert_df_equality(spark.read.parquet(target.partition_location(table, ["2026-11-21"])),
                       spark.createDataFrame([(1, "ada"), (2, "grace")], "Id INT, name STRING"),
                       ignore_row_order=True, ignore_metadata=True)  # the files keep the column's comment


# -- the entrypoints through spark-submit -------------------------------------------------------------------------


def _repo(folder: Path, clusters: Clusters, source_table: str, target_table: str) -> Path:
    repo = folder / "conf"
    (repo / "clusters").mkdir(parents=True)
    (repo / "feeds").mkdir()
    for side, name in ((clusters.source, "primary"), (clusters.target, "backup")):
        (repo / "clusters" / f"{name}.yaml").write_text(textwrap.dedent(f"""\
            kind: cluster
            name: {name}
            description: The {name} cluster of the Hive export and import tests.
            colo: local
            interfaces:
              readonly: {{endpoint: "{uri(side.root)}", version: "3.4"}}
              write: {{endpoint: "{uri(side.root)}", version: "3.4"}}
              execute: {{endpoint: "spark://127.0.0.1:7077", version: "4.0"}}
              workflow: {{endpoint: "cron://localhost", version: "1.0"}}
              registry: {{endpoint: "{side.server.uri}", version: "2.3"}}
            locations:
              staging: /feed-toolkit/staging
              temp: /feed-toolkit/temp
              working: /feed-toolkit/working
            """))
    spec = "ds=${YEAR}-${MONTH}-${DAY};region=eu"
    (repo / "feeds" / "sessions.yaml").write_text(sessions_feed(
        f"catalog:{clusters.source.database}:{source_table}#{spec}",
        f"catalog:{clusters.target.database}:{target_table}#{spec}"))
    lint = subprocess.run([sys.executable, "-m", "toolkit", "lint", "--strict", str(repo)], capture_output=True,
                          text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    return repo


def _reruns(repo: Path, action: str, cluster: str, statuses: str) -> list[list[str]]:
    """The arguments after `--repo R` of each command `toolkit rerun` prints for the runs of `action` on 21 and 22
    November whose status is in `statuses`."""
    listed = subprocess.run([sys.executable, "-m", "toolkit", "rerun", "--repo", str(repo), "--feed", "sessions",
                             "--action", action, "--cluster", cluster, "--from", "2026-11-21T00:00Z", "--to",
                             "2026-11-22T00:00Z", "--status", statuses], capture_output=True, text=True, check=True)
    commands = [shlex.split(line) for line in listed.stdout.splitlines()]
    return [words[words.index("--repo") + 2:] for words in commands]


def _status(result: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.jvm
def test_entrypoints_through_spark_submit(clusters: Clusters,
                                          run_entrypoint: Callable[..., subprocess.CompletedProcess[str]],
                                          tmp_path: Path) -> None:
    """Both entrypoints through spark-submit; the export of a partition not there yet in process, on the session
    (tests/integration/in_process.py): its WAITING needs no JVM of its own."""
    table, spec = make_source(clusters, "regional", False)
    repo = _repo(tmp_path, clusters, table, f"{table}_replica")
    directory = "/feed-toolkit/staging/sessions/20261121"  # a path: on the exporting cluster's file system ...
    target_directory = uri(clusters.target.root) + directory  # ... so a URI, to export onto the target's

    def exporting(time: str, to: str) -> list[str]:
        return ["--feed", "sessions", "--cluster", "primary", "--time", time, "--to", to]

    def export(time: str, to: str) -> subprocess.CompletedProcess[str]:
        return spark_submit("hive_export", "--repo", str(repo), *exporting(time, to), cwd=tmp_path)

    exported = export("2026-11-21T00:00Z", target_directory)
    waiting = run_entrypoint("hive_export", "--repo", str(repo),
                             *exporting("2026-11-22T00:00Z", f"{target_directory}-next"), cwd=tmp_path)
    assert waiting.returncode == 3, waiting.stdout[-3000:]
    assert "hive_export: The partition ds=2026-11-22/region=eu of" in waiting.stderr
    assert _status(waiting)["status"] == "WAITING"
    assert exported.returncode == 0, exported.stdout[-3000:]
    status = _status(exported)
    files = visible(local(clusters.source.partition_location(table, list(spec.values()))))
    assert (status["status"], status["action"], status["entity"], status["partition"], status["files"],
            status["bytes"]) == ("SUCCEEDED", "hive_export", "sessions", "ds=2026-11-21/region=eu", len(files),
                                 sum(p.stat().st_size for p in files))

    imported = spark_submit("hive_import", "--repo", str(repo), "--feed", "sessions", "--cluster", "backup",
                            "--from", directory, cwd=tmp_path)
    assert imported.returncode == 0, imported.stdout[-3000:]
    # each run's record names its run, its end and the directory it was given; `toolkit rerun` calls it again so
    config = ConfigRepo.load(repo)
    exports = hive_records(LocalFileSystem(), Ledger.of(LocalFileSystem(), config.cluster("primary")).layout,
                           "hive-export", "sessions")
    imports = hive_records(LocalFileSystem(), Ledger.of(LocalFileSystem(), config.cluster("backup")).layout,
                           "hive-import", "sessions")
    day2 = datetime(2026, 11, 22, tzinfo=UTC)
    assert [(r.run_id, r.status, r.directory, r.partition) for r in (exports.read(T), exports.read(day2),
                                                                    imports.read(T)) if r is not None] == [
        (_status(exported)["run_id"], Status.SUCCEEDED, target_directory, "ds=2026-11-21/region=eu"),
        (_status(waiting)["run_id"], Status.WAITING, f"{target_directory}-next", "ds=2026-11-22/region=eu"),
        (_status(imported)["run_id"], Status.SUCCEEDED, target_directory, "ds=2026-11-21/region=eu")]
    waited = exports.read(day2)
    assert waited is not None and waited.error is not None and "does not exist yet" in waited.error
    assert _reruns(repo, "hive-export", "primary", "SUCCEEDED,WAITING") == [
        exporting("2026-11-21T00:00Z", target_directory), exporting("2026-11-22T00:00Z", f"{target_directory}-next")]
    assert _reruns(repo, "hive-import", "backup", "SUCCEEDED") == [
        ["--feed", "sessions", "--cluster", "backup", "--time", "2026-11-21T00:00Z", "--from", target_directory]]
    status = _status(imported)
    assert (status["status"], status["time"], status["table"], status["table_created"]) == \
        ("SUCCEEDED", "2026-11-21T00:00Z", f"{clusters.target.database}.{table}_replica", True)
    assert clusters.target.raw.partition_names(clusters.target.database, f"{table}_replica") == \
        ["ds=2026-11-21/region=eu"]
    rows_of(clusters.spark, clusters.target.partition_location(f"{table}_replica", list(spec.values())), "v1")
    [event] = [e for e in (json.loads(p.read_text()) for p in (
        clusters.target.root / "feed-toolkit/working/ledger/events/sessions/20261121T0000Z").glob("*.json"))
               if e["run_id"] == status["run_id"]]
    assert (event["kind"], event["producer"], event["run_id"], event["location"], event["fingerprint"]["files"]) == (
        "published", "hive-import", status["run_id"], f"{clusters.target.database}.{table}_replica/"
                                                      "ds=2026-11-21/region=eu", len(files))


def test_an_import_killed_before_its_event_has_it_written_by_the_next_import(clusters: Clusters, tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from toolkit.actions.replication.hive.runner import plan_hive_import, run_hive_import
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.services.runtime.run_context import RunContext

    spark, fs, target = clusters.spark, HadoopFileSystem(clusters.spark), clusters.target
    table, spec = make_source(clusters, "regional", False)
    repo = ConfigRepo.load(_repo(tmp_path, clusters, table, f"{table}_evented"))
    feed, backup = repo.feed("sessions"), repo.cluster("backup")
    directory = export_dir(clusters, table)
    export_partition(spark, clusters.source.catalog, fs, PartitionAddress(clusters.source.database, table, spec),
                     directory, origin=ExportOrigin("sessions", "primary", T))
    plan = plan_hive_import(fs, feed, backup, directory, None)
    real = Ledger.record_publication

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed between the import and its event")

    monkeypatch.setattr(Ledger, "record_publication", killed)
    with pytest.raises(KeyboardInterrupt):
        run_hive_import(spark, repo, feed, backup, plan, RunContext(fs, "r1", catalog=target.catalog))
    assert target.raw.partition_names(target.database, f"{table}_evented") == ["ds=2026-11-21/region=eu"]
    records = hive_records(fs, Ledger.of(fs, backup).layout, "hive-import", "sessions")
    killed = records.read(T)
    assert killed is not None and (killed.run_id, killed.status, killed.ended) == ("r1", Status.RUNNING, None)
    assert _reruns(repo.root, "hive-import", "backup", "KILLED") == [
        ["--feed", "sessions", "--cluster", "backup", "--time", "2026-11-21T00:00Z", "--from", directory]]
    monkeypatch.setattr(Ledger, "record_publication", real)
    with pytest.raises(SkippedError, match="by another run already"):
        run_hive_import(spark, repo, feed, backup, plan, RunContext(fs, "r2", catalog=target.catalog))
    finished = records.read(T)
    assert finished is not None and (finished.run_id, finished.status) == ("r2", Status.SKIPPED)
    # (the module's clusters are shared: other tests' imports of `sessions` may have events there too)
    [event] = [e for e in Ledger.of(fs, backup).events("sessions", T) if e.run_id in ("r1", "r2")]
    assert (event.producer, event.run_id, event.location) == (
        "hive-import", "r2", f"{target.database}.{table}_evented/ds=2026-11-21/region=eu")
    assert event.fingerprint is not None and event.fingerprint.files == len(visible(local(
        target.partition_location(f"{table}_evented", list(spec.values())))))


# -- the partition's lease ----------------------------------------------------------------------------------------


def _import_exclusively(spark: Any, catalog: Any, context: Any, cluster: Any, plan: Any) -> Any:
    """The import step as hive_import.py takes it: the partition's lease, then the import under it."""
    from toolkit.actions.replication.hive.import_lease import import_held, import_lease
    from toolkit.actions.replication.hive.importer import ImportOptions

    with import_lease(context.fs, cluster, plan.address, context.run_id, context.lease_seconds) as lease:
        return import_held(spark, catalog, context.fs, cluster, plan, ImportOptions(), lease)


def test_an_import_holds_the_partition_lease_and_a_later_one_finds_it_done(clusters: Clusters,
                                                                          tmp_path: Path) -> None:
    """hive_import.py's flow: another run's live lease on the partition refuses the import (exit 5, naming it)
    and nothing changes; once released, the import runs; an import of the same export after it finds the export
    consumed and the partition holding its files: done (exit 4)."""
    from toolkit.actions.replication.hive.import_plan import ImportPlan
    from toolkit.actions.replication.hive.importer import read_export
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.services.runtime.run_context import RunContext

    spark, fs, target = clusters.spark, HadoopFileSystem(clusters.spark), clusters.target
    table, spec = make_source(clusters, "daily", False)
    copy = f"{table}_leased"
    backup = ConfigRepo.load(_repo(tmp_path, clusters, table, copy)).cluster("backup")
    directory = export_dir(clusters, table)
    export_partition(spark, clusters.source.catalog, fs, PartitionAddress(clusters.source.database, table, spec),
                     directory)
    exported = sorted(p.relative_to(local(directory)) for p in local(directory).rglob("*"))

    def run(run_id: str, metadata: Any = None) -> Any:
        plan = ImportPlan(directory, metadata or read_export(fs, directory), None, target.database, copy, spec)
        return _import_exclusively(spark, target.catalog, RunContext(fs, run_id), backup, plan)

    other = Ledger.of(fs, backup).import_lock(target.database, copy, "ds=2026-11-21")
    assert other.try_acquire("other-run").taken
    with pytest.raises(BlockedError, match=r"The import of the partition ds=2026-11-21 of hive_backup\.\S+ into "
                                           r"cluster 'backup' is being run by run other-run on \S+:\d+ \(its lease "):
        run("r1")
    assert not target.raw.client.tableExists(target.database, copy)
    assert sorted(p.relative_to(local(directory)) for p in local(directory).rglob("*")) == exported
    other.release()

    read_by_r2 = read_export(fs, directory)  # r2 read the export, then found r1 holding the lease
    first = run("r1")
    assert target.raw.partition_names(target.database, copy) == ["ds=2026-11-21"]
    rows_of(spark, first.location, "v1")
    assert not local(directory).exists()  # consumed
    with pytest.raises(SkippedError, match=r"was imported .* by another run already: nothing to do"):
        run("r2", read_by_r2)
    rows_of(spark, target.partition_location(copy, ["2026-11-21"]), "v1")


def test_two_imports_of_one_export_at_once(clusters: Clusters, tmp_path: Path) -> None:
    """Exactly one imports; the other is refused naming it, or finds the partition done."""
    from toolkit.actions.replication.hive.import_plan import ImportPlan
    from toolkit.actions.replication.hive.importer import read_export
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.services.runtime.run_context import RunContext

    spark, fs, target = clusters.spark, HadoopFileSystem(clusters.spark), clusters.target
    table, spec = make_source(clusters, "daily", False)
    copy = f"{table}_raced"
    backup = ConfigRepo.load(_repo(tmp_path, clusters, table, copy)).cluster("backup")
    directory = export_dir(clusters, table)
    export_partition(spark, clusters.source.catalog, fs, PartitionAddress(clusters.source.database, table, spec),
                     directory)
    metadata = read_export(fs, directory)  # each caller reads it first, as hive_import.py does

    def run(run_id: str) -> Any:
        with catalog_for(spark, target.server.uri) as catalog:
            try:
                plan = ImportPlan(directory, metadata, None, target.database, copy, spec)
                return _import_exclusively(spark, catalog, RunContext(fs, run_id), backup, plan)
            except (BlockedError, SkippedError) as err:
                return err

    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(run, ["r1", "r2"]))
    imported = [o for o in outcomes if not isinstance(o, Exception)]
    assert len(imported) == 1, outcomes
    other = next(o for o in outcomes if isinstance(o, Exception))
    assert isinstance(other, SkippedError) or re.search(r"run r[12] on \S+:\d+ \(its lease ends ", str(other))
    assert target.raw.partition_names(target.database, copy) == ["ds=2026-11-21"]
    rows_of(spark, target.partition_location(copy, ["2026-11-21"]), "v1")
