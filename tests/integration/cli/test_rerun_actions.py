"""`toolkit rerun --feed F --action replication --execute` through the real spark-submit (issue 71, item 3): a copy
damaged on the target with its length and modification time kept, which every plain replication call trusts, is
copied again whole by a rerun without --continue; the instance's fingerprint is what it was, so no event is added."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.integration.spark_submit import environment
from tests.unit.retention.retention_repo import instance, replication_clusters, utc
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.runtime.run_context import RunContext

T = utc(2026, 11, 21, 10)
FILES = {"part-00000.json": b'{"page": "/"}\n' * 50, "part-00001.json": b'{"page": "/cart"}\n' * 9}


@pytest.mark.jvm
def test_a_rerun_copies_a_damaged_replica_again_through_spark_submit(tmp_path: Path) -> None:
    repo, primary, backup = replication_clusters(tmp_path)
    cluster = repo / "clusters" / "backup.yaml"
    cluster.write_text(cluster.read_text().replace(
        'properties:\n', 'properties:\n  trigger.submit-args: "--master local[1] --conf spark.ui.enabled=false"\n'))
    source = instance(primary, "data/clicks", T, FILES)
    run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(T, T),
                    RunContext(LocalFileSystem(), run_id="first"))
    damaged = backup / "replica/clicks/2026/11/21/10/part-00001.json"
    kept = os.stat(damaged)
    damaged.write_bytes(b"X" * kept.st_size)
    os.utime(damaged, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    command = [sys.executable, "-m", "toolkit", "rerun", "--repo", str(repo), "--feed", "clicks", "--action",
               "replication", "--cluster", "backup", "--from", "2026-11-21T10:00Z", "--to", "2026-11-21T10:00Z",
               "--status", "SUCCEEDED", "--execute"]
    done = subprocess.run(command, capture_output=True, text=True, env=environment(), timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "--recopy" in done.stdout.splitlines()[0] and done.stdout.splitlines()[-1].endswith("exit 0")
    assert damaged.read_bytes() == (source / "part-00001.json").read_bytes()
    status = json.loads(next(line for line in done.stdout.splitlines() if line.startswith('{"status"')))
    assert (status["status"], status["files_copied"], status["files_skipped"]) == ("SUCCEEDED", 2, 0)
    # the same files, lengths and times as the event of the first copy says: no new event, no consumer made due
    events = Ledger.of(LocalFileSystem(), ConfigRepo.load(repo).cluster("backup")).events("clicks", T)
    assert [event.kind for event in events] == ["published"]
