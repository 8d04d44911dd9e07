"""Attacks on the retention of a whole cluster (`toolkit retain --cluster C --all`, commit d8425b8): each test here
failed on the code of that commit, and says which promise it holds the call to."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.unit.retention import cluster_lake
from tests.unit.retention.retention_repo import tree
from toolkit.actions.retention.retention_entry import retain_main
from toolkit.cli.main import main
from toolkit.core.ledger.locks import LeaseDetails, LeaseLock
from toolkit.devtools.feeds_repo import CLUSTER

CALL_TIME = "2025-01-03T00:30Z"  # the daily cadence's instant 2025-01-03T00:00Z is the latest at or before it
INSTANT = "2025-01-03T00:00Z"
RECORD = "toolkit/working/retention/{feed}/20250103T0000Z.json"


def lake(tmp_path: Path, feeds: int = 2, hours: int = 24 * 3) -> tuple[Path, Path, list[str]]:
    """Hourly feeds kept for days(1), `hours` instances each."""
    return cluster_lake.lake(tmp_path, feeds, hours, limit="days(1)")


def retain_all(capsys: pytest.CaptureFixture[str], repo: Path, *extra: str, time: str = CALL_TIME
               ) -> tuple[int, list[dict[str, object]], dict[str, object], str]:
    return cluster_lake.retain_all(capsys, repo, *extra, time=time)


@pytest.mark.parametrize("other", ["--all", "--feed"])
def test_a_feed_retained_by_another_call_before_this_one_takes_its_lease_is_not_retained_again(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, other: str) -> None:
    """Two callers at once (two `--all` calls, or `--all` beside the feed's own scheduled `--feed` call at the same
    instant): each feed is retained by one call (cluster_call.py: "a second call finds nothing left to do";
    tests/integration/retention/test_retain_cluster_process.py::test_two_calls_at_once_retain_each_feed_once).
    Here the other call retains the feed between this call's due check (no record yet) and its taking of the lease
    (the other released it): this call must see the record once it holds the lease. On d8425b8 it retains the
    feed again at the same instant and replaces the first run's ledger record, the only report of what was evicted
    and kept, with one of a run that evicted nothing: the record of what the retention deleted is lost."""
    repo, root, names = lake(tmp_path, feeds=1)
    name = names[0]
    original = LeaseLock.try_acquire
    competitor: list[int] = []

    def racing(self: LeaseLock, run_id: str, details: LeaseDetails | None = None) -> object:
        if not competitor:  # the other call runs whole, just before this one asks for the lease
            competitor.append(0)
            which = ["--all"] if other == "--all" else ["--feed", name]
            competitor[0] = retain_main(["--repo", str(repo), "--cluster", CLUSTER, *which,
                                         "--time", CALL_TIME if other == "--all" else INSTANT])
        return original(self, run_id, details)

    monkeypatch.setattr(LeaseLock, "try_acquire", racing)
    code = main(["retain", "--repo", str(repo), "--cluster", CLUSTER, "--all", "--time", CALL_TIME])
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert competitor == [0]
    first = next(line for line in lines if line["entity"] == name)  # the other call's line, printed first
    record = json.loads((root / RECORD.format(feed=name)).read_text())
    assert first["instances_evicted"] == 24  # the other call evicted 2025-01-01
    assert (record["run_id"], len(record["evicted"])) == (first["run_id"], 24)  # its record kept
    succeeded = [line for line in lines if line["entity"] == name and line["status"] == "SUCCEEDED"]
    assert len(succeeded) == 1 and code in (0, 4)


def test_a_feed_past_its_validity_is_not_due_again_at_the_next_call(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A retired feed (its validity on the cluster ended) is never retained again, so its retention is not due:
    cluster_call.py promises that a second call finds nothing left to do, and an hourly `--all` on a cluster with
    retired feeds must not say each of them again every hour. On d8425b8 the feed's SKIPPED run writes no record,
    so every call counts it in feeds_due, prints its status line and its 'after the validity' sentence again, and a
    cluster whose feeds are all retired never gets to 'no feed's retention is due'."""
    repo, root, names = lake(tmp_path, feeds=2, hours=2)
    retired = repo / "feeds" / f"{names[1]}.yaml"
    retired.write_text(retired.read_text().replace('end: "2099-12-31T00:00Z"', 'end: "2025-01-01T12:00Z"'))
    retain_all(capsys, repo)
    before = tree(root)
    code, feeds, summary, err = retain_all(capsys, repo)  # the same time again: nothing left to do
    assert (code, feeds, summary["feeds_due"]) == (4, [], 0)
    assert "after the validity" not in err and tree(root) == before


