"""File-feed replication above the feed's threshold (`replication.distributed-above-files: "0"` here): the copy runs
as a Spark job over the executors (core/storage/jvm/DistributedCopy.java). On the real standalone cluster of the session
(two workers, one executor each) through the real spark-submit: byte-for-byte copies, mtimes, the copier and its
tasks in the status line and the run record, tasks on both executors; a spark-submit killed with SIGKILL in the middle
of the distributed copy leaves only staging, and the rerun completes the instance. In the test session (local[2]): a
source file that changes after it was listed fails its copy on the executor, nothing is published, and a rerun
publishes the new bytes."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
import urllib.request
from pathlib import Path

import pytest

from tests.integration.replication.killing import kill_when
from tests.integration.spark_submit import BOTH_EXECUTORS, spark_submit, spark_submit_command
from tests.unit.replication.test_file_replication import T, contents, instance
from tests.unit.retention.retention_repo import make_repo
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.storage.filesystem import StorageError
from toolkit.services.runtime.run_context import RunContext

KILLED_LEASE = 3.0  # seconds: the killed spark-submit's lease, taken over by the rerun once expired
TARGET = "backup/replica/clicks/2026/11/21/10"


def distributed_repo(tmp_path: Path, threads: int = 2) -> tuple[Path, Path]:
    """The template with feed clicks copied over the executors whatever its size, `threads` files at a time per task."""
    repo, primary = make_repo(tmp_path)
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text().replace(
        "ACL:\n", f'properties:\n  replication.distributed-above-files: "0"\n  maxMaps: "{threads}"\nACL:\n'))
    return repo, primary


def digests(folder: Path) -> dict[str, str]:
    return {name: hashlib.sha256(data).hexdigest() for name, data in contents(folder).items()}


def mtimes(folder: Path) -> dict[str, int]:
    """The data files' (the flag is written on the target, not copied)."""
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns // 1_000_000 for p in folder.rglob("*")
            if p.is_file() and p.name != "_SUCCESS"}


def replicate_here(spark, repo: Path, fs=None):
    from toolkit.core.storage.hadoop import HadoopFileSystem

    return run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(T, T),
                           RunContext(fs or HadoopFileSystem(spark), run_id="here", lease_seconds=KILLED_LEASE))


@pytest.mark.jvm
def test_a_big_instance_is_copied_by_tasks_on_both_executors_of_the_cluster(spark_cluster, tmp_path: Path) -> None:
    repo, primary = distributed_repo(tmp_path)
    files = {f"part-{k:05d}": os.urandom(512 * 1024 + k) for k in range(12)}
    files["nested/deeper/small.json"] = b'{"page": "/"}\n'
    source = instance(primary, "data/clicks", T, files)
    status_file = tmp_path / "status.json"
    done = spark_submit("replication", "--repo", str(repo), "--feed", "clicks", "--target", "backup", "--time",
                        "2026-11-21T10:00Z", "--status-file", str(status_file), cwd=tmp_path,
                        master=spark_cluster.url, options=BOTH_EXECUTORS)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    status = json.loads(status_file.read_text())
    assert (status["status"], status["files_copied"]) == ("SUCCEEDED", len(files))
    assert (status["copier"], status["copy_tasks"], status["copy_executors"]) == ("executors", 4, 2)
    target = tmp_path / TARGET
    assert digests(target) == digests(source)  # the _SUCCESS flag included
    assert mtimes(target) == mtimes(source)
    assert sorted(p.name for p in target.parent.iterdir()) == ["10"]  # no staging left
    record = json.loads(Path(status["record"].removeprefix("file://")).read_text())
    [pulled] = record["sources"]
    assert pulled["copier"] == "executors"
    tasks = pulled["copy_tasks"]
    assert {task["executor"] for task in tasks} == {"0", "1"}
    assert sum(task["files"] for task in tasks) == len(files)
    assert sum(task["bytes"] for task in tasks) == sum(len(data) for data in files.values())
    assert max(task["bytes"] for task in tasks) < 2 * min(task["bytes"] for task in tasks)  # balanced by bytes


def _no_application_on(cluster, timeout: float = 60) -> None:
    """Wait until the master has no running application: the killed driver's executors are gone."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"http://127.0.0.1:{cluster.ui_port}/json/", timeout=5) as answer:
            if not json.load(answer).get("activeapps"):
                return
        time.sleep(0.5)
    raise AssertionError("the killed application's executors still run")


@pytest.mark.jvm
def test_spark_submit_killed_in_the_middle_of_a_distributed_copy(spark_cluster, spark, tmp_path: Path) -> None:
    """SIGKILL to the whole spark-submit once the executors filled part of the staging folder: a reader polling the
    target never sees it partial, the staging folder holds what was copied, and the rerun (distributed again, in
    the test session) copies the rest and publishes the exact bytes."""
    repo, primary = distributed_repo(tmp_path, threads=1)
    many = {f"part-{k:05d}": os.urandom(256 * 1024) for k in range(600)}
    source = instance(primary, "data/clicks", T, many)
    target = tmp_path / TARGET
    staging = target.parent / ".10.replicating"
    command = spark_submit_command("replication", "--repo", str(repo), "--feed", "clicks", "--target", "backup",
                                   "--time", "2026-11-21T10:00Z", "--lease", str(KILLED_LEASE),
                                   master=spark_cluster.url)
    code, seen = kill_when(command, tmp_path, lambda: staging.exists() and len(list(staging.iterdir())) >= 30,
                           target, len(many))
    assert code == -signal.SIGKILL, "the copy ended before the test could kill it"
    assert not target.exists() and not seen
    _no_application_on(spark_cluster)
    copied_before = len(list(staging.iterdir()))
    assert 30 <= copied_before < len(many)
    time.sleep(KILLED_LEASE)
    rerun = replicate_here(spark, repo).counters()
    assert rerun["copier"] == "executors"
    assert rerun["files_copied"] + rerun["files_skipped"] == len(many)
    assert rerun["files_skipped"] >= copied_before - 2  # at most the two files being written when killed are redone
    assert digests(target) == digests(source)
    assert not staging.exists()


def test_a_source_changed_after_listing_fails_on_the_executor_and_nothing_is_published(spark,
                                                                                        tmp_path: Path) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    repo, primary = distributed_repo(tmp_path)
    files = {f"part-{k}": bytes([k]) * 10_000 for k in range(4)}
    source = instance(primary, "data/clicks", T, files)

    class ChangesASource(HadoopFileSystem):
        """Fault injection: one source file grows between the listing and the copy."""

        def copy_files_on_executors(self, tasks, threads=4, preserve_permission=True):
            with open(source / "part-2", "ab") as grown:
                grown.write(b"late bytes")
            return super().copy_files_on_executors(tasks, threads, preserve_permission)

    with pytest.raises(StorageError, match=r"1 of 4 file\(s\) of \S+ failed to copy .*part-2: the source changed "
                                           r"since it was listed: its length is 10010"):
        replicate_here(spark, repo, ChangesASource(spark))
    target = tmp_path / TARGET
    assert not target.exists()
    staged = target.parent / ".10.replicating"
    assert sorted(p.name for p in staged.iterdir()) == ["part-0", "part-1", "part-3"]  # the failed copy is deleted
    rerun = replicate_here(spark, repo).counters()
    assert (rerun["copier"], rerun["files_copied"], rerun["files_skipped"]) == ("executors", 1, 3)
    assert digests(target) == digests(source)
