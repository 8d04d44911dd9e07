"""What an ingest run promises beyond the happy path (toolkit/actions/ingest/runner.py), on real Spark: a landing file
still being written (a hidden name) is left until it is renamed, and an empty landing folder is no error; a
second run is told who holds the feed's ingest lock; a record for a closed hour goes to the dead letters when
`late-records: dead-letters` says so; `time: arrival` files records by when they arrive, and the clock closes
hours without new records; a closed hour starts its `trigger: data` consumer (`toolkit trigger --dry-run`)."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.clocks import StoppedClock
from tests.integration.ingest.landing import drop
from tests.integration.ingest.test_ingest_runner import dead_letters, rows
from tests.unit.ingest.ingest_repo import DELIMITED, make_repo
from toolkit.actions.ingest.runner import run_ingest
from toolkit.cli.main import main as toolkit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.ingest_book import IngestBook
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.store import Ledger
from toolkit.errors import BlockedError
from toolkit.services.runtime.run_context import RunContext


def test_a_file_being_written_waits_for_its_rename_and_an_empty_landing_is_no_error(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    fs = HadoopFileSystem(spark)
    empty = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r0"))
    assert (empty.batches, empty.records, empty.rejected) == (0, 0, 0)
    landing = root / "landing" / "events"
    (landing / ".a.csv").write_text("2026-01-01T10:05:00Z,u1,x,/home,12\n")  # still being written
    (landing / "_b.csv").write_text("2026-01-01T10:06:00Z,u2,x,/home,13\n")  # Hadoop's other hidden prefix
    assert run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r1")).records == 0
    (landing / ".a.csv").rename(landing / "a.csv")
    done = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r2"))
    assert done.records == 1 and rows(spark, root, 10) == [("2026-01-01T10:05:00Z", "u1", "/home", 12)]


def test_a_second_run_is_told_who_holds_the_ingest_lock(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    fs = HadoopFileSystem(spark)
    ledger = Ledger.of(fs, repo.cluster("primary"))
    assert ledger.ingest_lock("events").try_acquire("first-run", LeaseDetails(action="ingest")).taken
    drop(root, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12"])
    with pytest.raises(BlockedError, match=r"^The ingest of feed 'events' on cluster 'primary' is being run by run "
                                           r"first-run"):
        run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="second-run"))
    assert not (root / "data").exists()  # nothing written


def test_records_for_a_closed_hour_go_to_the_dead_letters_when_asked(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path, DELIMITED + "\n  late-records: dead-letters")
    fs = HadoopFileSystem(spark)
    drop(root, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T12:10:00Z,u5,x,/home,1"])
    assert run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r1")).closed == ["2026-01-01T10:00Z"]
    drop(root, "b.csv", ["2026-01-01T10:30:00Z,u7,x,/late,5", "2026-01-01T12:20:00Z,u8,x,/home,2"])
    late = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r2"))
    assert (late.records, late.rejected) == (1, 1)
    assert rows(spark, root, 10) == [("2026-01-01T10:05:00Z", "u1", "/home", 12)]  # unchanged
    [letter] = dead_letters(root)
    assert (Path(letter["file"]).name, letter["line"], letter["record"]) == (
        "b.csv", 1, "2026-01-01T10:30:00Z,u7,x,/late,5")
    assert "is closed, and its ingest.late-records is dead-letters" in letter["reason"]


def test_arrival_time_files_records_by_when_they_arrive_and_the_clock_closes_hours(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path, DELIMITED.replace("time: ts", "time: arrival"))
    fs = HadoopFileSystem(spark)
    drop(root, "a.csv", ["2030-05-05T05:05:00Z,u1,x,/home,12", "not a time,u2,x,/cart,7"])  # ts is just text
    at_1020 = datetime(2026, 1, 1, 10, 20, tzinfo=timezone.utc).timestamp()
    first = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r1", clock=StoppedClock(at_1020)))
    assert (first.records, first.instances, first.closed) == (2, {"2026-01-01T10:00Z"}, [])
    assert sorted(r[1] for r in rows(spark, root, 10)) == ["u1", "u2"]
    at_1100 = datetime(2026, 1, 1, 11, 0, tzinfo=timezone.utc).timestamp()
    second = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r2", clock=StoppedClock(at_1100)))
    assert (second.records, second.closed) == (0, ["2026-01-01T10:00Z"])  # no records: the clock closed it
    assert (root / "data/events/2026/01/01/10/_SUCCESS").is_file()


COUNTS_FEED = """kind: feed
name: event-counts
frequency: hours(1)
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
locations:
  data: /data/event-counts/${YEAR}/${MONTH}/${DAY}/${HOUR}
