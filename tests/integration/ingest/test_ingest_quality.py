"""Data-quality gates at ingest's closing (toolkit/actions/ingest/closing_gate.py) on real Spark and Great Expectations:
the feed `events` of tests/unit/ingest/ingest_repo.py with a suite on `ms` (0 to 100) and `user` (not null).
Hour 10 holds a row with ms 500, hour 11 only good rows; the watermark (12:10) makes both due.

- `block`: the entrypoint closes 11 and holds 10 back (no flag, no event, a `blocked` closing record with the
  results), ends FAILED (exit 1) with `quality` in its status line, and tells the feed's webhook; the next call
  holds it without checking it again (exit 0, `instances_held`); once its data is fixed the next call checks it
  again and publishes it.
- `warn`: both hours are published; the closing record carries the failing results, the webhook gets a
  `quality-warning`, and the lineage of the batch that closed them carries the assertions.
- a table feed: the gate reads the partition alone (its rows, not the table's), and a refused one gets no event.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest

from tests.integration.ingest.landing import drop
from tests.lineage_receiver import lineage_receiver
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.closing_record import ClosingBook, ClosingRecord
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_context import RunContext

FS = LocalFileSystem()
HOUR = {h: datetime(2026, 1, 1, h, tzinfo=timezone.utc) for h in (10, 11, 12)}
LINES = ["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T10:59:59Z,u2,x,/cart,500",
         "2026-01-01T11:30:00Z,u3,x,/home,3", "2026-01-01T12:10:00Z,u5,x,/home,1"]
SUITE = {"name": "events", "expectations": [
    {"type": "expect_column_values_to_be_between", "kwargs": {"column": "ms", "min_value": 0, "max_value": 100}},
    {"type": "expect_column_values_to_not_be_null", "kwargs": {"column": "user"}}]}


def gated_repo(tmp_path: Path, on_failure: str, webhook: str) -> tuple[ConfigRepo, Path]:
    """The ingest test feed with the suite above and a notification; the cluster posts notices to `webhook`."""
    repo, root = make_repo(tmp_path, extra=f"quality: {{suite: quality/events.json, on-failure: {on_failure}}}\n"
                                           "notification: {to: ops@example.com}\n")
    (repo.root / "quality").mkdir()
    (repo.root / "quality" / "events.json").write_text(json.dumps(SUITE))
    cluster = repo.root / "clusters" / "primary.yaml"
    cluster.write_text(cluster.read_text() + f'properties: {{notification.webhook.url: "{webhook}"}}\n')
    return ConfigRepo.load(repo.root), root


def closing(repo: ConfigRepo, hour: int) -> ClosingRecord:
    """The closing record of the hour, as the ledger holds it."""
    record = ClosingBook(FS, Ledger.of(FS, repo.cluster("primary")).layout, "events").read(HOUR[hour])
    assert record is not None
    return record


def outcomes(record: ClosingRecord) -> list[tuple[str, bool, int | None]]:
    """(type, success, unexpected count) of each expectation of the record's one gate."""
    [gate] = record.quality.typed()
    return [(e.type, e.success, e.unexpected_count) for e in gate.expectations]


def call_ingest(repo: ConfigRepo, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                ) -> tuple[int, dict[str, Any], str, str]:
    """entrypoints/ingest.py in this process (the shared SparkSession): its exit code, status line, stdout,
    stderr."""
    from toolkit.actions.ingest.ingest_entry import main

    monkeypatch.setattr("sys.argv", ["ingest.py", "--repo", str(repo.root), "--feed", "events",
                                     "--cluster", "primary"])
    code = main()
    out, err = capsys.readouterr()
    return code, json.loads(out.strip().splitlines()[-1]), out, err


