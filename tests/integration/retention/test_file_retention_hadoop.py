"""File-feed retention through Hadoop's file system in the test SparkSession: the same tree, decoys and
report as on the pure-Python file system, and the whole entrypoint: through the real spark-submit once, in process
for its refusals."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.integration.spark_submit import spark_submit
from tests.unit.retention.retention_repo import hourly_instances, make_repo, plant_decoys, tree, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_context import RunContext


def _prepared(folder: Path) -> tuple[ConfigRepo, Path]:
    repo, root = make_repo(folder)
    hourly_instances(root, utc(2025, 12, 29, 0), 24 * 4)
    plant_decoys(root)
    return ConfigRepo.load(repo), root


def test_hadoop_and_local_file_systems_evict_the_same(spark, tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    on_hadoop, hadoop_root = _prepared(tmp_path / "hadoop")
    on_local, local_root = _prepared(tmp_path / "local")
    by_hadoop = run_retention(on_hadoop, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(HadoopFileSystem(spark)))
    by_local = run_retention(on_local, "clicks", "primary", utc(2026, 4, 1, 10), RunContext(LocalFileSystem()))
    assert len(by_hadoop.evicted) == 24 * 3 + 10
    assert [(i.time, i.bytes) for i in by_hadoop.evicted] == [(i.time, i.bytes) for i in by_local.evicted]
    assert by_hadoop.directories_removed == by_local.directories_removed
    # the ledger's batch of evictions and its journal entry are named by when they were recorded: compared by
    # their content and names below
    named_by_time = ("feed-toolkit/working/ledger/evictions", "feed-toolkit/working/ledger/journal")
    assert {p for p in tree(hadoop_root) if not p.startswith(named_by_time)} == \
        {p for p in tree(local_root) if not p.startswith(named_by_time)}
    entries = [sorted(f.name.split("~", 1)[1] for f in (root / named_by_time[1]).rglob("*~*"))
               for root in (hadoop_root, local_root)]
    assert entries[0] == entries[1] == ["clicks~20251229T0000Z~evictions"]  # one batch
    assert (hadoop_root / "data/clicks/2026/01/01/10/_SUCCESS").exists()  # exactly at the cut-off: kept
    recorded = []
    for repo, root in ((on_hadoop, hadoop_root), (on_local, local_root)):
        ledger = Ledger.of(LocalFileSystem(), repo.cluster("primary"))
        recorded.append(sorted((e.time, e.kind, e.location.replace(str(root), "<root>"))
                               for t in ledger.feed_event_times("clicks") for e in ledger.events("clicks", t)))
    assert recorded[0] == recorded[1] and len(recorded[0]) == 24 * 3 + 10


@pytest.mark.jvm
def test_entrypoint_through_spark_submit(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 31, 20), 8)  # 20:00 .. 03:00 the next day
    status_file = tmp_path / "status.json"
    result = spark_submit("retention", "--repo", str(repo), "--feed", "clicks", "--cluster", "primary",
                          "--time", "2026-03-31T22:00Z", "--status-file", str(status_file), cwd=tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    status = json.loads(result.stdout.strip().splitlines()[-1])
    assert status == json.loads(status_file.read_text())
    # days(90) before 2026-03-31T22:00Z is 2025-12-31T22:00Z: 20:00 and 21:00 go.
    assert (status["status"], status["action"], status["entity"], status["instances_evicted"]) == \
        ("SUCCEEDED", "retention", "clicks", 2)
    assert sorted(p.name for p in (root / "data/clicks/2025/12/31").iterdir()) == ["22", "23"]
    report = json.loads((root / "feed-toolkit/working/retention/clicks/20260331T2200Z.json").read_text())
    assert [item["time"] for item in report["evicted"]] == ["2025-12-31T20:00Z", "2025-12-31T21:00Z"]


def test_entrypoint_bad_call_exits_2_before_spark_starts(run_entrypoint, tmp_path: Path) -> None:
    repo, _ = make_repo(tmp_path)
    result = run_entrypoint("retention", "--repo", str(repo), "--feed", "clicks-daily", "--cluster", "backup",
                          "--time", "2026-03-31T22:00Z", cwd=tmp_path)
    output = result.stdout + result.stderr  # spark-submit merges the Python driver's stderr into its stdout
    assert result.returncode == 2
    assert "retention: The feed 'clicks-daily' is not defined on cluster 'backup'" in output
    assert "Traceback" not in output and "SparkContext" not in output
    status = json.loads(result.stdout.strip().splitlines()[-1])
    assert status["status"] == "INVALID" and "not defined on cluster 'backup'" in status["error"]


def test_entrypoint_blocked_by_a_live_lease_exits_5_naming_the_holder(run_entrypoint, tmp_path: Path) -> None:
    """Another run holds the feed's retention lease on the cluster: exit 5, one sentence naming it, nothing
    deleted."""
    repo, root = make_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 31, 20), 8)
    other = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("primary")).retention_lock("clicks")
    assert other.try_acquire("other-run").taken
    before = tree(root)
    result = run_entrypoint("retention", "--repo", str(repo), "--feed", "clicks", "--cluster", "primary",
                          "--time", "2026-03-31T22:00Z", cwd=tmp_path)
    assert result.returncode == 5, result.stdout[-3000:]
    status = json.loads(result.stdout.strip().splitlines()[-1])
    assert status["status"] == "BLOCKED"
    assert re.fullmatch(r"The retention of feed 'clicks' on cluster 'primary' is being run by run other-run on "
                        r"\S+:\d+ \(its lease ends \S+Z\): call again later\.", status["error"]), status["error"]
    assert f"retention: {status['error']}" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert tree(root) == before


@pytest.mark.parametrize("generic", [False, True], ids=["nio", "hadoop-generic"])
def test_links_are_left_and_never_followed_through_hadoop(spark, tmp_path: Path, generic: bool) -> None:
    import os

    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    hourly_instances(root, utc(2025, 12, 31, 0), 24)
    (root / "data/clicks/2025/notes.txt").write_text("keep\n")  # the year is not deleted in one piece
    outside = tmp_path / "outside"
    hourly_instances(outside, utc(2025, 11, 1, 0), 2, template="")
    (outside / "2025/11/notes.txt").write_text("keep\n")  # the month is not deleted in one piece either
    os.symlink(outside / "2025/11", root / "data/clicks/2025/11")
    within = tmp_path / "within"
    within.mkdir()
    (within / "precious").write_text("keep\n")
    os.symlink(within, root / "data/clicks/2025/12/31/03/link")
    before = tree(outside), tree(within)
    fs = HadoopFileSystem(spark)
    if generic:
        fs._nio_schemes = frozenset()
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", utc(2026, 4, 1, 10), RunContext(fs))
    assert result.status == "SUCCEEDED" and len(result.evicted) == 24
    assert (tree(outside), tree(within)) == before
    assert os.path.islink(root / "data/clicks/2025/11")
    assert result.links_left == [f"file://{root}/data/clicks/2025/11"]


@pytest.mark.parametrize("spelling", ["file:X", "file://X/", "file:///"])
def test_every_spelling_of_the_root_through_hadoop(spark, tmp_path: Path, spelling: str) -> None:
    from tests.unit.retention.test_retention_safety import with_root
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, root = make_repo(tmp_path)
    with_root(repo, root, spelling)
    hourly_instances(root, utc(2025, 12, 31, 20), 24)
    result = run_retention(ConfigRepo.load(repo), "clicks", "primary", utc(2026, 4, 1, 10),
                           RunContext(HadoopFileSystem(spark)))
    assert len(result.evicted) == 14 and result.evicted[0].path == f"file://{root}/data/clicks/2025/12/31/20"
    assert sorted(p.name for p in (root / "data/clicks/2026/01/01").iterdir()) == [f"{h}" for h in range(10, 20)]