"""
COUNTS_PROCESS = """kind: process
name: event-counts
clusters:
  - name: primary
    validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
frequency: hours(1)
trigger: data
inputs:
  - {name: events, feed: events, start: "now(0,0)", end: "now(0,0)"}
outputs:
  - {name: counts, feed: event-counts, instance: "now(0,0)"}
workflow:
  engine: pyspark
  path: workflows/counts.py
"""


def test_a_closed_hour_starts_its_data_triggered_consumer(spark, tmp_path: Path, capsys) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    (repo.root / "feeds" / "event-counts.yaml").write_text(COUNTS_FEED)
    (repo.root / "processes").mkdir()
    (repo.root / "processes" / "event-counts.yaml").write_text(COUNTS_PROCESS)
    (repo.root / "workflows").mkdir()
    (repo.root / "workflows" / "counts.py").write_text("def run(spark, ctx):\n    pass\n")
    repo = ConfigRepo.load(repo.root)
    drop(root, "a.csv", ["2026-01-01T10:05:00Z,u1,x,/home,12", "2026-01-01T11:20:00Z,u2,x,/cart,7"])
    assert run_ingest(spark, repo, "events", "primary", RunContext(HadoopFileSystem(spark), run_id="r1")).closed == [
        "2026-01-01T10:00Z"]
    capsys.readouterr()
    code = toolkit(["trigger", "--repo", str(repo.root), "--cluster", "primary", "--dry-run"])
    out = capsys.readouterr().out
    assert code == 0 and "would start: event-counts 2026-01-01T10:00Z" in out, out
    assert "would start: event-counts 2026-01-01T11:00Z" not in out  # 11:00 is open: no event yet


JSON_INGEST = """  format: json
  time: ts"""
REGEX_INGEST = r"""  format: regex
  pattern: '(\S+) (\S+) \[(\S+)\] (\S+) (\d+)ms'
  fields: [ts, user, _, page, ms]
  time: ts"""


@pytest.mark.parametrize(("ingest", "good", "bad"), [
    (JSON_INGEST, '{"ts": "2026-01-01T10:05:00Z", "user": "u1", "page": "/home", "ms": 12}',
     '{"ts": "2026-01-01T10:06:00Z", "user": "u2", "page": "/home", "ms": "twelve"}'),
    (REGEX_INGEST, "2026-01-01T10:05:00Z u1 [web-1] /home 12ms", "2026-01-01T10:06:00Z u2 /home 12ms"),
], ids=["json", "regex"])
def test_json_and_regex_feeds_ingest_their_records_and_reject_the_rest(spark, tmp_path: Path, ingest: str,
                                                                       good: str, bad: str) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path, ingest)
    drop(root, "a.log", [good, bad])
    done = run_ingest(spark, repo, "events", "primary", RunContext(HadoopFileSystem(spark), run_id="r1"))
    assert (done.records, done.rejected) == (1, 1)
    assert rows(spark, root, 10) == [("2026-01-01T10:05:00Z", "u1", "/home", 12)]
    [letter] = dead_letters(root)
    assert (letter["line"], letter["record"]) == (2, bad) and letter["reason"]


@pytest.mark.parametrize("storage", ["csv", "json", "orc"])
def test_each_instances_rows_are_counted_exactly_in_every_storage_format(spark, tmp_path: Path, storage: str) -> None:
    """The batch's rows per instance are counted in the pass that writes them: from the files' footers for
    columnar formats, again from the batch for text ones (a csv row of one null column is an empty line, which a
    csv reader skips)."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path, "  format: delimited\n  fields: [user]\n  time: arrival")
    feed_file = repo.root / "feeds" / "events.yaml"
    feed_file.write_text(feed_file.read_text().replace("format: parquet", f"format: {storage}").replace(
        "  - {name: ts, type: string}\n", "").replace("  - {name: page, type: string}\n  - {name: ms, type: int}\n",
                                                      ""))
    repo = ConfigRepo.load(repo.root)
    drop(root, "a.csv", ["u1", "", "u3", ""])
    at_1020 = datetime(2026, 1, 1, 10, 20, tzinfo=timezone.utc).timestamp()
    done = run_ingest(spark, repo, "events", "primary",
                      RunContext(HadoopFileSystem(spark), run_id="r1", clock=StoppedClock(at_1020)))
    assert (done.records, done.rejected, done.instances) == (4, 0, {"2026-01-01T10:00Z"})
    fs = HadoopFileSystem(spark)
    book = IngestBook(fs, Ledger.of(fs, repo.cluster("primary")).layout, "events", "primary")
    assert book.instances().open == {"2026-01-01T10:00Z": 4}


