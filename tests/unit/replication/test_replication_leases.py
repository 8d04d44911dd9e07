"""Two replications of one instance at once (a catch-up and the regular call): the target's ledger holds a lease
per (feed, target, instance), so exactly one copies and publishes; the other is told who holds it (exit 5) or,
taking it after the first finished, finds the instance up to date. The target equals the source every trial."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from tests.unit.replication.test_file_replication import T, contents, instance
from tests.unit.retention.retention_repo import make_repo, replication_clusters, utc
from toolkit.actions.replication.pullers import Puller
from toolkit.actions.replication.runner import ReplicationRequest, ReplicationResult, run_replication
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.control import Control
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.locks import holder_name
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError, ToolkitError
from toolkit.services.runtime.run_context import RunContext

MANY = {f"part-{k:05d}.json": bytes([65 + k % 26]) * (2000 + k) for k in range(60)}
HOLDER = re.compile(r"run (r[12]) on (\S+:\d+) \(its lease ends \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\)")


def _replicate(repo: ConfigRepo, run_id: str, start: threading.Barrier,
               outcomes: dict[str, ReplicationResult | BaseException]) -> None:
    start.wait()
    try:
        outcomes[run_id] = run_replication(repo, "clicks", "backup", ReplicationRequest(T, T),
                                           RunContext(LocalFileSystem(), run_id=run_id))
    except BaseException as err:  # noqa: BLE001 - the test inspects what each run ended with
        outcomes[run_id] = err


@pytest.mark.parametrize("trial", range(6))
def test_two_replications_of_one_instance_at_once(tmp_path: Path, trial: int) -> None:
    repo_path, primary = make_repo(tmp_path)
    source = instance(primary, "data/clicks", T, MANY)
    repo, start = ConfigRepo.load(repo_path), threading.Barrier(2)
    outcomes: dict[str, ReplicationResult | BaseException] = {}
    runs = [threading.Thread(target=_replicate, args=(repo, run_id, start, outcomes)) for run_id in ("r1", "r2")]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    target = tmp_path / "backup/replica/clicks/2026/11/21/10"
    assert contents(target) == contents(source)
    assert sorted(p.name for p in target.parent.iterdir()) == ["10"]  # no staging left by either
    published = [run_id for run_id, outcome in outcomes.items()
                 if isinstance(outcome, ReplicationResult) and outcome.counters()["instances_published"] == 1]
    assert len(published) == 1, outcomes
    other = next(outcome for run_id, outcome in outcomes.items() if run_id not in published)
    if isinstance(other, ReplicationResult):  # it took the lease after the first had finished
        assert other.status == "SUCCEEDED" and other.counters()["files_copied"] == 0
    else:
        assert isinstance(other, BlockedError), repr(other)
        holder = HOLDER.search(str(other))
        assert holder is not None and holder.groups() == (published[0], holder_name()), str(other)
        assert "instance 2026-11-21T10:00Z of feed 'clicks' into cluster 'backup'" in str(other)


def test_a_live_lease_blocks_and_names_its_holder(tmp_path: Path) -> None:
    repo_path, primary = make_repo(tmp_path)
    instance(primary, "data/clicks", T, MANY)
    repo = ConfigRepo.load(repo_path)
    lock = Ledger.of(LocalFileSystem(), repo.cluster("backup")).replication_lock("clicks", T)
    assert lock.try_acquire("other-run").taken
    with pytest.raises(BlockedError) as blocked:
        run_replication(repo, "clicks", "backup", ReplicationRequest(T, T), RunContext(LocalFileSystem(), run_id="r1"))
    assert re.search(rf"run other-run on {re.escape(holder_name())} \(its lease ends ", str(blocked.value))
    assert blocked.value.exit_code == 5
    assert not (tmp_path / "backup/replica").exists()  # nothing touched
    lock.release()
    assert run_replication(repo, "clicks", "backup", ReplicationRequest(T, T),
                           RunContext(LocalFileSystem(), run_id="r1")).status == "SUCCEEDED"


def test_a_catch_up_window_reports_a_blocked_instance_and_replicates_the_others(tmp_path: Path) -> None:
    repo_path, primary = make_repo(tmp_path)
    hours = [T.replace(hour=h) for h in (8, 9, 10)]
    for t in hours:
        instance(primary, "data/clicks", t, {"a.json": t.isoformat().encode()})
    repo = ConfigRepo.load(repo_path)
    lock = Ledger.of(LocalFileSystem(), repo.cluster("backup")).replication_lock("clicks", hours[1])
    assert lock.try_acquire("other-run").taken
    result = run_replication(repo, "clicks", "backup", ReplicationRequest(T, T, window=(hours[0], hours[2])),
                             RunContext(LocalFileSystem(), run_id="r1"))
    assert [i.status for i in result.instances] == ["SUCCEEDED", "BLOCKED", "SUCCEEDED"]
    assert result.status == "BLOCKED"
    assert any("run other-run on" in reason for reason in result.reasons())
    assert not (tmp_path / "backup/replica/clicks/2026/11/21/09").exists()


@pytest.mark.parametrize("switch", ["safemode", "suspended"])
def test_the_targets_switches_refuse_a_call_before_a_puller_connects_and_a_window_once(
        tmp_path: Path, switch: str) -> None:
    """A table feed's puller connects to every metastore when it is built (20 s each when one is down, as it often
    is while a cluster is in safemode for maintenance): the target's switches refuse the call before it, exit 5 or
    4 with one sentence, for one instance and for a catch-up window alike."""
    repo, _, _ = replication_clusters(tmp_path)
    table = repo / "feeds/clicks-daily-table.yaml"
    table.write_text(table.read_text().replace(
        "# Created once", "  - name: backup\n    type: target\n"
                          "    validity: {start: 2026-01-01T00:00Z, end: 2099-12-31T00:00Z}\n# Created once"))
    config = ConfigRepo.load(repo)
    control = Control(LocalFileSystem(), LedgerLayout.of(config.cluster("backup")))
    if switch == "safemode":
        control.set_safemode(True, "2026-11-21T00:00:00Z", "ops", "maintenance")
    else:
        control.set_suspended("feed", "clicks-daily-table", True, "2026-11-21T00:00:00Z", "ops")
    connected = []

    def tables(*args: object) -> Puller:
        connected.append(args)
        raise StorageError("The Hive metastore at thrift://127.0.0.1:9084 does not answer")

    day = utc(2026, 11, 21)
    for request in (ReplicationRequest(day, day), ReplicationRequest(day, day, window=(day.replace(day=1), day))):
        with pytest.raises(ToolkitError) as refused:
            run_replication(config, "clicks-daily-table", "backup", request, RunContext(LocalFileSystem(), "r1"),
                            tables=tables)
        assert refused.value.exit_code == (5 if switch == "safemode" else 4)
    assert connected == []
