"""Retention records one `evicted` dataset event per evicted instance (its data location, or where the archive
put it), all of a run in one batch of evictions, planned in the ledger first so that a run killed between an
eviction and its batch (or between its batch and the batch's journal entry) has it written by the next run."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from tests.unit.retention.archive_repo import make_archive_repo
from tests.unit.retention.retention_repo import hourly_instances, make_repo, utc
from toolkit.actions.retention.runner import run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.evictions import EvictionBatch
from toolkit.core.ledger.journal import Journal
from toolkit.core.ledger.records import PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import UsageError
from toolkit.services.runtime.run_context import RunContext

FS = LocalFileSystem()
NOMINAL = utc(2026, 4, 1, 10)  # clicks keeps days(90) on primary: the cut-off is 2026-01-01T10:00Z
BATCHES = "feed-toolkit/working/ledger/evictions/clicks"


def _events(repo: ConfigRepo) -> dict[str, list[dict]]:
    """Each instance's events as `toolkit events` reads them (event files and batches), oldest first."""
    ledger = Ledger.of(FS, repo.cluster("primary"))
    return {f"{t:%Y%m%dT%H%MZ}": [vars(e) for e in ledger.events("clicks", t)]
            for t in ledger.feed_event_times("clicks")}


def _batches(root: Path) -> list[str]:
    folder = root / BATCHES
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def test_each_evicted_instance_gets_one_evicted_event(tmp_path: Path) -> None:
    repo_path, root = make_repo(tmp_path)
    repo = ConfigRepo.load(repo_path)
    hourly_instances(root, utc(2026, 1, 1, 8), 3)  # 08:00 and 09:00 expire, 10:00 is kept
    ledger = Ledger.of(FS, repo.cluster("primary"))
    ledger.record_publication(PublicationFacts("clicks", "primary", utc(2026, 1, 1, 8), producer="external",
                                               run_id="p1", location="x", fingerprint=Fingerprint("d", 1, 1)))
    run_retention(repo, "clicks", "primary", NOMINAL, RunContext(FS, run_id="ret1"))
    events = _events(repo)
    assert list(events) == ["20260101T0800Z", "20260101T0900Z"]
    assert [e["kind"] for e in events["20260101T0800Z"]] == ["published", "evicted"]
    [evicted] = events["20260101T0900Z"]
    assert (evicted["kind"], evicted["producer"], evicted["run_id"], evicted["fingerprint"], evicted["location"]) == (
        "evicted", "retention", "ret1", None, f"file://{root}/data/clicks/2026/01/01/09")
    [batch] = _batches(root)  # both in one file
    assert batch.endswith("~20260101T0800Z~20260101T0900Z.json") and "-ret1-" in batch
    assert not (root / "feed-toolkit/working/ledger/pending-evictions/clicks.json").exists()
    # published again after its eviction: `published`, not `replaced`
    again = ledger.record_publication(PublicationFacts("clicks", "primary", utc(2026, 1, 1, 9), producer="external",
                                                       run_id="p2", location="x", fingerprint=None))
    assert again is not None and again.kind == "published"
    run_retention(repo, "clicks", "primary", NOMINAL, RunContext(FS, run_id="ret2"))  # nothing left to evict: no event
    assert [len(v) for v in _events(repo).values()] == [2, 2] and len(_batches(root)) == 1


def test_an_archived_instance_is_evicted_with_its_archive_location(tmp_path: Path) -> None:
    repo_path, root = make_archive_repo(tmp_path)
    hourly_instances(root, utc(2026, 1, 1, 9), 2)
    repo = ConfigRepo.load(repo_path)
    run_retention(repo, "clicks", "primary", NOMINAL, RunContext(FS, run_id="ret1"))
    [[evicted]] = _events(repo).values()
    assert (evicted["kind"], evicted["time"], evicted["location"]) == (
        "evicted", "2026-01-01T09:00Z", f"file://{root}/archive/data/clicks/2026/01/01/09")


