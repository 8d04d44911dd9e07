"""Two retentions of one feed on one cluster at once: the cluster's ledger holds a lease per (feed, cluster), so
exactly one evicts; the other is told who holds it (exit 5) or, taking it after the first finished, finds
nothing left to evict. The tree is the one a single run leaves, every trial."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, plant_decoys, tree, utc
from toolkit.actions.retention.runner import RetentionResult, run_retention
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.locks import LockLostError, holder_name
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError
from toolkit.services.runtime.run_context import RunContext

NOMINAL = utc(2026, 4, 1, 10)
HOLDER = re.compile(r"run (r[12]) on (\S+:\d+) \(its lease ends \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)")


def _prepared(folder: Path) -> tuple[ConfigRepo, Path]:
    repo, root = make_repo(folder)
    hourly_instances(root, utc(2025, 12, 20, 0), 24 * 14)
    plant_decoys(root)
    return ConfigRepo.load(repo), root


def _data(root: Path) -> set[str]:
    return {p for p in tree(root) if not p.startswith("feed-toolkit")}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    repo, root = _prepared(tmp_path_factory.mktemp("reference"))
    run_retention(repo, "clicks", "primary", NOMINAL, RunContext(LocalFileSystem()))
    return _data(root)


@pytest.mark.parametrize("trial", range(6))
def test_two_retentions_of_one_feed_at_once(tmp_path: Path, reference: set[str], trial: int) -> None:
    repo, root = _prepared(tmp_path)
    start = threading.Barrier(2)
    outcomes: dict[str, RetentionResult | BaseException] = {}

    def retain(run_id: str) -> None:
        start.wait()
        try:
            outcomes[run_id] = run_retention(repo, "clicks", "primary", NOMINAL,
                                             RunContext(LocalFileSystem(), run_id=run_id))
        except BaseException as err:  # noqa: BLE001 - the test inspects what each run ended with
            outcomes[run_id] = err

    runs = [threading.Thread(target=retain, args=(run_id,)) for run_id in ("r1", "r2")]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    assert _data(root) == reference
    evicting = [run_id for run_id, outcome in outcomes.items()
                if isinstance(outcome, RetentionResult) and outcome.evicted]
    assert len(evicting) == 1, outcomes
    assert len(outcomes[evicting[0]].evicted) == 24 * 12 + 10  # type: ignore[union-attr]
    other = next(outcome for run_id, outcome in outcomes.items() if run_id != evicting[0])
    if isinstance(other, RetentionResult):  # it took the lease after the first had finished
        assert other.status == "SUCCEEDED" and other.evicted == []
    else:
        assert isinstance(other, BlockedError), repr(other)
        holder = HOLDER.search(str(other))
        assert holder is not None and holder.groups() == (evicting[0], holder_name()), str(other)
        assert "retention of feed 'clicks' on cluster 'primary'" in str(other)


def test_a_live_lease_blocks_before_anything_is_deleted(tmp_path: Path) -> None:
    repo, root = _prepared(tmp_path)
    before = _data(root)
    lock = Ledger.of(LocalFileSystem(), repo.cluster("primary")).retention_lock("clicks")
    assert lock.try_acquire("other-run").taken
    with pytest.raises(BlockedError, match=rf"run other-run on {re.escape(holder_name())} \(its lease ends "):
        run_retention(repo, "clicks", "primary", NOMINAL, RunContext(LocalFileSystem(), run_id="r1"))
    assert _data(root) == before
    assert run_retention(repo, "clicks", "primary", NOMINAL,
                         RunContext(LocalFileSystem()), dry_run=True).status == "DRY_RUN"
    lock.release()
    assert len(run_retention(repo, "clicks", "primary", NOMINAL,
                             RunContext(LocalFileSystem(), run_id="r1")).evicted) == 298


class _TakenOverWhileDeleting(LocalFileSystem):
    """Another run takes the feed's retention lock over during this run's first delete (this one stalled past its
    lease, as a stopped process does), and the deletion goes on until this run's keeper has seen it."""

    def __init__(self, cluster: object) -> None:
        super().__init__()
        self.cluster, self.taken = cluster, False

    def _delete(self, path: str, *, recursive: bool, measured: dict[str, int] | None = None) -> bool:
        if not self.taken and "/data/clicks/" in path:  # every deletion comes here, sized (delete_sized) or not
            self.taken = True
            later = Ledger.of(LocalFileSystem(), self.cluster, clock=lambda: time.time() + 3600)  # type: ignore[arg-type]
            assert later.retention_lock("clicks").try_acquire("r2").taken
            time.sleep(1.0)  # a few renewals of the 0.6 s lease: the keeper finds the later generation
        return super()._delete(path, recursive=recursive, measured=measured)


def test_a_run_that_lost_its_lease_while_deleting_writes_no_event(tmp_path: Path) -> None:
    """Its deletions were of expired instances (the new holder deletes the same); its events would be a second
    copy of the new holder's, and clearing the pending plan would drop the new holder's."""
    repo, _ = _prepared(tmp_path)
    cluster = repo.cluster("primary")
    ledger = Ledger.of(LocalFileSystem(), cluster)
    with pytest.raises(LockLostError):
        run_retention(repo, "clicks", "primary", NOMINAL,
                      RunContext(_TakenOverWhileDeleting(cluster), "r1", lease_seconds=0.6))
    assert [e for t in ledger.feed_event_times("clicks") for e in ledger.events("clicks", t) if e.run_id == "r1"] == []
