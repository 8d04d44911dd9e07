"""File replication in the lifecycle of every feed action (toolkit/services/runtime/lifecycle.py), on the local file
system: in a catch-up window, each instance is a call of its own whose lineage run and dataset event carry the
definition it ran; an instance whose source did not come by the feed's timeout is told to the feed's webhook (a real
HTTP server on loopback) as TIMEDOUT while the next one is published; a failure raised inside an instance (injected into
the copy) is told once, for that instance, with the command that reruns it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.openlineage.lineage_setup import lineage_to
from tests.lineage_receiver import Receiver, lineage_receiver
from tests.notified_feed import notify_by_webhook
from tests.unit.retention.retention_repo import instance, replication_clusters, utc
from toolkit.actions.replication.runner import ReplicationRequest, run_replication
from toolkit.core.entities.provenance import definition_hash
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.runtime.run_context import RunContext

T10, T11 = utc(2026, 11, 21, 10), utc(2026, 11, 21, 11)
LATER = utc(2026, 11, 22, 12)  # past the feed's timeout of either instance


class _FullDisk(LocalFileSystem):
    """A file system whose copies fail, as a target disk that filled up would."""

    def copy_files(self, *args: object, **kwargs: object) -> list:  # type: ignore[override]
        raise StorageError("Cannot copy to the backup cluster: No space left on device.")


def _notices(hook: Receiver) -> list[tuple[object, ...]]:
    return [(n["event"], n["instance"], n["status"], n["run_id"], n["rerun"]) for n in hook.events]


def _context(fs: LocalFileSystem, config: ConfigRepo, repo: Path, url: str, run_id: str) -> RunContext:
    backup = config.cluster("backup")
    return RunContext(fs, run_id, notifier=Notifier(fs, backup), lineage=lineage_to(url, repo, run_id, "backup"))


@pytest.fixture
def clusters(tmp_path: Path) -> tuple[Path, Path, Path]:
    return replication_clusters(tmp_path)


def test_each_instance_of_a_window_carries_the_definition_and_a_timed_out_one_is_told(clusters) -> None:
    repo, primary, backup = clusters
    instance(primary, "data/clicks", T10, {"part-0": b"ten\n"})  # 11:00 never comes
    with lineage_receiver() as lineage, lineage_receiver("/hook") as hook:
        notify_by_webhook(repo, "backup", "clicks", hook.url + "/hook")
        config = ConfigRepo.load(repo)
        result = run_replication(config, "clicks", "backup", ReplicationRequest(T11, LATER, window=(T10, T11)),
                                 _context(LocalFileSystem(), config, repo, lineage.url, "window"))
    assert [(i.instance, i.status) for i in result.instances] == [(T10, "SUCCEEDED"), (T11, "FAILED")]
    assert (backup / "replica/clicks/2026/11/21/10/part-0").read_bytes() == b"ten\n"
    assert _notices(hook) == [("timedout", "2026-11-21T11:00Z", "TIMEDOUT", "window",
                               f"spark-submit entrypoints/replication.py --repo {repo} --feed clicks --target backup "
                               "--time 2026-11-21T11:00Z")]
    expected = definition_hash(config.feed("clicks"), config.root)
    assert [(e["eventType"], e["run"]["facets"]["feedToolkit_run"]["definitionHash"]) for e in lineage.events] == [
        ("START", expected), ("COMPLETE", expected), ("START", expected), ("FAIL", expected)]
    [event] = Ledger.of(LocalFileSystem(), config.cluster("backup")).events("clicks", T10)
    assert (event.producer, event.definition and event.definition.definition) == ("replication:primary", expected)


def test_a_failure_inside_an_instance_is_told_once_for_that_instance(clusters) -> None:
    repo, primary, backup = clusters
    instance(primary, "data/clicks", T10, {"part-0": b"ten\n"})
    with lineage_receiver() as lineage, lineage_receiver("/hook") as hook:
        notify_by_webhook(repo, "backup", "clicks", hook.url + "/hook")
        config = ConfigRepo.load(repo)
        with pytest.raises(StorageError, match="No space left on device"):
            run_replication(config, "clicks", "backup", ReplicationRequest(T10, T10),
                            _context(_FullDisk(), config, repo, lineage.url, "full"))
    assert _notices(hook) == [("failed", "2026-11-21T10:00Z", "FAILED", "full",
                               f"spark-submit entrypoints/replication.py --repo {repo} --feed clicks --target backup "
                               "--time 2026-11-21T10:00Z")]
    assert [e["eventType"] for e in lineage.events] == ["START", "FAIL"]
    assert not (backup / "replica/clicks/2026/11/21/10").exists()


def test_the_rerun_of_an_instance_of_a_delayed_target_replicates_that_instance(clusters) -> None:
    """With a `delay`, a call at 12:00 pulls the instance of 10:00: the notice's rerun names that instance as a
    window of one (a plain `--time 10:00` would pull the instance of 08:00)."""
    repo, primary, backup = clusters
    feed = repo / "feeds/clicks.yaml"
    feed.write_text(feed.read_text().replace("  - name: backup\n    type: target\n",
                                             "  - name: backup\n    type: target\n    delay: hours(2)\n", 1))
    with lineage_receiver("/hook") as hook:
        notify_by_webhook(repo, "backup", "clicks", hook.url + "/hook")
        config = ConfigRepo.load(repo)
        fs = LocalFileSystem()
        context = RunContext(fs, "late", notifier=Notifier(fs, config.cluster("backup")))
        result = run_replication(config, "clicks", "backup", ReplicationRequest(utc(2026, 11, 21, 12), LATER),
                                 context)
    assert [(i.instance, i.status) for i in result.instances] == [(T10, "FAILED")]
    [(event, told, _, _, rerun)] = _notices(hook)
    assert (event, told) == ("timedout", "2026-11-21T10:00Z")
    assert rerun == (f"spark-submit entrypoints/replication.py --repo {repo} --feed clicks --target backup "
                     "--time 2026-11-21T10:00Z --from 2026-11-21T10:00Z --to 2026-11-21T10:00Z")
    instance(primary, "data/clicks", T10, {"part-0": b"ten\n"})  # it came: the rerun's window pulls it
    again = run_replication(config, "clicks", "backup", ReplicationRequest(T10, LATER, window=(T10, T10)),
                            RunContext(LocalFileSystem(), "rerun"))
    assert [(i.instance, i.status) for i in again.instances] == [(T10, "SUCCEEDED")]
    assert (backup / "replica/clicks/2026/11/21/10/part-0").read_bytes() == b"ten\n"
