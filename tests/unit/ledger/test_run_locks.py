"""Run-level leases (replication, retention, import) on the real local file system: the holder named in the
refusal, the lease renewed while held and released after, a killed run's expired lease taken over (and named),
a lease taken over meanwhile stopping the run at its next check, left to its new holder, and one not renewed in
time left as it was for the next run to take over."""

from __future__ import annotations

import json
import re
import threading
import time
from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import SetClock
from toolkit.core.ledger.locks import HELD, RELEASED, LeaseLock, LockLostError, holder_name
from toolkit.core.ledger.run_locks import describe_holder, holding
from toolkit.core.storage.local import LocalFileSystem, to_uri
from toolkit.errors import BlockedError

WHAT = "retention of feed 'clicks' on cluster 'primary'"


def make_lock(folder: Path, lease: float, clock: SetClock | None = None) -> LeaseLock:
    return LeaseLock(LocalFileSystem(), to_uri(str(folder)), "lock", lease,
                     clock=clock if clock is not None else time.time)


def lease_file(folder: Path, generation: int) -> dict[str, object]:
    return json.loads((folder / f"lock.{generation}").read_text())


def test_a_live_holder_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    held = make_lock(tmp_path, 60.0)
    assert held.try_acquire("run-a").taken
    with pytest.raises(BlockedError) as blocked, holding(make_lock(tmp_path, 60.0), "run-b", WHAT):
        pytest.fail("the body ran without the lease")
    assert blocked.value.exit_code == 5
    assert re.fullmatch(rf"The {re.escape(WHAT)} is being run by run run-a on {re.escape(holder_name())} \(its "
                        r"lease ends \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\): call again later\.", str(blocked.value))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["lock.0"]


def test_held_while_the_body_runs_renewed_then_released(tmp_path: Path) -> None:
    lock = make_lock(tmp_path, 0.3)  # renewed every 0.1 s
    with holding(lock, "run-a", WHAT) as held:
        first = lease_file(tmp_path, 0)["expires"]
        time.sleep(0.5)  # longer than the lease: only the renewals keep it
        assert lease_file(tmp_path, 0)["expires"] > first  # type: ignore[operator]
        assert lease_file(tmp_path, 0)["state"] == HELD and held.previous is None
        held.check()
    assert lease_file(tmp_path, 0)["state"] == RELEASED
    with holding(make_lock(tmp_path, 0.3), "run-b", WHAT) as next_one:  # the next caller takes generation 1
        assert next_one.previous is None  # a released lease is not a killed run's
    assert lease_file(tmp_path, 1)["run_id"] == "run-b"


def test_a_killed_runs_expired_lease_is_taken_over(tmp_path: Path) -> None:
    killed = make_lock(tmp_path, 0.2)
    assert killed.try_acquire("killed-run").taken  # and never renewed nor released: killed
    with pytest.raises(BlockedError, match="run killed-run on"), holding(make_lock(tmp_path, 0.2), "rerun", WHAT):
        pass
    time.sleep(0.3)
    with holding(make_lock(tmp_path, 60.0), "rerun", WHAT) as held:
        assert held.previous is not None and held.previous.run_id == "killed-run"
        assert describe_holder(held.previous).startswith(f"run killed-run on {holder_name()} (its lease ends ")
    assert lease_file(tmp_path, 1)["run_id"] == "rerun"


def test_a_lease_taken_over_meanwhile_stops_the_run_and_is_left_to_its_new_holder(tmp_path: Path) -> None:
    lost = pytest.raises(LockLostError,
                         match=rf"The lease of the {re.escape(WHAT)} is no longer this run's")
    with lost, holding(make_lock(tmp_path, 0.3), "slow-run", WHAT) as held:
        later = SetClock(time.time() + 3600)  # a run whose clock is past our expiry takes it over
        assert make_lock(tmp_path, 0.3, later).try_acquire("new-run").taken
        deadline = time.monotonic() + 5
        while not held.keeper.lost.is_set() and time.monotonic() < deadline:
            time.sleep(0.02)
        held.check()
    assert lease_file(tmp_path, 1)["run_id"] == "new-run" and lease_file(tmp_path, 1)["state"] == HELD
    assert lease_file(tmp_path, 0)["state"] == HELD  # ours is not rewritten once lost


def test_a_lease_not_renewed_in_time_is_left_as_it_was_for_the_next_run_to_take_over(tmp_path: Path) -> None:
    """A run whose lease ran short (its storage did not answer its renewals) stops at its check and writes nothing
    more, not even the release: the next caller takes the lease over once it expired and so learns that a run died
    there (`previous`), whose records it closes (a process instance's attempt: KILLED)."""
    clock = SetClock(time.time())
    with pytest.raises(LockLostError, match="not renewed in time"), \
            holding(make_lock(tmp_path, 60.0, clock), "stalled-run", WHAT) as held:
        clock.advance(59)  # no renewal came in a minute: the lease is about to end
        held.check()
    assert lease_file(tmp_path, 0)["state"] == HELD and lease_file(tmp_path, 0)["run_id"] == "stalled-run"
    clock.advance(2)
    with holding(make_lock(tmp_path, 60.0, clock), "next-run", WHAT) as taken_over:
        assert taken_over.previous is not None and taken_over.previous.run_id == "stalled-run"


def test_an_inner_locks_loss_still_releases_the_lease_this_run_holds(tmp_path: Path) -> None:
    """A body that stops on another lock's loss (a roll-up's instance lock, a table replication's import lease)
    releases the outer lease, which is still its own: the next caller is not refused until it expires."""
    with pytest.raises(LockLostError, match="inner"), holding(make_lock(tmp_path, 60.0), "run-a", WHAT):
        raise LockLostError("The lock of an inner instance was taken over by another run (inner).")
    assert lease_file(tmp_path, 0)["state"] == RELEASED
    with holding(make_lock(tmp_path, 60.0), "run-b", WHAT) as next_one:
        assert next_one.previous is None


def test_an_empty_lease_file_is_named_once_written(tmp_path: Path) -> None:
    """A caller reading the lease file between its creation and its write waits a moment for the name."""
    (tmp_path / "lock.0").write_bytes(b"")
    writer = make_lock(tmp_path, 60.0)

    def write_soon() -> None:
        time.sleep(0.2)
        (tmp_path / ".lock.0.tmp").write_text(json.dumps({"run_id": "slow-writer", "holder": "h:1",
                                                          "expires": time.time() + 60, "state": HELD}))
        (tmp_path / ".lock.0.tmp").replace(tmp_path / "lock.0")

    thread = threading.Thread(target=write_soon)
    thread.start()
    with pytest.raises(BlockedError, match=r"being run by run slow-writer on h:1 "), holding(writer, "run-b", WHAT):
        pass
    thread.join()