def test_a_batch_of_only_rejected_records_or_only_empty_files_is_booked(spark, tmp_path: Path) -> None:
    """A batch with no record for the feed still writes its staged data in one pass and counts what it saw: every
    line rejected goes to the dead letters; an empty landing file is read, booked and moved out."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    fs = HadoopFileSystem(spark)
    drop(root, "bad.csv", ["not a record", "neither"])
    first = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r1"))
    assert (first.records, first.rejected, first.instances, first.moved) == (0, 2, set(), 1)
    assert sorted(r["record"] for r in dead_letters(root)) == ["neither", "not a record"]
    drop(root, "empty.csv", [])
    second = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r2"))
    assert (second.records, second.rejected, second.batches, second.moved) == (0, 0, 1, 1)


def test_a_daily_feed_in_a_zone_with_dst_files_records_by_its_local_midnight(spark, tmp_path: Path) -> None:
    """A calendar grid (days in Europe/Berlin) maps each record's minute through the Python grid before the write:
    23:30 UTC on 1 January is 00:30 on the 2nd in Berlin, the next day's instance; after the change to summer time
    a day starts at 22:00 UTC, which a fixed step of 24 hours would miss."""
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    feed_file = repo.root / "feeds" / "events.yaml"
    feed_file.write_text(feed_file.read_text().replace("frequency: hours(1)", "frequency: days(1)").replace(
        "timezone: UTC", "timezone: Europe/Berlin").replace("start: 2026-01-01T00:00Z", "start: 2025-12-31T23:00Z")
        .replace("/${HOUR}", ""))
    repo = ConfigRepo.load(repo.root)
    drop(root, "a.csv", ["2026-01-01T22:30:00Z,u1,x,/home,1", "2026-01-01T23:30:00Z,u2,x,/home,2",
                         "2026-01-01T23:30:00,u3,x,/home,3",  # no offset: 23:30 in Berlin, still the 1st
                         "2026-03-29T22:30:00Z,u4,x,/home,4"])  # 00:30 on 30 March, summer time: a 23-hour day before
    done = run_ingest(spark, repo, "events", "primary", RunContext(HadoopFileSystem(spark), run_id="r1"))
    assert (done.records, done.rejected) == (4, 0)
    assert done.instances == {"2025-12-31T23:00Z", "2026-01-01T23:00Z", "2026-03-29T22:00Z"}
    assert sorted(r[1] for r in spark.read.parquet(str(root / "data/events/2026/03/30")).collect()) == ["u4"]
    day = {path.parent.name: sorted(r[1] for r in spark.read.parquet(str(path.parent)).collect())
           for path in (root / "data" / "events" / "2026" / "01").glob("*/part-*")}
    assert day == {"01": ["u1", "u3"], "02": ["u2"]}
