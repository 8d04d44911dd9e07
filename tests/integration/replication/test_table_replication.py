"""Table-feed replication between two real Thrift metastores (the session's shared one as the source, one of
this module's as the target): export, copy and import in one run, a rerun that finds the partition up to
date, a partition not there yet, the entrypoint through spark-submit, and the feed's data-quality gate checking
an export on the target before its import."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from chispa import assert_df_equality

from tests.integration.spark_submit import spark_submit
from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import BlockedError
from toolkit.services.runtime.run_context import RunContext

DATABASE = "replication_test"
T = utc(2026, 11, 20)


@pytest.fixture(scope="module")
def replica_metastore(metastore_factory):
    return metastore_factory("replica")


@pytest.fixture
def setup(spark, thrift_metastore, replica_metastore, tmp_path: Path):
    """A repo whose primary and backup talk to the two servers, and a source table with one partition."""
    repo, primary = make_repo(tmp_path)
    for name, server in (("primary", thrift_metastore), ("backup", replica_metastore)):
        cluster = repo / "clusters" / f"{name}.yaml"
        port = "9083" if name == "primary" else "9084"
        cluster.write_text(cluster.read_text().replace(f"thrift://127.0.0.1:{port}", server.uri))
    table = f"sessions_{tmp_path.name.replace('-', '_')[-40:]}".lower()
    (repo / "feeds" / "sessions.yaml").write_text(textwrap.dedent(f"""\
        kind: feed
        name: sessions
        frequency: days(1)
        clusters:
          - name: primary
            type: source
            validity: {{start: "2026-01-01T00:00Z", end: "2099-01-01T00:00Z"}}
          - name: backup
            type: target
            validity: {{start: "2026-01-01T00:00Z", end: "2099-01-01T00:00Z"}}
        table: {{uri: "catalog:{DATABASE}:{table}#ds=${{YEAR}}-${{MONTH}}-${{DAY}}"}}
        """))
    raw = thrift_metastore.client(spark)
    if DATABASE not in [str(name) for name in raw.client.getAllDatabases()]:
        raw.create_database(DATABASE, f"file://{tmp_path.parent / 'source-warehouse'}")
    location = primary / "warehouse" / table
    raw.create_table(DATABASE, table, [("user", "string"), ("pages", "int")], ["ds"], f"file://{location}")
    rows = spark.createDataFrame([("u1", 3), ("u2", 5)], "user STRING, pages INT")
    rows.coalesce(1).write.parquet(f"file://{location}/ds=2026-11-20")
    raw.add_partition(DATABASE, table, ["2026-11-20"], f"file://{location}/ds=2026-11-20")
    raw.close()
    return repo, table, rows


def _replicate(spark, repo: Path, t=T, now=None, window=None, gate=None):
    from toolkit.actions.replication.tables import TablePuller
    from toolkit.core.storage.hadoop import HadoopFileSystem

    pullers = []

    def tables(*arguments):
        pullers.append(TablePuller(spark, *arguments))
        return pullers[-1]

    try:
        return run_replication(ConfigRepo.load(repo), "sessions", "backup",
                               ReplicationRequest(t, now or t, window=window), RunContext(HadoopFileSystem(spark)),
                               tables=tables, gate=gate)
    finally:
        for puller in pullers:
            puller.close()


@pytest.mark.jvm
def test_export_copy_import_then_up_to_date(spark, setup, replica_metastore) -> None:
    repo, table, rows = setup
    first = _replicate(spark, repo)
    assert first.status == "SUCCEEDED", first.reasons()
    assert (first.counters()["files_copied"], first.counters()["instances_published"]) == (1, 1)
    raw = replica_metastore.client(spark)
    assert raw.partition_names(DATABASE, table) == ["ds=2026-11-20"]
    location = str(raw.client.getPartition(DATABASE, table, ["2026-11-20"]).getSd().getLocation())
    raw.close()
    assert_df_equality(spark.read.parquet(location), rows, ignore_row_order=True)
    again = _replicate(spark, repo).counters()
    assert (again["files_copied"], again["files_skipped"], again["instances_published"]) == (0, 1, 0)
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.hadoop import HadoopFileSystem

    ledger = Ledger.of(HadoopFileSystem(spark), ConfigRepo.load(repo).cluster("backup"))
    [instance] = ledger.feed_event_times("sessions")
    [event] = ledger.events("sessions", instance)  # one: the up-to-date run recorded nothing more
    assert (event.kind, event.producer, event.cluster, event.location) == (
        "published", "replication:primary", "backup", f"{DATABASE}.{table}/ds=2026-11-20")
    assert event.fingerprint is not None and event.fingerprint.files == 1


def test_a_partition_not_there_yet_waits(spark, setup) -> None:
    repo, table, _ = setup
    waiting = _replicate(spark, repo, t=utc(2026, 11, 21), now=utc(2026, 11, 21, 1))
    assert waiting.status == "WAITING"
    assert f"the partition ds=2026-11-21 of {DATABASE}.{table} does not exist" in waiting.reasons()[0]


@pytest.mark.jvm
def test_entrypoint_through_spark_submit(setup, replica_metastore, spark, tmp_path: Path) -> None:
    repo, table, rows = setup
    result = spark_submit("replication", "--repo", str(repo), "--feed", "sessions", "--target", "backup",
                          "--time", "2026-11-20T00:00Z", cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    status = json.loads(result.stdout.strip().splitlines()[-1])
    assert (status["status"], status["files_copied"], status["instances_published"]) == ("SUCCEEDED", 1, 1)
    raw = replica_metastore.client(spark)
    location = str(raw.client.getPartition(DATABASE, table, ["2026-11-20"]).getSd().getLocation())
    raw.close()
    assert_df_equality(spark.read.parquet(location), rows, ignore_row_order=True)


def test_staged_imports_an_export_made_on_the_source(spark, setup, thrift_metastore, replica_metastore,
                                                     tmp_path: Path) -> None:
    """The target cannot reach the source's metastore: hive_export.py ran on the source into a folder that
    was then shipped; replication.py --staged imports it."""
    from toolkit.actions.replication.hive import export_partition
    from toolkit.actions.replication.hive.export import ExportOrigin
    from toolkit.actions.replication.tables import TablePuller
    from toolkit.core.storage.catalog_factory import catalog_for
    from toolkit.core.storage.catalog_records import PartitionAddress
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, table, rows = setup
    shipped = f"file://{tmp_path / 'shipped'}"
    with catalog_for(spark, thrift_metastore.uri) as source_catalog:
        export_partition(spark, source_catalog, HadoopFileSystem(spark),
                         PartitionAddress(DATABASE, table, {"ds": "2026-11-20"}), shipped,
                         origin=ExportOrigin("sessions", "primary", T))
    pullers = []

    def staged(*arguments):
        pullers.append(TablePuller(spark, *arguments, staged=shipped))
        return pullers[-1]

    result = run_replication(ConfigRepo.load(repo), "sessions", "backup", ReplicationRequest(T, T),
                             RunContext(HadoopFileSystem(spark)), tables=staged)
    for puller in pullers:
        puller.close()
    assert result.status == "SUCCEEDED" and result.counters()["files_copied"] == 1
    raw = replica_metastore.client(spark)
    location = str(raw.client.getPartition(DATABASE, table, ["2026-11-20"]).getSd().getLocation())
    raw.close()
    assert_df_equality(spark.read.parquet(location), rows, ignore_row_order=True)


def test_an_import_of_the_partition_held_by_another_run_blocks_the_replication(spark, setup,
                                                                               replica_metastore) -> None:
    """The import step of a table replication holds the partition's lease, as hive_import.py does: a live one
    of another run refuses it (exit 5, naming the holder) and nothing is imported; released, it replicates."""
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, table, rows = setup
    backup = ConfigRepo.load(repo).cluster("backup")
    other = Ledger.of(HadoopFileSystem(spark), backup).import_lock(DATABASE, table, "ds=2026-11-20")
    assert other.try_acquire("other-run").taken
    with pytest.raises(BlockedError, match=rf"import of the partition ds=2026-11-20 of {DATABASE}\.{table} into "
                                           r"cluster 'backup' is being run by run other-run on \S+:\d+ "):
        _replicate(spark, repo)
    raw = replica_metastore.client(spark)
    assert not raw.client.tableExists(DATABASE, table) or raw.partition_names(DATABASE, table) == []
    other.release()
    assert _replicate(spark, repo).status == "SUCCEEDED"
    location = str(raw.client.getPartition(DATABASE, table, ["2026-11-20"]).getSd().getLocation())
    raw.close()
    assert_df_equality(spark.read.parquet(location), rows, ignore_row_order=True)


@pytest.mark.jvm
def test_publish_entrypoint_records_an_outside_partition_through_spark_submit(setup, spark, tmp_path: Path) -> None:
    """`toolkit publish` for a table feed is `spark-submit entrypoints/publish.py`: the partition registered in
    primary's metastore is fingerprinted and recorded (producer external); one not registered yet waits (3)."""
    from concurrent.futures import ThreadPoolExecutor

    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, table, _ = setup

    def publish(time: str):
        return spark_submit("publish", "--repo", str(repo), "--feed", "sessions", "--cluster", "primary",
                            "--time", time, cwd=tmp_path)

    with ThreadPoolExecutor(max_workers=2) as pool:  # two independent calls at once: the test stays short
        waits = pool.submit(publish, "2026-11-21T00:00Z")
        published = publish("2026-11-20T00:00Z")
        waiting = waits.result()
    assert published.returncode == 0, published.stdout[-3000:]
    status = json.loads(published.stdout.strip().splitlines()[-1])
    assert (status["status"], status["action"], status["kind"], status["recorded"], status["location"]) == (
        "SUCCEEDED", "publish", "published", True, f"{DATABASE}.{table}/ds=2026-11-20")
    [event] = Ledger.of(HadoopFileSystem(spark), ConfigRepo.load(repo).cluster("primary")).events("sessions", T)
    assert (event.event_id, event.producer, event.run_id) == (status["event_id"], "external", status["run_id"])
    assert event.fingerprint is not None and event.fingerprint.files == 1
    assert waiting.returncode == 3, waiting.stdout[-3000:]
    assert json.loads(waiting.stdout.strip().splitlines()[-1])["status"] == "WAITING"
    assert f"the partition {DATABASE}.{table}/ds=2026-11-21 is not registered" in waiting.stdout + waiting.stderr