def test_a_blocked_hour_is_held_unpublished_then_published_once_fixed(spark, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                      monkeypatch: pytest.MonkeyPatch,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    with lineage_receiver("/hooks/ops") as hooks:
        repo, root = gated_repo(tmp_path, "block", hooks.url + "/hooks/ops")
        drop(root, "a.csv", LINES)
        ledger = Ledger.of(FS, repo.cluster("primary"))
        ten = root / "data/events/2026/01/01/10"

        code, status, out, err = call_ingest(repo, monkeypatch, capsys)
        assert (code, status["status"], status["records"]) == (1, "FAILED", 4)
        assert (status["instances_closed"], status["instances_blocked"], status["instances_held"],
                status["quality"]) == (["2026-01-01T11:00Z"], ["2026-01-01T10:00Z"], [], "3/4 passed")
        assert status["error"].startswith("The instance(s) 2026-01-01T10:00Z of feed 'events' on cluster 'primary' "
                                          "failed a blocking quality suite and were not published")
        assert err.strip().splitlines()[-1] == f"ingest: {status['error']}"
        assert "suite quality/events.json FAILED (block), 1/2 expectations held" in out
        assert (ten / "_SUCCESS").exists() is False and ledger.events("events", HOUR[10]) == []
        assert [(e.kind, e.producer) for e in ledger.events("events", HOUR[11])] == [("published", "ingest")]
        assert (root / "data/events/2026/01/01/11/_SUCCESS").exists()
        blocked = closing(repo, 10)
        assert blocked.fingerprint is not None
        assert (blocked.state, blocked.run_id, blocked.fingerprint.files) == ("blocked", status["run_id"], 1)
        assert outcomes(blocked) == [("expect_column_values_to_be_between", False, 1),
                                     ("expect_column_values_to_not_be_null", True, 0)]
        assert (closing(repo, 11).state, [ok for _, ok, _ in outcomes(closing(repo, 11))]) == ("closed",
                                                                                                 [True, True])
        [notice] = hooks.events
        assert (notice["event"], notice["entity"], notice["instance"], notice["action"], notice["status"]) == (
            "failed", "events", "2026-01-01T10:00Z", "ingest", "FAILED")
        assert "expect_column_values_to_be_between(ms): 1 of 2 unexpected" in notice["error"]
        assert status["notifications_sent"] == 1

        # the next call finds nothing new and the refused content unchanged: held, not checked, not told again
        code, again, out, _ = call_ingest(repo, monkeypatch, capsys)
        assert (code, again["status"], again["instances_held"], again["instances_blocked"]) == (
            0, "SUCCEEDED", ["2026-01-01T10:00Z"], [])
        assert "quality" not in again and "expectations held" not in out and len(hooks.events) == 1
        assert "held back by a blocking quality suite in an earlier call" in out
        assert not (ten / "_SUCCESS").exists() and closing(repo, 10).run_id == status["run_id"]

        # the operator rewrites the hour without its bad row: the next call checks it again and publishes it
        good = spark.read.parquet(str(ten)).where("ms <= 100").collect()
        spark.createDataFrame(good, "ts string, user string, page string, ms int").coalesce(1).write.parquet(
            str(tmp_path / "fixed"))
        for old in ten.glob("part-*"):
            old.unlink()
        next((tmp_path / "fixed").glob("part-*.parquet")).rename(ten / "part-fixed.parquet")
        code, fixed, out, _ = call_ingest(repo, monkeypatch, capsys)
        assert (code, fixed["status"], fixed["instances_closed"], fixed["instances_held"], fixed["quality"]) == (
            0, "SUCCEEDED", ["2026-01-01T10:00Z"], [], "2/2 passed")
        assert (ten / "_SUCCESS").exists()
        assert [(e.kind, e.producer, e.run_id) for e in ledger.events("events", HOUR[10])] == [
            ("published", "ingest", fixed["run_id"])]
        assert (closing(repo, 10).state, [ok for _, ok, _ in outcomes(closing(repo, 10))]) == ("closed",
                                                                                                 [True, True])
        assert len(hooks.events) == 1


def test_a_warned_hour_is_published_recorded_told_and_in_the_lineage(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.integration.openlineage.lineage_setup import lineage_to, valid_events
    from toolkit.actions.ingest.runner import run_ingest
    from toolkit.core.storage.hadoop import HadoopFileSystem
    from toolkit.services.notifications.notifier import Notifier

    with lineage_receiver("/hooks/ops") as hooks, lineage_receiver() as lineage:
        repo, root = gated_repo(tmp_path, "warn", hooks.url + "/hooks/ops")
        drop(root, "a.csv", LINES)
        fs = HadoopFileSystem(spark)
        notifier = Notifier(fs, repo.cluster("primary"))
        result = run_ingest(spark, repo, "events", "primary",
                            RunContext(fs, run_id="w1", notifier=notifier, lineage=lineage_to(lineage.url, repo, "w1")))
    assert (result.closed, result.blocked, result.held) == (["2026-01-01T10:00Z", "2026-01-01T11:00Z"], [], [])
    assert result.counters()["quality"] == "3/4 passed"
    ledger = Ledger.of(fs, repo.cluster("primary"))
    assert [(e.kind, e.producer) for e in ledger.events("events", HOUR[10])] == [("published", "ingest")]
    assert (root / "data/events/2026/01/01/10/_SUCCESS").exists()
    warned = closing(repo, 10)
    [gate] = warned.quality.typed()
    assert (warned.state, gate.on_failure.value, gate.location) == (
        "closed", "warn", f"file://{root}/data/events/2026/01/01/10")
    assert outcomes(warned) == [("expect_column_values_to_be_between", False, 1),
                                ("expect_column_values_to_not_be_null", True, 0)]
    [notice] = hooks.events
    assert (notice["event"], notice["instance"], notice["status"], notice["run_id"]) == (
        "quality-warning", "2026-01-01T10:00Z", "SUCCEEDED", "w1")
    assert notice["error"].startswith("feed 'events' 2026-01-01T10:00Z failed 1 of 2 expectations of the quality "
                                      "suite quality/events.json: expect_column_values_to_be_between(ms): 1 of 2 "
                                      "unexpected")
    [complete] = [e for e in valid_events(lineage) if e["eventType"] == "COMPLETE"]
    [output] = complete["outputs"]
    assertions = output["facets"]["dataQualityAssertions"]["assertions"]
    assert [(a["assertion"], a["success"], a["column"], a["severity"]) for a in assertions] == [
        ("expect_column_values_to_be_between", False, "ms", "warn"),
        ("expect_column_values_to_not_be_null", True, "user", "warn"),
        ("expect_column_values_to_be_between", True, "ms", "warn"),
        ("expect_column_values_to_not_be_null", True, "user", "warn")]


def test_a_table_feeds_partition_is_checked_alone_and_a_refused_one_gets_no_event(spark, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.integration.ingest.test_ingest_table import table_repo
    from toolkit.actions.ingest.runner import run_ingest
    from toolkit.core.storage.catalog_spark import SparkCatalog
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = table_repo(tmp_path, "ingest_quality")
    feed = repo.root / "feeds" / "events.yaml"
    feed.write_text(feed.read_text() + "quality: {suite: quality/events.json}\n")  # on-failure: block
    (repo.root / "quality").mkdir()
    (repo.root / "quality" / "events.json").write_text(json.dumps(SUITE))
    repo = ConfigRepo.load(repo.root)
    spark.sql("CREATE DATABASE ingest_quality")
    spark.sql(f"CREATE TABLE ingest_quality.events (ts string, user string, page string, ms int) PARTITIONED BY "
              f"(ds string, hr string) STORED AS PARQUET LOCATION 'file://{root}/warehouse/events'")
    drop(root, "a.csv", LINES)
    fs = HadoopFileSystem(spark)
    result = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="t1", catalog=SparkCatalog(spark)))
    assert (result.closed, result.blocked) == (["2026-01-01T11:00Z"], ["2026-01-01T10:00Z"])
    ledger = Ledger.of(fs, repo.cluster("primary"))
    assert ledger.events("events", HOUR[10]) == []
    assert [e.location for e in ledger.events("events", HOUR[11])] == ["ingest_quality.events/ds=2026-01-01/hr=11"]
    refused = closing(repo, 10)
    [gate] = refused.quality.typed()
    assert (refused.state, gate.location) == ("blocked", "ingest_quality.events/ds=2026-01-01/hr=10")
    assert [(e.success, e.unexpected_count, e.element_count) for e in gate.expectations] == [
        (False, 1, 2), (True, 0, 2)]  # hour 10's two rows, not the table's four
