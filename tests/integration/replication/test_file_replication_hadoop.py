"""File-feed replication through Hadoop's file system and the JVM bulk copier of the test SparkSession, and
the whole entrypoint through the real spark-submit: counters, waiting, and a kill -9 in the middle of the
copy while a reader polls the target, whose lease the rerun takes over once expired; two replications of one
instance at once through Hadoop's file system."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from tests.integration.replication.killing import kill_when
from tests.integration.spark_submit import spark_submit, spark_submit_command
from tests.unit.replication.test_file_replication import FILES, T, contents, instance
from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.actions.replication.runner import ReplicationRequest, ReplicationResult, run_replication
from toolkit.core.entities.repo import ConfigRepo
from toolkit.errors import BlockedError
from toolkit.services.runtime.run_context import RunContext


def _hadoop_replicate(spark, repo: Path, t=T):
    from toolkit.core.storage.hadoop import HadoopFileSystem

    return run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(t, t),
                           RunContext(HadoopFileSystem(spark), run_id="h1"))


def test_copy_rerun_and_change_through_hadoop(spark, tmp_path: Path) -> None:
    repo, primary = make_repo(tmp_path)
    source = instance(primary, "data/clicks", T, FILES)
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    first = _hadoop_replicate(spark, repo).counters()
    assert (first["files_copied"], first["bytes_copied"]) == (3, sum(len(d) for d in FILES.values()))
    assert contents(target) == contents(source)
    assert {name: os.stat(target / name).st_mtime_ns // 1_000_000 for name in FILES} == \
        {name: os.stat(source / name).st_mtime_ns // 1_000_000 for name in FILES}
    assert _hadoop_replicate(spark, repo).counters()["files_copied"] == 0
    (source / "part-00000.json").write_bytes(b"corrected\n")
    changed = _hadoop_replicate(spark, repo).counters()
    assert (changed["files_copied"], changed["files_skipped"]) == (1, 2)
    assert contents(target) == contents(source)


@pytest.mark.jvm
def test_entrypoint_through_spark_submit(run_entrypoint, tmp_path: Path) -> None:
    repo, primary = make_repo(tmp_path)
    hours = [utc(2026, 11, 21, h) for h in (8, 9, 10)]
    for t in hours:
        instance(primary, "data/clicks", t, {"part-0.json": t.isoformat().encode() * 10})
    status_file = tmp_path / "status.json"
    result = spark_submit("replication", "--repo", str(repo), "--feed", "clicks", "--source", "primary",
                          "--target", "backup", "--time", "2026-11-21T10:00Z", "--from", "2026-11-21T08:00Z",
                          "--to", "2026-11-21T10:00Z", "--status-file", str(status_file), cwd=tmp_path)
    assert result.returncode == 0, result.stdout[-3000:]
    status = json.loads(result.stdout.strip().splitlines()[-1])
    assert status == json.loads(status_file.read_text())
    assert (status["status"], status["action"], status["entity"], status["target"]) == \
        ("SUCCEEDED", "replication", "clicks", "backup")
    assert (status["instances"], status["instances_published"], status["files_copied"], status["bytes_copied"]) == \
        (3, 3, 3, 3 * 250)
    for t in hours:
        folder = tmp_path / f"backup/replica/clicks/{t:%Y/%m/%d/%H}"
        assert contents(folder) == {"part-0.json": t.isoformat().encode() * 10, "_SUCCESS": b""}
    # The 11:00 instance is not there: waiting (exit 3) before the timeout, failed (exit 1) after it (in process).
    waiting = run_entrypoint("replication", "--repo", str(repo), "--feed", "clicks", "--target", "backup",
                             "--time", "2026-11-21T11:00Z", "--now", "2026-11-21T12:00Z", cwd=tmp_path)
    assert waiting.returncode == 3, waiting.stdout[-3000:]
    assert "replication: primary: the instance 2026-11-21T11:00Z is not available on 'primary' yet" in waiting.stderr
    assert json.loads(waiting.stdout.strip().splitlines()[-1])["status"] == "WAITING"


def _digests(folder: Path) -> dict[str, str]:
    return {name: hashlib.sha256(data).hexdigest() for name, data in contents(folder).items()}


KILLED_LEASE = 3.0  # seconds: the killed spark-submit's lease, taken over by the rerun once expired


def _replicate_at(barrier: threading.Barrier, spark, repo: Path, run_id: str,
                  outcomes: dict[str, ReplicationResult | BaseException]) -> None:
    from toolkit.core.storage.hadoop import HadoopFileSystem

    barrier.wait()
    try:
        outcomes[run_id] = run_replication(ConfigRepo.load(repo), "clicks", "backup", ReplicationRequest(T, T),
                                           RunContext(HadoopFileSystem(spark), run_id=run_id))
    except BaseException as err:  # noqa: BLE001 - the test inspects what each run ended with
        outcomes[run_id] = err


@pytest.mark.parametrize("trial", range(3))
def test_two_replications_of_one_instance_at_once_through_hadoop(spark, tmp_path: Path, trial: int) -> None:
    """Exactly one copies and publishes; the other is refused naming it, or finds the instance up to date."""
    repo, primary = make_repo(tmp_path)
    source = instance(primary, "data/clicks", T, {f"part-{k:05d}": os.urandom(4096) for k in range(40)})
    barrier = threading.Barrier(2)
    outcomes: dict[str, ReplicationResult | BaseException] = {}
    runs = [threading.Thread(target=_replicate_at, args=(barrier, spark, repo, run_id, outcomes))
            for run_id in ("r1", "r2")]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    assert _digests(target) == _digests(source)
    assert sorted(p.name for p in target.parent.iterdir()) == ["10"]
    published = [run_id for run_id, outcome in outcomes.items()
                 if isinstance(outcome, ReplicationResult) and outcome.counters()["instances_published"] == 1]
    assert len(published) == 1, outcomes
    other = next(outcome for run_id, outcome in outcomes.items() if run_id not in published)
    assert (isinstance(other, ReplicationResult) and other.counters()["files_copied"] == 0) or (
        isinstance(other, BlockedError) and f"run {published[0]} on " in str(other)), repr(other)


@pytest.mark.jvm
def test_spark_submit_killed_in_the_middle_of_the_copy(spark, tmp_path: Path) -> None:
    """kill -9 the whole spark-submit (JVM and Python) once the staging folder fills; a reader polling the
    target meanwhile never sees a partial instance; its lease refuses a rerun until it expires, then the rerun
    takes it over and completes the instance with equal checksums."""
    repo, primary = make_repo(tmp_path)
    feed = repo / "feeds/clicks.yaml"  # one file at a time, so that the copy lasts long enough to be killed
    feed.write_text(feed.read_text().replace("ACL:\n", "properties:\n  maxMaps: \"1\"\nACL:\n"))
    many = {f"part-{k:05d}": os.urandom(256 * 1024) for k in range(1200)}
    source = instance(primary, "data/clicks", T, many)
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    staging = target.parent / ".10.replicating"
    command = spark_submit_command("replication", "--repo", str(repo), "--feed", "clicks", "--target", "backup",
                                   "--time", "2026-11-21T10:00Z", "--lease", str(KILLED_LEASE))
    code, seen_partial = kill_when(command, tmp_path, lambda: staging.exists() and len(list(staging.iterdir())) >= 50,
                                   target, len(many), timeout=120)
    assert code == -signal.SIGKILL, "the copy ended before the test could kill it"
    assert not target.exists() and not seen_partial
    copied_before = len(list(staging.iterdir()))
    with pytest.raises(BlockedError, match=r"is being run by run \w+ on \S+:\d+ \(its lease ends "):
        _hadoop_replicate(spark, repo)
    assert len(list(staging.iterdir())) == copied_before  # the blocked rerun touched nothing
    time.sleep(KILLED_LEASE)
    result = _hadoop_replicate(spark, repo)
    record = json.loads(Path(str(result.instances[0].record).removeprefix("file://")).read_text())
    assert re.match(r"run \w+ on \S+:\d+ \(its lease ends ", record["took_over"]), record["took_over"]
    rerun = result.counters()
    assert rerun["files_copied"] + rerun["files_skipped"] == len(many)
    assert rerun["files_skipped"] >= copied_before - 1  # at most the file being written when killed is redone
    assert _digests(target) == _digests(source)


def test_a_link_in_the_source_is_not_copied_through_hadoop(spark, tmp_path: Path) -> None:
    from tests.unit.replication.test_file_replication import linked_instance

    repo, primary = make_repo(tmp_path)
    _, links = linked_instance(tmp_path, primary)
    result = _hadoop_replicate(spark, repo)
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    assert result.status == "SUCCEEDED"
    assert contents(target) == {**FILES, "_SUCCESS": b""}
    assert not any(os.path.islink(path) for path in target.rglob("*"))
    assert sorted(result.instances[0].sources[0].folder.links_skipped) == links


def _events(backup: Path, hour: int = 10) -> list[dict]:
    folder = backup / f"feed-toolkit/working/ledger/events/clicks/20261121T{hour:02d}00Z"
    return [json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))] if folder.exists() else []


def test_reruns_through_hadoop_record_the_event_once_with_the_fingerprint_a_listing_makes(spark, tmp_path: Path,
                                                                                          monkeypatch) -> None:
    """The event's fingerprint is digested in the JVM (on the first run by a probe of the new instance, on a rerun
    in the walk that found the target as the source): both must be the one the listing by levels makes, or every
    rerun would record the instance again; a rerun after a kill between publication and event writes it once."""
    from toolkit.core.instances.availability import probe_files
    from toolkit.core.instances.feed_locations import feed_locations
    from toolkit.core.ledger.store import Ledger
    from toolkit.core.storage.local import LocalFileSystem

    repo, primary = make_repo(tmp_path)
    instance(primary, "data/clicks", T, {**FILES, "sub/part-9.json": b"nested\n", ".hidden": b"not data\n"})
    real = Ledger.record_publication

    def killed(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt("killed right after the publication")

    monkeypatch.setattr(Ledger, "record_publication", killed)
    with pytest.raises(KeyboardInterrupt):
        _hadoop_replicate(spark, repo)
    monkeypatch.setattr(Ledger, "record_publication", real)
    backup = tmp_path / "backup"
    assert _events(backup) == []
    for _ in range(3):
        assert _hadoop_replicate(spark, repo).counters()["files_copied"] == 0

    config = ConfigRepo.load(repo)
    feed = config.feed("clicks")
    listed = probe_files(LocalFileSystem(), feed_locations(feed, config.cluster("backup")), feed.availability_flag,
                         [T])[T].fingerprint
    [event] = _events(backup)
    assert listed is not None and event["fingerprint"] == listed.to_json()
    assert listed.files == len(FILES) + 1

    eleven = utc(2026, 11, 21, 11)  # published by a run that was not killed: its probe digested it, then reruns
    instance(primary, "data/clicks", eleven, {**FILES, "sub/part-9.json": b"nested\n"})
    for _ in range(3):
        _hadoop_replicate(spark, repo, eleven)
    [published] = _events(backup, 11)
    assert published["kind"] == "published" and published["fingerprint"]["files"] == len(FILES) + 1
