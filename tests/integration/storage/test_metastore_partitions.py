"""A table's partitions read from a real Thrift metastore without a JVM (toolkit/core/storage/metastore_partitions.py,
the wait before Spark's view of a table feed), against the catalog in Spark (Hive's own client) on the same tables."""

from __future__ import annotations

import socket
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.integration.metastore import MetastoreServer
from toolkit.core.storage.catalog_factory import catalog_for
from toolkit.core.storage.metastore_partitions import MetastorePartitions, NotReachedWithoutJvm


def test_the_partitions_are_those_the_catalog_in_spark_lists(spark, thrift_metastore: MetastoreServer,
                                                              tmp_path: Path) -> None:
    raw = thrift_metastore.client(spark)
    try:
        raw.create_database("waits", f"file://{tmp_path}/waits.db")
        raw.create_table("waits", "daily", [("page", "string")], ["ds", "region"], f"file://{tmp_path}/daily")
        for day, region in (("2026-11-29", "eu"), ("2026-11-30", "eu"), ("2026-11-30", "us")):
            raw.add_partition("waits", "daily", [day, region], f"file://{tmp_path}/daily/ds={day}/region={region}")
        raw.create_table("waits", "empty", [("page", "string")], ["ds"], f"file://{tmp_path}/empty")
    finally:
        raw.close()
    without = MetastorePartitions(thrift_metastore.uri, timeout=10)
    catalog = catalog_for(spark, thrift_metastore.uri)
    try:
        for table, spec in (("daily", None), ("daily", {"ds": "2026-11-30"}), ("daily", {"region": "us"}),
                            ("empty", None)):
            assert without.list_partitions("waits", table, spec) == catalog.list_partitions("waits", table, spec)
        listed = without.list_partitions("waits", "daily", {"ds": "2026-11-30", "region": "us"})
    finally:
        catalog.close()
    [partition] = listed
    assert dict(partition.values) == {"ds": "2026-11-30", "region": "us"}
    assert partition.location is not None and partition.location.endswith("/daily/ds=2026-11-30/region=us")
    assert partition.create_time is not None
    with pytest.raises(NotReachedWithoutJvm, match="waits.missing"):
        without.list_partitions("waits", "missing")


def test_a_metastore_that_is_not_there_is_not_reached_in_its_time() -> None:
    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    with pytest.raises(NotReachedWithoutJvm, match=f"127.0.0.1:{port}"):
        MetastorePartitions(f"thrift://127.0.0.1:{port}", timeout=2).list_partitions("db", "table")
    with pytest.raises(NotReachedWithoutJvm, match="not thrift://host:port"):
        MetastorePartitions("http://127.0.0.1:9083")


READS_TABLE = """\
kind: process
name: reads-table
clusters:
  - name: primary
    validity: {start: "2026-01-01T00:00Z", end: "2027-01-01T00:00Z"}
frequency: days(1)
timezone: UTC
timeout: hours(6)
inputs:
  - {name: daily, feed: clicks-daily-table, start: "today(0,0)", end: "today(0,0)"}
workflow: {engine: spark-sql, path: workflows/daily_clicks_rollup.sql}
"""


def test_a_table_input_is_waited_for_without_a_jvm_until_its_partition_is_registered(
        spark, thrift_metastore: MetastoreServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The wait before Spark (`toolkit call --wait-first`, issue 71) of a process reading a table feed: WAITING while
    its day's partition is not in the metastore, handed to the entrypoint at the poll after it is registered."""
    from tests.unit.retention.retention_repo import make_repo
    from toolkit.actions.process_runner import input_wait
    from toolkit.actions.process_runner.wait_before_spark import wait_for_data
    from toolkit.core.entities.repo import ConfigRepo
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.local import LocalFileSystem

    repo, root = make_repo(tmp_path)
    cluster = repo / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text().replace("thrift://127.0.0.1:9083", thrift_metastore.uri))
    (repo / "processes" / "reads-table.yaml").write_text(READS_TABLE)
    # A database of its own: the metastore serves the worker's whole session, and other tests make `web`.
    feed = repo / "feeds" / "clicks-daily-table.yaml"
    feed.write_text(feed.read_text().replace("catalog:web:clicks_daily", "catalog:waiting:clicks_daily"))
    raw = thrift_metastore.client(spark)
    raw.create_database("waiting", f"file://{tmp_path}/waiting.db")
    raw.create_table("waiting", "clicks_daily", [("page", "string")], ["ds"],
                     f"file://{tmp_path}/waiting.db/clicks_daily")
    monkeypatch.setattr(input_wait, "poll_intervals", lambda: iter(lambda: 0.1, None))
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary"))
    day = datetime(2026, 11, 30, tzinfo=timezone.utc)
    seen = []

    def register_once_waiting() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            record = ledger.instance("reads-table", day)
            if record is not None and record.status == "WAITING":
                seen.append(record.missing)
                break
            time.sleep(0.05)
        raw.add_partition("waiting", "clicks_daily", ["2026-11-30"],
                          f"file://{tmp_path}/waiting.db/clicks_daily/ds=2026-11-30")

    registrar = threading.Thread(target=register_once_waiting)
    registrar.start()
    try:
        assert wait_for_data(["--repo", str(repo), "--process", "reads-table", "--cluster", "primary", "--now",
                              "2026-11-30T01:00Z", "--max-wait", "60", "--time", "2026-11-30T00:00Z"]) is None
    finally:
        registrar.join()
        raw.close()
    assert seen == [["clicks-daily-table 2026-11-30T00:00Z (waiting.clicks_daily (ds=2026-11-30))"]]
    assert capsys.readouterr().out == ""
