"""The landing-file contract (toolkit/actions/ingest/landing.py), on real Spark, with the inputs real producers send:
- a name used again after its file was ingested is a new file, ingested whole (identical bytes too);
- bytes appended to a file while a run reads it are ingested by the next run, once; a file replaced under a
  name the ledger still marks is read whole;
- any legal name (a colon, spaces, `#`, `%`, unicode, a leading `-`) is read, and the files beside it too;
- a landing file larger than the split size is read in splits, each line once, with its byte offset;
- a symbolic link in the landing folder is refused in the dead letters and never followed; a landing folder
  that is a link is refused (exit 2);
- dead letters or a landing folder inside another feed's instances are refused before anything is written;
- committed files leave the landing folder for `_ingested/<yyyyMMdd>/`, which is deleted after its retention.
Each of the first five was a way today's files were lost, dropped or wedged the feed (issue 32)."""

from __future__ import annotations

import json
import os
import textwrap
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.clocks import StoppedClock
from tests.integration.ingest.landing import drop
from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.runner import run_ingest
from toolkit.errors import UsageError
from toolkit.services.runtime.run_context import RunContext

JAN_2 = datetime(2026, 1, 2, 9, tzinfo=timezone.utc).timestamp()


def _hadoop(spark):  # type: ignore[no-untyped-def]
    from toolkit.core.storage.hadoop import HadoopFileSystem

    return HadoopFileSystem(spark)


def _users(spark, root: Path) -> list[str]:  # type: ignore[no-untyped-def]
    """Every user value written into the feed, with repeats."""
    folders = sorted({str(p.parent) for p in (root / "data").rglob("*.parquet")})
    if not folders:
        return []
    return sorted(r.user for r in spark.read.parquet(*(f"file://{f}" for f in folders)).collect())


def _letters(root: Path) -> list[dict]:
    return [json.loads(line) for f in sorted((root / "rejected" / "events").glob("*.json"))
            for line in f.read_text().splitlines()]


def _landing(root: Path) -> list[str]:
    return sorted(p.name for p in (root / "landing" / "events").iterdir() if not p.name.startswith("_"))


def _line(hour: int, user: str) -> str:
    return f"2026-01-01T{hour:02d}:05:00Z,{user},x,/home,1"


