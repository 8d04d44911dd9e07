"""The ingest run on real Spark (toolkit/actions/ingest/runner.py): a delimited feed's landing files become rows of its
hourly instances, one committed file per instance and batch; rejected records (too few fields, a value that is
no int, a time outside the validity) go to the dead letters with their file, line and reason; the hours the
watermark has passed are closed (flag and event); a second run finds nothing new; a late record is written into
its closed hour, which is published again as `replaced`."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from chispa import assert_df_equality

from tests.integration.ingest.landing import BAD_A, GOOD_A, GOOD_B, OUTSIDE_B, drop, drop_first_two
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.runner import run_ingest
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.services.runtime.run_context import RunContext

HOUR = {h: datetime(2026, 1, 1, h, tzinfo=timezone.utc) for h in (10, 11, 12)}


def rows(spark, root: Path, hour: int) -> list[tuple]:  # type: ignore[no-untyped-def]
    frame = spark.read.parquet(f"file://{root}/data/events/2026/01/01/{hour}")
    return sorted(tuple(r) for r in frame.collect())


def dead_letters(root: Path) -> list[dict]:
    return sorted((json.loads(line) for f in (root / "rejected" / "events").glob("*.json")
                   for line in f.read_text().splitlines()), key=lambda d: (d["file"], d["line"]))


def test_landing_files_become_instances_rejected_records_dead_letters(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    drop_first_two(root)
    fs = HadoopFileSystem(spark)
    result = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="run1"))
    assert (result.records, result.rejected, sorted(result.instances)) == (
        4, 3, ["2026-01-01T10:00Z", "2026-01-01T11:00Z", "2026-01-01T12:00Z"])
    expected = spark.createDataFrame([("2026-01-01T10:05:00Z", "u1", "/home", 12),
                                      ("2026-01-01T10:59:59Z", "u2", "/cart", 7)], "ts string, user string, "
                                                                                    "page string, ms int")
    assert_df_equality(spark.read.parquet(f"file://{root}/data/events/2026/01/01/10"), expected,
                       ignore_row_order=True)
    assert rows(spark, root, 11) == [("2026-01-01T11:30:00Z", "u3", "/home", 3)]
    assert rows(spark, root, 12) == [("2026-01-01T12:10:00Z", "u5", "/home", 1)]
    assert [p.name for p in (root / "data/events/2026/01/01/10").iterdir() if not p.name.startswith(".")] != []
    letters = dead_letters(root)
    assert [(Path(d["file"]).name, d["line"], d["record"]) for d in letters] == [
        ("a.csv", 2, BAD_A[0]), ("a.csv", 4, BAD_A[1]), ("b.csv", 2, OUTSIDE_B[0])]
    assert all(d["reason"] for d in letters)
    # the watermark (12:10) has passed the ends of 10:00 and 11:00: closed, flag and event; 12:00 is open
    assert [(root / f"data/events/2026/01/01/{h}/_SUCCESS").exists() for h in (10, 11, 12)] == [True, True, False]
    ledger = Ledger.of(fs, repo.cluster("primary"))
    assert [[(e.kind, e.producer) for e in ledger.events("events", HOUR[h])] for h in (10, 11, 12)] == [
        [("published", "ingest")], [("published", "ingest")], []]
    assert result.closed == ["2026-01-01T10:00Z", "2026-01-01T11:00Z"]

    again = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="run2"))  # nothing new
    assert (again.batches, again.records, again.rejected) == (0, 0, 0)
    assert rows(spark, root, 12) == [("2026-01-01T12:10:00Z", "u5", "/home", 1)] and len(dead_letters(root)) == 3

    drop(root, "c.csv", ["2026-01-01T10:30:00Z,u7,x,/late,5", "2026-01-01T13:00:00Z,u8,x,/home,2"])
    late = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="run3"))
    assert (late.records, late.closed) == (2, ["2026-01-01T10:00Z", "2026-01-01T12:00Z"])
    assert rows(spark, root, 10)[-1] == ("2026-01-01T10:59:59Z", "u2", "/cart", 7)
    assert ("2026-01-01T10:30:00Z", "u7", "/late", 5) in rows(spark, root, 10)
    assert [e.kind for e in ledger.events("events", HOUR[10])] == ["published", "replaced"]


def test_a_feed_without_ingest_or_landing_is_exit_2_in_one_sentence(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    (root / "landing" / "events").rmdir()
    with pytest.raises(UsageError, match=r"^The landing folder file://.*/landing/events of feed 'events' "
                                         r"\(ingest.landing\) does not exist"):
        run_ingest(spark, repo, "events", "primary", RunContext(HadoopFileSystem(spark), run_id="r"))
    assert GOOD_A and GOOD_B  # the landing fixtures are shared with the kill tests