@pytest.mark.parametrize("in_the_way", [
    "toolkit/working/retention/{feed}",  # a file where the feed's record folder belongs
    "toolkit/working",  # the working location is a file: no feed's record can be read
])
def test_a_file_where_a_record_folder_belongs_is_one_sentence_naming_it_not_a_traceback(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], in_the_way: str) -> None:
    """A damaged working location (a file where a folder of the ledger belongs) is a storage error: one sentence
    naming the path, exit 1 (docs/exit-codes.md: "never a traceback"; the feed's own `--feed` call says "Cannot
    write <path>: Not a directory."). On d8425b8 the due check's lstat raises NotADirectoryError, which `--all`
    reports as a fault of the toolkit: a Python traceback on stderr for each feed, and 'NotADirectoryError: [Errno
    20] ...' as the feed's error."""
    repo, root, names = lake(tmp_path, feeds=2, hours=2)
    blocker = root / in_the_way.format(feed=names[0])
    blocker.parent.mkdir(parents=True, exist_ok=True)
    blocker.write_text("not a folder\n")
    code, feeds, summary, err = retain_all(capsys, repo)
    assert code == 1 and summary["status"] == "FAILED"
    assert "Traceback" not in err and "fault of the toolkit" not in err
    line = next(line for line in feeds if line["entity"] == names[0])
    assert line["status"] == "FAILED" and "Errno" not in str(line["error"])
    assert f"file://{blocker}" in str(line["error"]) or str(blocker) in str(line["error"])


def test_a_bad_retention_frequency_is_a_sentence_naming_the_feed_and_the_property(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Bad input gets one sentence naming the entity and the field (docs/exit-codes.md); among the sentences of a
    cluster's hundreds of feeds on stderr, one about a frequency must say whose and which. `toolkit schedule` says
    "Feed 'X': its retention frequency does not parse (...) Fix the feed property retention.frequency ...". On
    d8425b8 `--all` prints only "retention: Invalid frequency 'minutes(0)': write minutes(n), ..." and the feed's
    status line's error says the same: neither the feed nor retention.frequency is named."""
    repo, root, names = lake(tmp_path, feeds=2, hours=2)
    feed = repo / "feeds" / f"{names[1]}.yaml"
    feed.write_text(feed.read_text() + "properties:\n  retention.frequency: minutes(0)\n")
    code, feeds, summary, err = retain_all(capsys, repo)
    assert code == 2
    said = next(line for line in err.splitlines() if "minutes(0)" in line)
    assert names[1] in said and "retention.frequency" in said
    error = str(next(line for line in feeds if line["entity"] == names[1])["error"])
    assert names[1] in error and "retention.frequency" in error


def test_a_parallel_of_other_digits_is_refused_in_the_calls_words(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A bad --parallel is one clear sentence (docs/exit-codes.md): '0' and '65' get "... is not a whole number of
    feeds from 1 to 64", but '²' (which str.isdigit accepts and int refuses) gets argparse's fallback "invalid
    _feeds_at_once value: '²'", a private Python name where the sentence should say what to give."""
    repo, root, _ = lake(tmp_path, feeds=1, hours=2)
    assert main(["retain", "--repo", str(repo), "--cluster", CLUSTER, "--all", "--parallel", "²"]) == 2
    err = capsys.readouterr().err
    assert "_feeds_at_once" not in err and "is not a whole number of feeds from 1 to 64" in err


def test_the_exit_codes_page_says_what_a_call_for_a_whole_cluster_returns() -> None:
    """The exit-code contract is docs/exit-codes.md ("Who gives which code"), which a scheduler's author reads to
    know whether to go on, retry or alert. `--all` gives codes of its own (the worst of its feeds', 4 when no feed
    is due) and a summary status line of its own (entity null, feeds, feeds_due, feeds_by_status) after one line
    per feed; on d8425b8 neither the page nor the README mentions `--all` (nor `toolkit schedule --retention
    per-cluster`)."""
    page = (Path(__file__).resolve().parents[3] / "docs" / "exit-codes.md").read_text()
    assert "--all" in page and "feeds_due" in page
