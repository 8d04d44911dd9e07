"""Table-feed retention on real metastores (the session's catalog and a Thrift server), for managed and
external tables with one dated key, year/month/day keys, and a dated key beside a static `region`.

Tables are made with Spark SQL or Hive's own client in a database of this module's own, so these tests
and the catalog's share no state."""

from __future__ import annotations

import itertools
import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration.spark_submit import spark_submit
from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.services.runtime.run_context import RunContext

DATABASE = "retention_test"
_names = itertools.count()
SHAPES = {
    # shape: (keys, partitions, URI partition spec, nominal time, the partitions that go)
    "daily": (["ds"], [["2026-11-19"], ["2026-11-20"], ["2026-11-21"]], "ds=${YEAR}-${MONTH}-${DAY}",
              utc(2026, 11, 21), ["ds=2026-11-19"]),
    "ymd": (["year", "month", "day"], [["2025", "12", "31"], ["2026", "01", "01"], ["2026", "01", "02"]],
            "year=${YEAR};month=${MONTH};day=${DAY}", utc(2026, 1, 2), ["year=2025/month=12/day=31"]),
    "regional": (["ds", "region"], [["2026-11-20", "eu"], ["2026-11-20", "us"], ["2026-11-21", "eu"]],
                 "ds=${YEAR}-${MONTH}-${DAY};region=us", utc(2026, 11, 22), ["ds=2026-11-20/region=us"]),
}
DATA = b"not really parquet"


class Metastore:
    """Builds tables and reads partitions without the toolkit's catalog code (Spark SQL or Hive's client)."""

    def __init__(self, spark, server, root: Path) -> None:
        from toolkit.core.storage.catalog_factory import catalog_for

        self.spark, self.root = spark, root
        self.raw = server.client(spark) if server is not None else None
        location = (root / "db").as_uri()
        if self.raw is not None:
            self.raw.create_database(DATABASE, location)
        else:
            spark.sql(f"CREATE DATABASE IF NOT EXISTS {DATABASE} LOCATION '{location}'")
        self.catalog = catalog_for(spark, server.uri if server is not None else None)

    def create(self, shape: str, external: bool) -> str:
        keys, partitions = SHAPES[shape][:2]
        table = f"{shape}_{'ext' if external else 'man'}_{next(_names)}"
        location = (self.root / "external" / table).as_uri() if external else None
        if self.raw is not None:
            self.raw.create_table(DATABASE, table, [("id", "int")], keys, location, external)
            for values in partitions:
                self.raw.add_partition(DATABASE, table, values)
        else:
            where = f" LOCATION '{location}'" if location else ""
            self.spark.sql(f"CREATE {'EXTERNAL ' if external else ''}TABLE {DATABASE}.{table} (id INT) PARTITIONED "
                           f"BY ({', '.join(f'{k} STRING' for k in keys)}) STORED AS PARQUET{where}")
            for values in partitions:
                spec = ", ".join(f"{k}='{v}'" for k, v in zip(keys, values, strict=True))
                self.spark.sql(f"ALTER TABLE {DATABASE}.{table} ADD PARTITION ({spec})")
        return table

    def partition_names(self, table: str) -> list[str]:
        if self.raw is not None:
            return sorted(self.raw.partition_names(DATABASE, table))
        return sorted(row[0] for row in self.spark.sql(f"SHOW PARTITIONS {DATABASE}.{table}").collect())


@pytest.fixture(scope="module", params=["spark", "thrift"])
def metastore(request, spark, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Metastore]:
    server = request.getfixturevalue("thrift_metastore") if request.param == "thrift" else None
    made = Metastore(spark, server, tmp_path_factory.mktemp(f"retention_{request.param}"))
    yield made
    made.catalog.close()
    if made.raw is not None:
        made.raw.close()


def _repo(folder: Path, table: str, spec: str) -> ConfigRepo:
    """The template with its clusters' roots (and so their ledgers and locks) in `folder`: a test shares no lock
    with another test, nor with a test session running beside it."""
    repo, _ = make_repo(folder)
    (repo / "feeds" / "orders.yaml").write_text(textwrap.dedent(f"""\
        kind: feed
        name: orders
        frequency: days(1)
        clusters:
          - name: primary
            validity: {{start: "2020-01-01T00:00Z", end: "2099-01-01T00:00Z"}}
            retention: {{limit: days(1), action: delete}}
        table: {{uri: "catalog:{DATABASE}:{table}#{spec}"}}
        """))
    return ConfigRepo.load(repo)