def test_a_reused_name_is_a_new_file_and_is_ingested_whole(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    fs = _hadoop(spark)
    drop(root, "views.csv", [_line(10, "u1"), _line(10, "u2")])
    first = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r1", clock=StoppedClock(JAN_2)))
    assert (first.records, first.moved, _landing(root)) == (2, 1, [])
    drop(root, "views.csv", [_line(11, "u3")])  # a rotated views.csv: another file under the same name
    second = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r2", clock=StoppedClock(JAN_2)))
    drop(root, "views.csv", [_line(11, "u3")])  # the same bytes again: the producer sent them twice
    third = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r3", clock=StoppedClock(JAN_2)))
    assert (second.records, third.records) == (1, 1)
    assert _users(spark, root) == ["u1", "u2", "u3", "u3"]
    kept = root / "landing" / "events" / "_ingested" / "20260102"
    assert sorted(p.name for p in kept.iterdir()) == sorted(
        ["views.csv", f"views.csv.{first.epoch}-{1:010d}", f"views.csv.{first.epoch}-{2:010d}"])


class _Producer:
    """Does to a landing file what a producer does, at the moment a run looks at the landing folder after reading
    it (its second listing: the settling of the batch; the first is the scan)."""

    def __init__(self, path: Path, action) -> None:  # type: ignore[no-untyped-def]
        self.path, self.action, self.listings = path, action, 0

    def wrap(self, fs):  # type: ignore[no-untyped-def]
        listing = fs.list

        def list_then_act(path: str):  # type: ignore[no-untyped-def]
            if path.rstrip("/").endswith("/landing/events"):
                self.listings += 1
                if self.listings == 2:
                    self.action(self.path)
            return listing(path)

        fs.list = list_then_act
        return fs


def test_bytes_appended_while_a_run_reads_are_ingested_by_the_next_run_once(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    path = drop(root, "app.log", [_line(10, "u1"), _line(10, "u2")])

    def append(p: Path) -> None:
        with p.open("a") as out:
            out.write(_line(10, "u3") + "\n")

    fs = _Producer(path, append).wrap(_hadoop(spark))
    first = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r1"))
    assert (first.records, first.left, _landing(root)) == (2, ["app.log"], ["app.log"])  # kept: it grew
    second = run_ingest(spark, repo, "events", "primary", RunContext(_hadoop(spark), run_id="r2"))
    assert (second.records, second.moved, _landing(root)) == (1, 1, [])
    assert _users(spark, root) == ["u1", "u2", "u3"]


def test_a_file_replaced_under_a_marked_name_is_read_whole(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    path = drop(root, "app.log", [_line(10, "u1")])

    def replace(p: Path) -> None:
        p.with_name(".new").write_text(_line(11, "u8") + "\n" + _line(11, "u9") + "\n")
        os.replace(p.with_name(".new"), p)

    run_ingest(spark, repo, "events", "primary", RunContext(_Producer(path, replace).wrap(_hadoop(spark)), run_id="r1"))
    assert _landing(root) == ["app.log"]
    second = run_ingest(spark, repo, "events", "primary", RunContext(_hadoop(spark), run_id="r2"))
    assert second.records == 2 and _users(spark, root) == ["u1", "u8", "u9"]


def test_names_with_a_colon_and_other_legal_characters_are_ingested_with_the_files_beside_them(
        spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    names = ["views-2026-01-01T10:00:00.csv", "a b.csv", "#1.csv", "50%.csv", "données.csv", "-x.csv", "plain.csv"]
    for k, name in enumerate(names):
        drop(root, name, [_line(10, f"u{k}")])
    result = run_ingest(spark, repo, "events", "primary", RunContext(_hadoop(spark), run_id="r1"))
    assert (result.records, result.rejected, result.moved, _landing(root)) == (7, 0, 7, [])
    assert _users(spark, root) == sorted(f"u{k}" for k in range(len(names)))
    assert not list((root / "landing").rglob("*.crc"))


def test_a_file_larger_than_the_split_size_is_read_in_splits_each_line_once(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path, extra="properties:\n  ingest.split-size: '1KB'\n")
    lines = [_line(10 + k % 3, f"u{k:05d}") for k in range(2000)] + ["broken"]
    drop(root, "big.csv", lines)
    result = run_ingest(spark, repo, "events", "primary", RunContext(_hadoop(spark), run_id="r1"))
    assert (result.records, result.rejected) == (2000, 1)
    assert _users(spark, root) == sorted(f"u{k:05d}" for k in range(2000))
    [letter] = _letters(root)
    size = sum(len(line) + 1 for line in lines[:-1])
    assert (Path(letter["file"]).name, letter["offset"], letter["line"], letter["record"]) == (
        "big.csv", size, None, "broken")  # past the first split: the offset, no line number


def test_a_link_in_the_landing_folder_is_refused_not_followed_and_a_linked_landing_is_exit_2(
        spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    secret = tmp_path / "secret.csv"
    secret.write_text(_line(10, "SECRET") + "\n")
    (root / "landing" / "events" / "link.csv").symlink_to(secret)
    drop(root, "real.csv", [_line(10, "u1")])
    result = run_ingest(spark, repo, "events", "primary", RunContext(_hadoop(spark), run_id="r1"))
    assert (result.records, result.rejected, result.refused) == (1, 1, ["link.csv"])
    [letter] = _letters(root)
    assert Path(letter["file"]).name == "link.csv" and "symbolic link" in letter["reason"]
    assert "SECRET" not in json.dumps(letter) and _users(spark, root) == ["u1"]
    assert _landing(root) == [] and secret.read_text().startswith("2026")  # the link moved out, its target kept
    landing = root / "landing" / "events"
    landing.rename(root / "landing" / "real-events")
    landing.symlink_to(root / "landing" / "real-events")
    with pytest.raises(UsageError, match=r"landing folder .* goes through the symbolic link .*never follows"):
        run_ingest(spark, repo, "events", "primary", RunContext(_hadoop(spark), run_id="r2"))


def test_dead_letters_inside_another_feeds_instance_are_refused_before_anything_is_written(
        spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    events = repo.root / "feeds" / "events.yaml"
    events.write_text(events.read_text().replace("/rejected/events", "/data/other/2026/01/01/10/rejected"))
    (repo.root / "feeds" / "other.yaml").write_text(textwrap.dedent("""\
        kind: feed
        name: other
        frequency: hours(1)
        clusters:
          - name: primary
            validity: {start: 2026-01-01T00:00Z, end: 2027-01-01T00:00Z}
        locations:
          data: /data/other/${YEAR}/${MONTH}/${DAY}/${HOUR}
        """))
    from toolkit.core.entities.repo import ConfigRepo

    drop(root, "a.csv", ["not a record"])
    with pytest.raises(UsageError, match=r"feed 'other'"):
        run_ingest(spark, ConfigRepo.load(repo.root), "events", "primary", RunContext(_hadoop(spark), run_id="r1"))
    assert not (root / "data").exists() and _landing(root) == ["a.csv"]


def test_ingested_files_are_deleted_after_the_retention(spark, tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path, extra="properties:\n  ingest.ingested-retention: days(2)\n")
    drop(root, "a.csv", [_line(10, "u1")])
    run_ingest(spark, repo, "events", "primary", RunContext(_hadoop(spark), run_id="r1", clock=StoppedClock(JAN_2)))
    ingested = root / "landing" / "events" / "_ingested"
    assert [p.name for p in ingested.iterdir()] == ["20260102"]
    (ingested / "notaday").mkdir()
    day = 86400
    kept = run_ingest(spark, repo, "events", "primary",
                      RunContext(_hadoop(spark), run_id="r2", clock=StoppedClock(JAN_2 + 2 * day)))
    gone = run_ingest(spark, repo, "events", "primary",
                      RunContext(_hadoop(spark), run_id="r3", clock=StoppedClock(JAN_2 + 3 * day)))
    assert (kept.expired, gone.expired) == ([], ["20260102"])
    assert [p.name for p in ingested.iterdir()] == ["notaday"]  # what is no day folder is not ours to delete


def test_files_an_older_release_read_are_moved_not_read_again(spark, tmp_path: Path) -> None:
    """The state a Structured Streaming release left: its checkpoint's file-source log says batch 0 read a.csv
    (committed) and batch 1 read b.csv (never planned: killed); c.csv arrived since. The first run of this release
    moves a.csv out unread, reads b.csv and c.csv, and numbers its batches after the last recorded one."""
    from toolkit.core.ledger.ingest_book import COMMITTED, IngestBatch, IngestBook
    from toolkit.core.ledger.store import Ledger

    repo, root = make_repo(tmp_path)
    fs = _hadoop(spark)
    a = drop(root, "a.csv", [_line(10, "old")])
    b = drop(root, "b.csv", [_line(10, "u1")])
    drop(root, "c.csv", [_line(11, "u2")])
    book = IngestBook(fs, Ledger.of(fs, repo.cluster("primary")).layout, "events", "primary")
    stream = book.new_stream("2026-01-01T00:00:00Z")
    book.write_batch(IngestBatch("events", "primary", stream.epoch, 0, "old-run", COMMITTED, "2026-01-01T00:00:00Z",
                                 [], 1, 0, None))
    log = root / "working" / "ingest" / "events" / f"checkpoint-{stream.epoch}" / "sources" / "0"
    log.mkdir(parents=True)
    for batch, path in enumerate((a, b)):
        entry = {"path": f"file://{path}", "timestamp": int(path.stat().st_mtime * 1000), "batchId": batch}
        (log / str(batch)).write_text("v1\n" + json.dumps(entry) + "\n")
    result = run_ingest(spark, repo, "events", "primary", RunContext(fs, run_id="r1", clock=StoppedClock(JAN_2)))
    assert (result.records, result.epoch, _users(spark, root)) == (2, stream.epoch, ["u1", "u2"])
    assert sorted(p.name for p in (root / "landing/events/_ingested/20260102").iterdir()) == ["a.csv", "b.csv",
                                                                                            "c.csv"]
    assert book.batch(stream.epoch, 1) is not None and book.landing().next_batch == 2  # type: ignore[union-attr]


@pytest.mark.jvm
def test_a_landing_file_larger_than_the_drivers_heap_ingests_with_the_small_file_beside_it(tmp_path: Path) -> None:
    """Through the real spark-submit, the driver (and local executors) at 512 MB of heap: a 600 MB landing file and
    a small one beside it are both ingested, the status line counts every row (a reader that holds a file whole
    died of OutOfMemoryError here, exit 52, and wedged the feed)."""
    from tests.integration.spark_submit import spark_submit

    repo, root = make_repo(tmp_path)
    page = "/" + "p" * 2000  # long lines: the heap is what is tested, not the parser's speed
    block = "".join(f"2026-01-01T1{k % 3}:05:00Z,user-{k:06d},x,{page},1\n" for k in range(1_000)).encode()
    copies = 600 * 1024 * 1024 // len(block) + 1
    landing = root / "landing" / "events"
    with (landing / ".big.csv").open("wb") as out:
        for _ in range(copies):
            out.write(block)
    (landing / ".big.csv").rename(landing / "big.csv")
    drop(root, "small.csv", [_line(10, "small")])
    done = spark_submit("ingest", "--repo", str(repo.root), "--feed", "events", "--cluster", "primary", cwd=tmp_path,
                        master="local[2]", options=("--driver-memory", "512m"), timeout=900)
    status = json.loads(done.stdout.strip().splitlines()[-1])
    assert (done.returncode, status["status"], status["records"], status["rejected"]) == (
        0, "SUCCEEDED", copies * 1_000 + 1, 0), done.stdout[-3000:]
    assert _landing(root) == [] and status["landing_files_ingested"] == 2
