"""Retention in the lifecycle of every feed action (toolkit/services/runtime/lifecycle.py), on the local file system:
its lineage run and its batch of evictions carry the definition it ran, its run is no instance's child (its time is its
cadence's, not an instance), a failure (injected into a deletion) is told to the feed's webhook, a real HTTP server
on loopback, with the command that reruns it, and a dry run takes no lease: it plans while another run holds it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.openlineage.lineage_setup import lineage_to
from tests.lineage_receiver import lineage_receiver
from tests.notified_feed import notify_by_webhook
from tests.unit.retention.retention_repo import hourly_instances, make_repo, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.provenance import definition_hash
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.runtime.run_context import RunContext

FIRST, NOW = utc(2025, 12, 31, 20), utc(2026, 3, 31, 22)  # clicks keeps days(90) on primary: 20:00 and 21:00 go


class _FullDisk(LocalFileSystem):
    """A file system whose deletions under `data/` fail, as a disk that went read-only would."""

    def _delete(self, path: str, *, recursive: bool, measured: dict[str, int] | None = None) -> bool:
        if "/data/" in path:  # every deletion comes here, sized (delete_sized) or not
            raise StorageError(f"Cannot delete {path}: Read-only file system.")
        return super()._delete(path, recursive=recursive, measured=measured)


def test_the_run_and_its_evictions_carry_the_definition_and_a_failure_is_told_with_its_rerun(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    hourly_instances(root, FIRST, 4)
    with lineage_receiver() as lineage, lineage_receiver("/hook") as hook:
        notify_by_webhook(repo, "primary", "clicks", hook.url + "/hook")
        config = ConfigRepo.load(repo)
        primary = config.cluster("primary")

        def context(fs: LocalFileSystem, run_id: str) -> RunContext:
            return RunContext(fs, run_id, notifier=Notifier(fs, primary), lineage=lineage_to(lineage.url, repo, run_id))

        with pytest.raises(StorageError, match="Read-only file system"):
            run_retention(config, "clicks", "primary", NOW, context(_FullDisk(), "failing"))
        result = run_retention(config, "clicks", "primary", NOW, context(LocalFileSystem(), "fixed"))
    assert [item.time for item in result.evicted] == ["2025-12-31T20:00Z", "2025-12-31T21:00Z"]
    [notice] = hook.events
    assert {k: notice[k] for k in ("event", "kind", "entity", "cluster", "instance", "status", "run_id")} == {
        "event": "failed", "kind": "feed", "entity": "clicks", "cluster": "primary",
        "instance": "2026-03-31T22:00Z", "status": "FAILED", "run_id": "failing"}
    assert notice["rerun"] == (f"spark-submit entrypoints/retention.py --repo {repo} --feed clicks --cluster primary "
                               "--time 2026-03-31T22:00Z")
    expected = definition_hash(config.feed("clicks"), config.root)
    runs = [(e["eventType"], e["run"]["facets"]["feedToolkit_run"]["definitionHash"]) for e in lineage.events]
    assert runs == [("START", expected), ("FAIL", expected), ("START", expected), ("COMPLETE", expected)]
    assert all("parent" not in e["run"]["facets"] for e in lineage.events)  # its time is no instance of the feed
    [batch] = Ledger.of(LocalFileSystem(), primary).evictions.all("clicks")
    assert (batch.run_id, batch.definition and batch.definition.definition) == ("fixed", expected)


def test_a_dry_run_takes_no_lease_it_plans_while_another_run_holds_it(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    hourly_instances(root, FIRST, 4)
    config = ConfigRepo.load(repo)
    fs = LocalFileSystem()
    lock = Ledger.of(fs, config.cluster("primary")).retention_lock("clicks")
    assert lock.try_acquire("holder", None).taken
    before = sorted(str(path.relative_to(root)) for path in root.rglob("*"))
    dry = run_retention(config, "clicks", "primary", NOW, RunContext(fs, "dry"), dry_run=True)
    assert (dry.status, [item.time for item in dry.evicted]) == ("DRY_RUN", ["2025-12-31T20:00Z", "2025-12-31T21:00Z"])
    assert sorted(str(path.relative_to(root)) for path in root.rglob("*")) == before
    holder = lock.current()
    assert holder is not None and holder.run_id == "holder"  # the holder's lease, untouched