def test_a_partition_failing_a_block_gate_is_not_imported(spark, setup, thrift_metastore, replica_metastore,
                                                          tmp_path: Path) -> None:
    """A catch-up of 2026-11-20 (a user with 5 pages, where the suite allows 4) and 2026-11-21: the first export is
    checked on backup and blocked (not imported, its export deleted, no event, the instance FAILED), the second
    is imported; both results are in the run records."""
    from toolkit.actions.replication.target_gate import TargetGate
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, table, _ = setup
    feed = repo / "feeds/sessions.yaml"
    feed.write_text(feed.read_text() + "quality: {suite: quality/sessions.json}\n")
    (repo / "quality").mkdir(exist_ok=True)
    (repo / "quality/sessions.json").write_text(json.dumps({"name": "sessions", "expectations": [
        {"type": "expect_column_values_to_be_between", "kwargs": {"column": "pages", "min_value": 0, "max_value": 4}},
        {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "ds"}}]}))
    raw = thrift_metastore.client(spark)
    later = spark.createDataFrame([("u1", 1), ("u3", 4)], "user STRING, pages INT")
    location = str(raw.client.getTable(DATABASE, table).getSd().getLocation()) + "/ds=2026-11-21"
    later.coalesce(1).write.parquet(location)
    raw.add_partition(DATABASE, table, ["2026-11-21"], location)
    raw.close()
    config, fs = ConfigRepo.load(repo), HadoopFileSystem(spark)
    result = _replicate(spark, repo, utc(2026, 11, 21), window=(T, utc(2026, 11, 21)),
                        gate=TargetGate(spark, config, config.feed("sessions"), fs))
    blocked, passed = result.instances
    assert (result.status, blocked.status, passed.status) == ("FAILED", "FAILED", "SUCCEEDED")
    assert blocked.sources[0].reason == (
        "feed 'sessions' 2026-11-20T00:00Z failed 1 of 2 expectations of the quality suite quality/sessions.json: "
        "expect_column_values_to_be_between(pages): 1 of 2 unexpected (its on-failure is block): nothing of it was "
        "published on 'backup' and its staged copy was discarded")
    assert (result.counters()["quality"], result.counters()["instances_published"]) == ("3/4 passed", 1)
    raw = replica_metastore.client(spark)
    assert raw.partition_names(DATABASE, table) == ["ds=2026-11-21"]
    imported = str(raw.client.getPartition(DATABASE, table, ["2026-11-21"]).getSd().getLocation())
    raw.close()
    assert_df_equality(spark.read.parquet(imported), later, ignore_row_order=True)
    staging = tmp_path / "backup/feed-toolkit/staging/replication/sessions"
    assert list(staging.iterdir()) == []  # the blocked export deleted, the other consumed by its import
    [checked] = json.loads(Path(str(blocked.record).removeprefix("file://")).read_text())["quality"]
    assert (checked["success"], checked["location"]) == (False, f"file://{staging}/20261120T0000Z-primary/data")
    assert [(e["type"], e["success"], e["unexpected_count"]) for e in checked["expectations"]] == [
        ("expect_column_values_to_be_between", False, 1), ("expect_column_values_to_not_be_null", True, 0)]
    ledger = Ledger.of(fs, config.cluster("backup"))
    assert (ledger.events("sessions", T), len(ledger.events("sessions", utc(2026, 11, 21)))) == ([], 1)