def test_a_run_killed_between_evictions_and_their_batch_has_it_written_by_the_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo_path, root = make_repo(tmp_path)
    repo = ConfigRepo.load(repo_path)
    hourly_instances(root, utc(2026, 1, 1, 6), 5)  # 06:00 .. 09:00 expire, 10:00 is kept
    real = Ledger.record_evictions

    def killed(self: Ledger, feed: str, cluster: str, evicted: list[tuple[datetime, str]], **kwargs: str) -> object:
        raise KeyboardInterrupt("killed between the evictions and their batch")

    monkeypatch.setattr(Ledger, "record_evictions", killed)
    with pytest.raises(KeyboardInterrupt):
        run_retention(repo, "clicks", "primary", NOMINAL, RunContext(FS, run_id="ret1"))
    assert not (root / "data/clicks/2026/01/01/06").exists() and _events(repo) == {}
    assert (root / "feed-toolkit/working/ledger/pending-evictions/clicks.json").exists()
    monkeypatch.setattr(Ledger, "record_evictions", real)
    run_retention(repo, "clicks", "primary", NOMINAL, RunContext(FS, run_id="ret2"))
    events = _events(repo)
    assert list(events) == [f"20260101T{h:02d}00Z" for h in (6, 7, 8, 9)]
    assert all([e["kind"] for e in v] == ["evicted"] for v in events.values())  # each once
    assert {v[0]["run_id"] for v in events.values()} == {"ret1"}  # the evictions were that run's
    assert not (root / "feed-toolkit/working/ledger/pending-evictions/clicks.json").exists()
    ledger = Ledger.of(FS, repo.cluster("primary"))
    assert sorted(e.event_id for e in ledger.journal.entries_since(None, timedelta(0))) == sorted(
        v[0]["event_id"] for v in events.values())


def _retention_killed_before_the_batch_entry(repo_path: str) -> None:
    """A retention run killed with SIGKILL right after its batch of evictions, before the batch's journal entry."""
    def die(_: Journal, __: EvictionBatch) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    Journal.write_batch = die  # type: ignore[method-assign]
    run_retention(ConfigRepo.load(repo_path), "clicks", "primary", NOMINAL,
                  RunContext(FS, run_id="ret1", lease_seconds=1))


def test_a_run_killed_between_its_batch_and_the_journal_entry_has_the_entry_written_by_the_next(
        tmp_path: Path) -> None:
    repo_path, root = make_repo(tmp_path)
    repo = ConfigRepo.load(repo_path)
    hourly_instances(root, utc(2026, 1, 1, 8), 3)
    child = multiprocessing.get_context("fork").Process(target=_retention_killed_before_the_batch_entry,
                                                        args=(str(repo_path),))
    child.start()
    child.join(60)
    assert child.exitcode == -signal.SIGKILL
    [batch] = _batches(root)
    ledger = Ledger.of(FS, repo.cluster("primary"))
    assert ledger.journal.entries_since(None, timedelta(0)) == []  # the batch has no entry yet
    time.sleep(1.1)  # the killed run's lease ends
    run_retention(repo, "clicks", "primary", NOMINAL, RunContext(FS, run_id="ret2"))
    assert _batches(root) == [batch]  # not written twice
    evicted = sorted(e["event_id"] for v in _events(repo).values() for e in v)
    assert len(evicted) == 2
    assert [e.event_id for e in ledger.journal.entries_since(None, timedelta(0))] == evicted
    assert [e.event_id for e in ledger.journal.late_entries()] == evicted  # late: older than a consumer's lag
    assert not (root / "feed-toolkit/working/ledger/pending-evictions/clicks.json").exists()


def test_a_table_feeds_pending_evictions_wait_for_a_run_with_the_metastore(tmp_path: Path) -> None:
    """A run without a catalog cannot tell which planned partitions are gone: it keeps the plan, writes no
    event, and stops (exit 2) as every table retention without the metastore does."""
    repo_path, root = make_repo(tmp_path)
    repo = ConfigRepo.load(repo_path)
    ledger = Ledger.of(FS, repo.cluster("primary"))
    ledger.plan_evictions("visits", "killed-run", [(utc(2026, 2, 20), "web.visits/ds=2026-02-20")])
    with pytest.raises(UsageError, match="needs the Hive metastore"):
        run_retention(repo, "visits", "primary", NOMINAL, RunContext(FS, run_id="ret1"))
    assert ledger.pending_evictions("visits") == ("killed-run", [(utc(2026, 2, 20), "web.visits/ds=2026-02-20")])
    assert ledger.events("visits", utc(2026, 2, 20)) == []
