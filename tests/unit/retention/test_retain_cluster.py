"""Retention of every feed of a cluster in one call (`toolkit retain --cluster C --all`, issue 36): each due feed is
retained at the latest instant of its cadence as its own call would be (same plan, lease, ledger record and status
line), a feed whose instant has a record is not due, one feed's failure or block is its own line and the call's
worst status, and a cluster with a feed that needs Spark is refused before anything is touched."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.unit.retention import cluster_lake
from tests.unit.retention.cluster_lake import FIRST, lake
from tests.unit.retention.retention_repo import tree
from toolkit.actions.retention.runner import run_retention
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.devtools.feeds_repo import CLUSTER
from toolkit.services.runtime.run_context import RunContext

CALL_TIME = "2025-03-01T00:30Z"  # days(30) from 2025-01-30T00:00Z, the daily cadence's instant 2025-03-01T00:00Z
DUE_AT = datetime(2025, 3, 1, tzinfo=timezone.utc)
TABLE_FEED = """\
kind: feed
name: visits
frequency: days(1)
clusters:
  - name: lake
    type: source
    validity: {start: "2025-01-01T00:00Z", end: "2099-12-31T00:00Z"}
    retention: {limit: days(30), action: delete}
table:
  uri: catalog:web:visits#ds=${YEAR}-${MONTH}-${DAY}
