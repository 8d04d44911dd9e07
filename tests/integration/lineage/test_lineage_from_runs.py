"""`toolkit lineage` on ledgers that real runs wrote: clicks published with `toolkit publish`, the template's hourly
summary run by the process runner in the test SparkSession (real engine, Hadoop file system, ledger), and its
output replicated to backup by the replication core. The lineage of the replica goes back to the source cluster's
producing attempt and the clicks it read; the lineage of one clicks instance goes down to the summaries that read
it and to the replica; a late change of an input shows as changed since read."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from tests.integration.process_runner.process_repo import TestClock, make_repo, new_runner, utc, write_clicks
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.cli.main import main
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_context import RunContext

T = utc(2026, 11, 21, 10)
SUMMARY_TO_BACKUP = """  - name: backup
    type: target
    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}
    locations:
      data: /replica/clicks-hourly-summary/${YEAR}/${MONTH}/${DAY}/${HOUR}
locations:
  data:"""


def lineage(capsys: pytest.CaptureFixture[str], repo: Path, *argv: str) -> dict:  # type: ignore[type-arg]
    code = main(["lineage", "--repo", str(repo), "--format", "json", *argv])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    return json.loads(out)  # type: ignore[no-any-return]


def publish(capsys: pytest.CaptureFixture[str], repo: Path, hour: int) -> None:
    assert main(["publish", "--repo", str(repo), "--feed", "clicks", "--cluster", "primary", "--time",
                 f"2026-11-21T{hour:02d}:00Z"]) == 0
    capsys.readouterr()


def test_a_replica_traced_to_the_source_clusters_attempt_and_a_click_hour_to_its_readers(
        spark, capsys, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    repo, primary = make_repo(tmp_path)
    feed = repo / "feeds/clicks-hourly-summary.yaml"
    feed.write_text(feed.read_text().replace("locations:\n  data:", SUMMARY_TO_BACKUP))
    write_clicks(primary, T - timedelta(hours=2), 4)  # 08:00 to 11:00
    for hour in (8, 9, 10, 11):
        publish(capsys, repo, hour)
    clock = TestClock(T + timedelta(hours=2))
    for t, run_id in ((T, "sum10"), (T + timedelta(hours=1), "sum11")):
        assert new_runner(spark, repo, "hourly-clicks-summary", clock, run_id=run_id).run(t).status == "SUCCEEDED"
    copied = run_replication(ConfigRepo.load(repo), "clicks-hourly-summary", "backup",
                             ReplicationRequest(T, T + timedelta(hours=2)),
                             RunContext(LocalFileSystem(), run_id="rep10"))
    assert [o.status for o in copied.instances] == ["SUCCEEDED"]

    up = lineage(capsys, repo, "--cluster", "backup", "--feed", "clicks-hourly-summary", "--time",
                 "2026-11-21T10:00Z", "--up", "3", "--down", "0")
    nodes = {node["key"]: node for node in up["nodes"]}
    edges = {(edge["from"], edge["to"]): edge for edge in up["edges"]}
    replica = nodes[up["root"]]
    assert (replica["state"], replica["location"]) == (
        "published", f"file://{tmp_path}/backup/replica/clicks-hourly-summary/2026/11/21/10")
    replication = nodes["run:backup:replication:clicks-hourly-summary:2026-11-21T10:00Z:rep10"]
    assert (replication["status"], replication["notes"]) == ("SUCCEEDED", [])
    source = "instance:primary:clicks-hourly-summary:2026-11-21T10:00Z"
    assert edges[(source, replication["key"])]["since_read"] == "unchanged"
    attempt = nodes["run:primary:process:hourly-clicks-summary:2026-11-21T10:00Z:RUN:1"]
    assert (attempt["run_id"], attempt["status"], attempt["attempt"]) == ("sum10", "SUCCEEDED", 1)
    assert (attempt["key"], source) in edges
    recorded = json.loads((primary / "feed-toolkit/working/ledger/processes/hourly-clicks-summary/20261121T1000Z"
                           / "attempt-001.json").read_text())["inputs"][0]["instances"]
    reads = sorted((nodes[key[0]]["time"], edge["fingerprint"], edge["since_read"])
                   for key, edge in edges.items() if key[1] == attempt["key"])
    assert reads == [(seen["time"], seen["fingerprint"], "unchanged") for seen in recorded]
    outside = [node for node in nodes.values() if node["type"] == "run" and node["kind"] == "external"]
    assert sorted(node["time"] for node in outside) == ["2026-11-21T08:00Z", "2026-11-21T09:00Z",
                                                         "2026-11-21T10:00Z"]

    # downstream of the clicks of 10:00: the summaries of 10:00 and 11:00 read it, 12:00 has not run
    (primary / "data/clicks/2026/11/21/10/part-00001.json").write_text('{"ts": "2026-11-21T10:59:00Z"}\n')
    publish(capsys, repo, 10)  # a late change, published again
    down = lineage(capsys, repo, "--cluster", "primary", "--feed", "clicks", "--time", "2026-11-21T10:00Z",
                   "--up", "0", "--down", "2")
    nodes = {node["key"]: node for node in down["nodes"]}
    readers = {edge["to"]: edge["since_read"] for edge in down["edges"] if edge["from"] == down["root"]}
    assert readers == {"run:primary:process:hourly-clicks-summary:2026-11-21T10:00Z:RUN:1": "changed",
                       "run:primary:process:hourly-clicks-summary:2026-11-21T11:00Z:RUN:1": "changed"}
    assert nodes[down["root"]]["state"] == "replaced"
    assert "process 'hourly-clicks-summary' reads it at 2026-11-21T12:00Z, not run yet (no record)" in \
        nodes[down["root"]]["notes"]
    # level 2: the summary of 10:00 was replicated to backup
    assert ("run:primary:process:hourly-clicks-summary:2026-11-21T10:00Z:RUN:1",
            "instance:primary:clicks-hourly-summary:2026-11-21T10:00Z") in {
        (edge["from"], edge["to"]) for edge in down["edges"]}
    assert any(edge["from"] == source and edge["to"] == replication["key"] for edge in down["edges"])