def _write(location: str) -> Path:
    folder = Path(location.removeprefix("file://"))
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "part-0.parquet").write_bytes(DATA)
    return folder / "part-0.parquet"


@pytest.mark.parametrize("external", [False, True], ids=["managed", "external"])
@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_expired_partitions_are_dropped_and_nothing_else(spark, metastore: Metastore, tmp_path: Path, shape: str,
                                                         external: bool) -> None:
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.hadoop import HadoopFileSystem

    spec, nominal, gone = SHAPES[shape][2:]
    table = metastore.create(shape, external)
    before = metastore.partition_names(table)
    files = {p.name: _write(p.location) for p in metastore.catalog.list_partitions(DATABASE, table)}
    repo = _repo(tmp_path, table, spec)
    result = run_retention(repo, "orders", "primary", nominal,
                           RunContext(HadoopFileSystem(spark), catalog=metastore.catalog, run_id="ret1"))
    assert [item.partition for item in result.evicted] == gone
    ledger = Ledger.of(HadoopFileSystem(spark), repo.cluster("primary"))
    events = [event for t in ledger.feed_event_times("orders") for event in ledger.events("orders", t)]
    assert [(e.kind, e.producer, e.run_id, e.location) for e in events] == [
        ("evicted", "retention", "ret1", f"{DATABASE}.{table}/{name}") for name in gone]
    assert metastore.partition_names(table) == sorted(set(before) - set(gone))
    for name, data in files.items():
        assert data.exists() == (name not in gone), name  # managed: the metastore deletes; external: we do
    assert result.bytes_freed == len(gone) * len(DATA)
    assert all(item.data_deleted for item in result.evicted)


def test_external_data_outside_the_table_location_is_kept(spark, metastore: Metastore, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    table = metastore.create("daily", True)
    for name in metastore.partition_names(table):
        metastore.catalog.drop_partition(DATABASE, table, {"ds": name.split("=")[1]}, delete_data=False)
    shared = tmp_path / "shared" / "day19"
    metastore.catalog.add_partition(DATABASE, table, {"ds": "2026-11-19"}, location=shared.as_uri())
    data = _write(shared.as_uri())
    result = run_retention(_repo(tmp_path, table, SHAPES["daily"][2]), "orders", "primary", utc(2026, 11, 21),
                           RunContext(HadoopFileSystem(spark), catalog=metastore.catalog))
    assert [(item.partition, item.data_deleted) for item in result.evicted] == [("ds=2026-11-19", False)]
    assert metastore.partition_names(table) == [] and data.exists()


@pytest.mark.jvm
def test_template_table_feed_through_spark_submit(spark, thrift_metastore, tmp_path: Path) -> None:
    """The template's `visits` feed (web.visits, daily `ds`) on primary, whose registry is the Thrift server."""

    repo, root = make_repo(tmp_path)
    primary = repo / "clusters" / "primary.yaml"
    primary.write_text(primary.read_text().replace("thrift://127.0.0.1:9083", thrift_metastore.uri))
    raw = thrift_metastore.client(spark)
    table_location = root / "warehouse" / "web.db" / "visits"
    raw.create_database("web", (root / "warehouse" / "web.db").as_uri())
    raw.create_table("web", "visits", [("user", "string")], ["ds"], table_location.as_uri())
    days = ["2026-02-27", "2026-02-28", "2026-03-01", "2026-03-02", "2026-03-03"]
    for day in days:
        location = f"file://{table_location / f'ds={day}'}"  # as_uri() would escape '=' as %3D
        raw.add_partition("web", "visits", [day], location)
        _write(location)
    result = spark_submit("retention", "--repo", str(repo), "--feed", "visits", "--cluster", "primary",
                          "--time", "2026-04-01T00:00Z", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    status = json.loads(result.stdout.strip().splitlines()[-1])
    # days(30) before 2026-04-01T00:00Z is 2026-03-02T00:00Z: the three days before it go, that day stays.
    assert (status["status"], status["instances_evicted"], status["bytes_freed"]) == ("SUCCEEDED", 3, 3 * len(DATA))
    assert raw.partition_names("web", "visits") == ["ds=2026-03-02", "ds=2026-03-03"]
    assert sorted(p.name for p in table_location.iterdir()) == ["ds=2026-03-02", "ds=2026-03-03"]
    report = json.loads((root / "feed-toolkit/working/retention/visits/20260401T0000Z.json").read_text())
    assert [item["partition"] for item in report["evicted"]] == [f"ds={day}" for day in days[:3]]
    raw.close()