"""


def retain_all(capsys: pytest.CaptureFixture[str], repo: Path, *extra: str, time: str = CALL_TIME
               ) -> tuple[int, list[dict[str, object]], dict[str, object], str]:
    return cluster_lake.retain_all(capsys, repo, *extra, time=time)


def test_every_due_feed_is_retained_as_its_own_call_at_its_cadences_instant_would_be(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root, names = lake(tmp_path / "all")
    reference_repo, reference_root, _ = lake(tmp_path / "one")
    config = ConfigRepo.load(reference_repo)
    expected = [run_retention(config, name, CLUSTER, DUE_AT, RunContext(LocalFileSystem())) for name in names]
    code, feeds, summary, err = retain_all(capsys, repo, "--status-file", str(tmp_path / "status.json"))
    assert (code, err) == (0, "")
    assert [(line["entity"], line["status"], line["time"], line["instances_evicted"]) for line in feeds] == \
        [(name, "SUCCEEDED", "2025-03-01T00:00Z", len(result.evicted))
         for name, result in zip(names, expected, strict=True)]
    assert all(len(result.evicted) == 29 * 24 for result in expected)  # 2025-01-01 .. 01-29 (cut-off 01-30)
    assert len({line["run_id"] for line in feeds} | {summary["run_id"]}) == len(names) + 1
    assert {key: summary[key] for key in ("status", "entity", "time", "cluster", "feeds", "feeds_due",
                                          "feeds_by_status", "instances_evicted", "bytes_freed")} == {
        "status": "SUCCEEDED", "entity": None, "time": CALL_TIME, "cluster": CLUSTER, "feeds": 3, "feeds_due": 3,
        "feeds_by_status": {"SUCCEEDED": 3}, "instances_evicted": 3 * 29 * 24, "bytes_freed": 3 * 29 * 24 * 100}
    assert summary == json.loads((tmp_path / "status.json").read_text())
    assert {p for p in tree(root) if p.startswith("data/")} == \
        {p for p in tree(reference_root) if p.startswith("data/")}
    for name in names:
        record = json.loads((root / f"toolkit/working/retention/{name}/20250301T0000Z.json").read_text())
        assert (record["feed"], record["time"], record["cut_off"]) == (name, "2025-03-01T00:00Z", "2025-01-30T00:00Z")


def test_a_feed_whose_instant_has_a_record_is_not_due_until_its_next_instant(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root, names = lake(tmp_path)
    assert retain_all(capsys, repo)[0] == 0
    before = tree(root)
    code, feeds, summary, err = retain_all(capsys, repo, time="2025-03-01T23:59Z")
    assert (code, feeds, summary["status"], summary["feeds_due"], summary["feeds"]) == (4, [], "SKIPPED", 0, 3)
    assert err == ("retention: no feed's retention is due on cluster 'lake' at 2025-03-01T23:59Z (3 feed(s) with a "
                   "retention here).\n")
    assert tree(root) == before
    code, feeds, summary, _ = retain_all(capsys, repo, time="2025-03-02T00:00Z")
    assert code == 0
    assert [(line["time"], line["instances_evicted"]) for line in feeds] == [("2025-03-02T00:00Z", 24)] * 3


def test_a_feed_before_its_cadences_first_instant_is_not_due(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    repo, root, _ = lake(tmp_path, hours=2)
    before = tree(root)
    code, feeds, summary, _ = retain_all(capsys, repo, time="2024-12-31T23:59Z")
    assert (code, feeds, summary["feeds_due"]) == (4, [], 0) and tree(root) == before


def test_a_held_lease_blocks_its_feed_alone_and_the_call_says_so(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    repo, root, names = lake(tmp_path)
    held = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster(CLUSTER)).retention_lock(names[1])
    assert held.try_acquire("other-run").taken
    code, feeds, summary, err = retain_all(capsys, repo)
    assert code == 5
    assert [(line["entity"], line["status"]) for line in feeds] == \
        [(names[0], "SUCCEEDED"), (names[1], "BLOCKED"), (names[2], "SUCCEEDED")]
    assert "is being run by run other-run on " in str(feeds[1]["error"])
    assert (summary["status"], summary["feeds_by_status"]) == ("BLOCKED", {"BLOCKED": 1, "SUCCEEDED": 2})
    assert summary["error"] == f"1 of 3 feeds due did not succeed: {names[1]} (BLOCKED)"
    assert err.splitlines()[-1] == f"retention: {summary['error']}"
    assert (root / "data" / names[1] / "2025" / "01" / "01").is_dir()  # the blocked feed's instances untouched
    held.release()
    code, feeds, summary, _ = retain_all(capsys, repo)  # the blocked feed is due again, the others not
    assert code == 0 and [line["entity"] for line in feeds] == [names[1]]
    assert not (root / "data" / names[1] / "2025" / "01" / "01").exists()


def test_a_damaged_ledger_record_fails_its_feed_alone(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root, names = lake(tmp_path)
    ledger = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster(CLUSTER))
    ledger.plan_evictions(names[0], "killed-run", [(FIRST, "file:///nowhere")])
    damaged = next(path for path in (root / "toolkit").rglob("*") if path.is_file() and names[0] in str(path))
    damaged.write_text("{not json")
    code, feeds, summary, err = retain_all(capsys, repo)
    assert code == 1
    assert [(line["entity"], line["status"]) for line in feeds] == \
        [(names[0], "FAILED"), (names[1], "SUCCEEDED"), (names[2], "SUCCEEDED")]
    assert str(damaged.name) in str(feeds[0]["error"]) and "Traceback" not in err
    assert (root / "data" / names[0] / "2025" / "01" / "01").is_dir()
    assert summary["status"] == "FAILED"


def test_a_bad_retention_frequency_is_its_feeds_sentence_and_the_others_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root, names = lake(tmp_path)
    feed = repo / "feeds" / f"{names[2]}.yaml"
    feed.write_text(feed.read_text() + "properties:\n  retention.frequency: sometimes\n")
    code, feeds, summary, err = retain_all(capsys, repo)
    assert code == 2
    assert [(line["entity"], line["status"]) for line in feeds] == \
        [(names[0], "SUCCEEDED"), (names[1], "SUCCEEDED"), (names[2], "INVALID")]
    assert "sometimes" in str(feeds[2]["error"]) and "Traceback" not in err
    assert (root / "data" / names[2] / "2025" / "01" / "01").is_dir()


def test_a_dry_run_lists_every_due_feed_and_leaves_them_due(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    repo, root, names = lake(tmp_path, feeds=2)
    before = tree(root)
    code = main(["retain", "--repo", str(repo), "--cluster", CLUSTER, "--all", "--time", CALL_TIME, "--dry-run"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0 and tree(root) == before
    assert sum(line.startswith("would evict ") for line in out) == 2 * 29 * 24
    assert json.loads(out[-1])["feeds_by_status"] == {"DRY_RUN": 2}
    assert retain_all(capsys, repo)[2]["feeds_due"] == 2


def test_one_feed_at_a_time_evicts_the_same(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    one, one_root, _ = lake(tmp_path / "one", feeds=5)
    many, many_root, _ = lake(tmp_path / "many", feeds=5)
    assert retain_all(capsys, one, "--parallel", "1")[0] == 0
    assert retain_all(capsys, many, "--parallel", "5")[0] == 0
    assert {p for p in tree(one_root) if p.startswith("data/")} == {p for p in tree(many_root) if p.startswith("data/")}


def test_a_cluster_with_a_feed_that_needs_spark_is_refused_before_anything_is_touched(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo, root, _ = lake(tmp_path)
    (repo / "feeds" / "visits.yaml").write_text(TABLE_FEED)
    before = tree(root)
    code = main(["retain", "--repo", str(repo), "--cluster", CLUSTER, "--all", "--time", CALL_TIME])
    out, err = capsys.readouterr()
    assert (code, json.loads(out.splitlines()[-1])["status"]) == (2, "INVALID")
    assert err == ("retention: The feed 'visits' is a catalog table on cluster 'lake': its retention needs Spark; run "
                   "spark-submit entrypoints/retention.py --cluster lake --all.\n")
    assert tree(root) == before


@pytest.mark.parametrize(("arguments", "said"), [
    (("--cluster", CLUSTER, "--all", "--parallel", "0"), "argument --parallel: '0' is not a whole number of feeds"),
    (("--cluster", CLUSTER, "--feed", "feed-0000", "--parallel", "2"), "--parallel is for --all"),
    (("--cluster", CLUSTER, "--feed", "feed-0000", "--all"), "argument --all: not allowed with argument --feed"),
    (("--cluster", CLUSTER), "one of the arguments --feed --all is required"),
])
def test_bad_calls_are_one_sentence_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               arguments: tuple[str, ...], said: str) -> None:
    repo, root, _ = lake(tmp_path, feeds=1, hours=2)
    before = tree(root)
    assert main(["retain", "--repo", str(repo), *arguments]) == 2
    assert said in capsys.readouterr().err and tree(root) == before


def test_a_cluster_call_on_a_hostile_layout_keeps_what_each_feeds_own_call_keeps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two feeds sharing one folder (a days(7) daily feed above a days(30) hourly one, RP009), a link to another
    team's folder in a third feed's tree, and the cluster's root spelled `file:/...//`: the call keeps the hourly
    feed's instances inside the daily feed's expired days and the daily feed's days holding them (each is reported
    as refused), leaves the link and never looks through it."""
    repo, root, names = lake(tmp_path, feeds=1, hours=24 * 10)
    (repo / "feeds" / "daily.yaml").write_text(
        (repo / "feeds" / f"{names[0]}.yaml").read_text().replace(f"name: {names[0]}", "name: daily")
        .replace("frequency: hours(1)", "frequency: days(1)\nlint: {ignore: [RP007, RP009]}")
        .replace("limit: days(30)", "limit: days(7)")
        .replace("/${HOUR}", ""))
    (repo / "feeds" / "linked.yaml").write_text(
        (repo / "feeds" / f"{names[0]}.yaml").read_text().replace(f"name: {names[0]}", "name: linked")
        .replace(f"/data/{names[0]}/", "/data/linked/"))
    other_team = tmp_path / "other-team" / "2025" / "01" / "01"
    other_team.mkdir(parents=True)
    (other_team / "keep.txt").write_text("theirs\n")
    (root / "data" / "linked" / "2025").mkdir(parents=True)
    (root / "data" / "linked" / "2025" / "01").symlink_to(tmp_path / "other-team" / "2025" / "01")
    cluster = repo / "clusters" / "lake.yaml"
    cluster.write_text(cluster.read_text().replace(f'"file://{root}"', f'"file:{root}//"'))
    hours_before = {p for p in tree(root) if p.startswith(f"data/{names[0]}/2025/01/")}
    code, feeds, summary, err = retain_all(capsys, repo)
    assert code == 0, err
    assert {line["entity"]: line["status"] for line in feeds} == \
        {"daily": "SUCCEEDED", "linked": "SUCCEEDED", names[0]: "SUCCEEDED"}
    # each expired hour lies inside a day of the daily feed, each expired day holds hours: both feeds keep them all
    assert {p for p in tree(root) if p.startswith(f"data/{names[0]}/2025/01/")} == hours_before
    shared = {line["entity"]: (line["instances_evicted"], line["instances_refused"]) for line in feeds}
    assert shared == {"daily": (0, 10), "linked": (0, 0), names[0]: (0, 10 * 24)}  # every day and hour expired
    assert (root / "data" / "linked" / "2025" / "01").is_symlink()
    assert (other_team / "keep.txt").read_text() == "theirs\n"
