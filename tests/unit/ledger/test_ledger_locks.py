"""Lease locks on the real local file system: generation files, expiry, release, renewal, takeover of a killed
run's lock, damaged and empty generation files, a race of threads, and the background keeper."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import SetClock
from toolkit.core.ledger.kill_requests import RunKilledError
from toolkit.core.ledger.locks import (
    HELD,
    RELEASED,
    SKEW_SHARE,
    Acquired,
    Lease,
    LeaseDetails,
    LeaseKeeper,
    LeaseLock,
    LockLostError,
    holder_name,
)
from toolkit.core.ledger.records import CorruptRecordError, wall_clock_stamp
from toolkit.core.storage.filesystem import FileStatus, StorageError
from toolkit.core.storage.local import LocalFileSystem, to_uri
from toolkit.core.storage.publish import Publication

LEASE = 60.0


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "ledger" / "processes" / "p" / "20261121T1000Z"


@pytest.fixture
def clock() -> SetClock:
    return SetClock(1_790_000_000.0)


def make_lock(folder: Path, clock: SetClock | None = None, fs: LocalFileSystem | None = None,
              lease: float = LEASE) -> LeaseLock:
    return LeaseLock(fs or LocalFileSystem(), to_uri(str(folder)), "lock", lease,
                     clock=clock if clock is not None else time.time)


def generation_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if not p.name.startswith(".")) if folder.exists() else []


def content(folder: Path, generation: int) -> dict[str, object]:
    return json.loads((folder / f"lock.{generation}").read_text())


def test_acquire_when_free_creates_generation_zero(folder: Path, clock: SetClock) -> None:
    lock = make_lock(folder, clock)
    assert lock.current() is None  # never taken: not even its folder exists

    outcome = lock.try_acquire("run-a", LeaseDetails(time="2026-11-21T10:00Z", attempt=1))

    assert outcome.taken is True
    assert outcome.holder is None and outcome.previous is None
    assert lock.generation == 0
    assert generation_files(folder) == ["lock.0"]
    expires = clock.now + LEASE
    assert content(folder, 0) == {
        "run_id": "run-a", "holder": holder_name(), "expires": expires, "state": HELD,
        "details": {"time": "2026-11-21T10:00Z", "attempt": 1}, "expires_at": wall_clock_stamp(expires),
        "format_version": 1,
    }
    assert holder_name() == f"{socket.gethostname()}:{os.getpid()}"
    details = LeaseDetails(time="2026-11-21T10:00Z", attempt=1)
    assert lock.current() == Lease("run-a", holder_name(), expires, HELD, details)
    assert lock.still_ours() is True


def test_second_caller_is_refused_while_the_lease_is_live(folder: Path, clock: SetClock) -> None:
    first = make_lock(folder, clock)
    assert first.try_acquire("run-a").taken
    clock.advance(LEASE - 1)  # one second before expiry

    second = make_lock(folder, clock)
    outcome = second.try_acquire("run-b")

    assert outcome.taken is False
    assert outcome.holder == first.lease
    assert outcome.holder is not None and outcome.holder.run_id == "run-a"
    assert outcome.previous is None
    assert second.generation is None and second.still_ours() is False
    assert generation_files(folder) == ["lock.0"]
    assert content(folder, 0)["run_id"] == "run-a"


def test_after_expiry_the_next_caller_takes_generation_one(folder: Path, clock: SetClock) -> None:
    first = make_lock(folder, clock)
    first.try_acquire("run-a", LeaseDetails(attempt=1))
    expired = first.lease
    clock.advance(LEASE)  # expires == now: no longer live

    second = make_lock(folder, clock)
    outcome = second.try_acquire("run-b")

    assert outcome.taken is True
    assert outcome.previous == expired
    assert outcome.previous is not None and outcome.previous.run_id == "run-a"
    assert second.generation == 1
    assert generation_files(folder) == ["lock.0", "lock.1"]  # generation 0 kept while it is recent
    assert content(folder, 1)["run_id"] == "run-b"
    assert content(folder, 1)["expires"] == clock.now + LEASE
    assert first.still_ours() is False


def test_after_release_the_next_caller_takes_the_following_generation(folder: Path, clock: SetClock) -> None:
    first = make_lock(folder, clock)
    first.try_acquire("run-a")
    first.release()

    assert content(folder, 0)["state"] == RELEASED
    assert content(folder, 0)["run_id"] == "run-a"
    assert first.generation is None and first.lease is None
    assert first.still_ours() is False and first.renew() is False

    second = make_lock(folder, clock)
    outcome = second.try_acquire("run-b")  # the lease is not expired, but released

    assert outcome.taken is True
    assert outcome.previous is None  # a released lock is no killed run
    assert second.generation == 1
    assert generation_files(folder) == ["lock.0", "lock.1"]
    assert content(folder, 1)["state"] == HELD


def test_renew_pushes_the_expiry(folder: Path, clock: SetClock) -> None:
    lock = make_lock(folder, clock)
    lock.try_acquire("run-a", LeaseDetails(time="2026-11-21T10:00Z"))
    clock.advance(30)

    assert lock.renew() is True

    assert content(folder, 0)["expires"] == clock.now + LEASE
    assert content(folder, 0)["expires_at"] == wall_clock_stamp(clock.now + LEASE)
    assert content(folder, 0)["details"] == {"time": "2026-11-21T10:00Z"}
    assert lock.lease is not None and lock.lease.expires == clock.now + LEASE
    # renewed: still held 59 s after the renewal, which would be past the first expiry
    clock.advance(LEASE - 1)
    assert make_lock(folder, clock).try_acquire("run-b").taken is False


def test_renew_writes_nothing_once_another_run_took_a_higher_generation(folder: Path, clock: SetClock) -> None:
    slow = make_lock(folder, clock)
    slow.try_acquire("run-a")
    clock.advance(LEASE + 5)
    other = make_lock(folder, clock)
    assert other.try_acquire("run-b").taken
    before = (folder / "lock.1").read_bytes()

    assert slow.still_ours() is False
    assert slow.renew() is False
    slow.release()  # a lost lock is left alone

    assert content(folder, 0)["run_id"] == "run-a"  # generation 0 was not written again
    assert (folder / "lock.1").read_bytes() == before
    assert other.still_ours() is True


def test_an_empty_generation_file_holds_until_a_lease_after_its_mtime(folder: Path) -> None:
    folder.mkdir(parents=True)
    empty = folder / "lock.0"
    empty.write_bytes(b"")  # a creator killed between create and write
    now = float(int(time.time()))
    os.utime(empty, (now - 30, now - 30))
    clock = SetClock(now)

    refused = make_lock(folder, clock).try_acquire("run-b")

    assert refused.taken is False
    assert refused.holder is not None
    assert refused.holder.run_id == "unknown"
    assert refused.holder.state == HELD
    assert refused.holder.expires == now - 30 + LEASE

    os.utime(empty, (now - LEASE - 1, now - LEASE - 1))
    taker = make_lock(folder, clock)
    taken = taker.try_acquire("run-b")

    assert taken.taken is True
    assert taken.previous is not None and taken.previous.run_id == "unknown"
    assert taken.previous.expires == now - 1
    assert taker.generation == 1
    assert generation_files(folder) == ["lock.0", "lock.1"]


@pytest.mark.parametrize("data", [b"not json at all", b'{"run_id": "a"}', b"[1, 2]",
                                  b'{"run_id": "a", "holder": "h", "expires": "soon", "state": "HELD"}',
                                  # an expiry no clock reaches, or past year 9999: not a lease (found by an attack)
                                  *(b'{"run_id": "a", "holder": "h", "expires": %s, "state": "HELD"}' % value
                                    for value in (b"NaN", b"-1e13", b"1e18", b"1e400", b"-1e400"))])
def test_a_damaged_generation_file_raises_naming_its_path(folder: Path, clock: SetClock, data: bytes) -> None:
    folder.mkdir(parents=True)
    (folder / "lock.0").write_bytes(data)
    path = to_uri(str(folder / "lock.0"))

    with pytest.raises(CorruptRecordError) as raised:
        make_lock(folder, clock).try_acquire("run-b")

    assert raised.value.path == path
    assert path in str(raised.value)
    assert "not a lock lease" in str(raised.value)
    assert raised.value.exit_code == 1
    assert (folder / "lock.0").read_bytes() == data  # nothing taken over, nothing deleted
    assert generation_files(folder) == ["lock.0"]


def test_only_numbered_files_of_the_lock_count_as_generations(folder: Path, clock: SetClock) -> None:
    folder.mkdir(parents=True)
    for name in ("lock.x", "lock.", "locks.3", "other.7", "instance.json"):
        (folder / name).write_text("whatever")
    (folder / "lock.5").mkdir()  # a folder is no generation

    lock = make_lock(folder, clock)
    assert lock.generations() == []
    outcome = lock.try_acquire("run-a")

    assert outcome.taken and lock.generation == 0
    assert (folder / "lock.x").read_text() == "whatever"
    assert [g for g, _ in lock.generations()] == [0]


# superscript two, Arabic-Indic one, fullwidth one: digits to str.isdigit, and the last two to int()
@pytest.mark.parametrize("name", ["lock.\u00b2", "lock.\u0661", "lock.\uff11"])
def test_a_name_of_digits_other_than_ascii_ones_is_no_generation(folder: Path, clock: SetClock, name: str) -> None:
    folder.mkdir(parents=True)
    (folder / name).write_text("whatever")

    lock = make_lock(folder, clock)
    assert lock.generations() == []
    assert lock.try_acquire("run-a").taken and lock.generation == 0
    assert (folder / name).read_text() == "whatever"


def test_a_folder_where_the_next_generation_file_belongs_is_a_damaged_ledger(folder: Path, clock: SetClock) -> None:
    (folder / "lock.0").mkdir(parents=True)
    path = to_uri(str(folder / "lock.0"))

    with pytest.raises(CorruptRecordError) as raised:
        make_lock(folder, clock).try_acquire("run-a")

    assert (raised.value.path, raised.value.exit_code) == (path, 1)
    assert "a folder stands where the lock's generation file belongs" in str(raised.value)
    assert (folder / "lock.0").is_dir()  # nothing deleted


def test_generations_use_a_given_listing(folder: Path, clock: SetClock) -> None:
    lock = make_lock(folder, clock)
    base = to_uri(str(folder))
    listing = [FileStatus(f"{base}/lock.10", 5, 0, False), FileStatus(f"{base}/lock.2", 5, 0, False),
               FileStatus(f"{base}/lock.3", 0, 0, True)]
    assert [g for g, _ in lock.generations(listing)] == [2, 10]  # by number, not by name


def race(folder: Path, clock: SetClock) -> tuple[dict[str, tuple[Acquired, LeaseLock]], list[BaseException]]:
    """8 threads call try_acquire on the lock in `folder` at once: each one's outcome, and what they raised."""
    barrier = threading.Barrier(8)
    outcomes: dict[str, tuple[Acquired, LeaseLock]] = {}
    errors: list[BaseException] = []

    def contend(run_id: str) -> None:
        lock = make_lock(folder, clock)
        barrier.wait()
        try:
            outcomes[run_id] = (lock.try_acquire(run_id), lock)
        except Exception as err:  # noqa: BLE001 - reported by the test
            errors.append(err)

    threads = [threading.Thread(target=contend, args=(f"run-{i}",)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return outcomes, errors


def test_of_eight_threads_at_once_exactly_one_takes_a_free_lock(folder: Path, clock: SetClock) -> None:
    outcomes, errors = race(folder, clock)

    assert errors == []
    winners = [run_id for run_id, (outcome, _) in outcomes.items() if outcome.taken]
    assert len(outcomes) == 8
    assert len(winners) == 1
    assert generation_files(folder) == ["lock.0"]
    assert content(folder, 0)["run_id"] == winners[0]
    for run_id, (outcome, lock) in outcomes.items():
        if run_id != winners[0]:
            assert lock.generation is None
            # a loser reads the winner's lease, or its empty file if it looked between create and write
            assert outcome.holder is not None and outcome.holder.run_id in (winners[0], "unknown")
            assert outcome.holder.live(clock.now)


def test_of_eight_threads_at_once_exactly_one_takes_over_an_expired_lock(tmp_path: Path) -> None:
    # the race is lost in about one round in seven here: 200 rounds make it certain, and cost ~1 s once fixed
    for round_ in range(200):
        folder, clock = tmp_path / f"round-{round_}", SetClock()
        make_lock(folder, clock).try_acquire("killed")
        clock.advance(LEASE * 2)

        outcomes, errors = race(folder, clock)

        taken = [(run_id, outcome, lock) for run_id, (outcome, lock) in outcomes.items() if outcome.taken]
        described = [(run_id, lock.generation, lock.still_ours()) for run_id, _, lock in taken]
        assert errors == [], f"round {round_}: {errors}"
        assert len(taken) == 1, f"round {round_}: {described}, files {generation_files(folder)}"
        assert taken[0][1].previous is not None and taken[0][1].previous.run_id == "killed"
        assert generation_files(folder)[-1] == "lock.1"
        assert content(folder, 1)["run_id"] == taken[0][0]


class VanishingFileSystem(LocalFileSystem):
    """The local file system where `vanish` is deleted (once) between the listing of its folder and the look at
    the file: the winner of a takeover deleting the old generation while another caller lists the lock."""

    def __init__(self, vanish: Path) -> None:
        self.vanish: Path | None = vanish

    def _status(self, local: str) -> FileStatus:
        if self.vanish is not None and local == str(self.vanish):
            self.vanish.unlink()
            self.vanish = None
        return super()._status(local)


def test_a_generation_deleted_while_a_caller_lists_the_lock(folder: Path, clock: SetClock) -> None:
    make_lock(folder, clock).try_acquire("killed")
    expired = (folder / "lock.0").read_bytes()
    clock.advance(LEASE * 2)
    assert make_lock(folder, clock).try_acquire("run-b").taken  # generation 1
    (folder / "lock.0").write_bytes(expired)  # as it was when the caller below starts listing

    late = make_lock(folder, clock, fs=VanishingFileSystem(folder / "lock.0"))
    outcome = late.try_acquire("run-c")

    assert outcome.taken is False
    assert outcome.holder is not None and outcome.holder.run_id == "run-b"


class InterleavingFileSystem(LocalFileSystem):
    """The local file system, running `hook` (once) right after the next listing: another run's steps
    happen between a caller's look at the lock and its attempt to take it."""

    def __init__(self) -> None:
        self.hook = None

    def list(self, path: str) -> list[FileStatus]:
        listing = super().list(path)
        hook, self.hook = self.hook, None
        if hook is not None:
            hook()
        return listing


def test_a_slow_caller_does_not_take_a_lock_held_at_a_higher_generation(folder: Path, clock: SetClock) -> None:
    make_lock(folder, clock).try_acquire("killed")  # generation 0, then its run dies
    clock.advance(LEASE * 2)
    holders: dict[str, LeaseLock] = {}

    def two_runs_meanwhile() -> None:
        second = make_lock(folder, clock)
        assert second.try_acquire("run-b").taken  # generation 1 (0 deleted)
        second.release()
        third = make_lock(folder, clock)
        assert third.try_acquire("run-c").taken  # generation 2 (1 deleted), held live
        holders["run-c"] = third

    fs = InterleavingFileSystem()
    fs.hook = two_runs_meanwhile
    slow = make_lock(folder, clock, fs=fs)
    outcome = slow.try_acquire("run-x")  # it saw generation 0 only

    assert holders["run-c"].still_ours() is True
    assert outcome.taken is False
    assert outcome.holder is not None and outcome.holder.run_id == "run-c"


def test_keeper_renews_while_the_run_works(folder: Path) -> None:
    lock = make_lock(folder, lease=30.0)  # the real clock
    lock.try_acquire("run-a")
    first_expiry = content(folder, 0)["expires"]
    assert isinstance(first_expiry, float)

    with LeaseKeeper([lock], interval=0.05) as keeper:
        deadline = time.monotonic() + 5
        while content(folder, 0)["expires"] == first_expiry and time.monotonic() < deadline:
            time.sleep(0.02)
        assert keeper.lost.is_set() is False

    renewed = content(folder, 0)
    assert renewed["expires"] > first_expiry  # type: ignore[operator]
    assert renewed["run_id"] == "run-a" and renewed["state"] == HELD
    assert lock.lease is not None and lock.lease.expires == renewed["expires"]


def test_keeper_sets_lost_when_the_lock_was_taken_over(folder: Path) -> None:
    lock = make_lock(folder, lease=30.0)
    lock.try_acquire("run-a")

    with LeaseKeeper([lock], interval=0.05) as keeper:
        # another run whose clock is past our expiry takes the lock over
        later = SetClock(time.time() + 3600)
        assert make_lock(folder, later).try_acquire("run-b").taken
        assert keeper.lost.wait(5) is True

    assert generation_files(folder)[-1] == "lock.1"
    assert content(folder, 1)["run_id"] == "run-b"


def test_keeper_stops_the_run_when_asked_and_ensure_held_refuses(folder: Path) -> None:
    """`toolkit kill`'s request, read at each renewal: `on_stop` runs, `ensure_held` raises RunKilledError."""
    lock = make_lock(folder, lease=30.0)
    lock.try_acquire("run-a")
    asked: list[str] = []
    stops: list[int] = []

    def stop_when() -> str | None:
        return asked[0] if asked else None

    with LeaseKeeper([lock], interval=0.02, stop_when=stop_when, on_stop=lambda: stops.append(1)) as keeper:
        keeper.ensure_held()  # not asked yet
        time.sleep(0.1)
        assert not keeper.killed.is_set() and stops == []
        asked.append("killed by op@host at 2026-11-21T10:05:00Z")
        assert keeper.killed.wait(5) is True  # the renewal thread read it
        with pytest.raises(RunKilledError, match="^The run was killed by op@host at 2026-11-21T10:05:00Z; it "
                                                 "publishes nothing.$"):
            keeper.ensure_held()
    assert stops and not keeper.lost.is_set()
    assert content(folder, 0)["run_id"] == "run-a"  # the lock itself is still ours


def test_keeper_stops_again_at_each_renewal_what_the_run_started_after_the_kill(folder: Path) -> None:
    """A kill that lands between two Spark jobs of a workflow cancels nothing (no job runs): the next job must be
    cancelled too, so `on_stop` is called at every renewal while the run goes on, not once."""
    lock = make_lock(folder, lease=30.0)
    lock.try_acquire("run-a")
    stops: list[float] = []
    with LeaseKeeper([lock], interval=0.02, stop_when=lambda: "killed by op",
                     on_stop=lambda: stops.append(time.monotonic())) as keeper:
        assert keeper.killed.wait(5) is True
        deadline = time.monotonic() + 5
        while len(stops) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
    assert len(stops) >= 3


def test_a_cancel_that_fails_does_not_stop_the_renewals(folder: Path) -> None:
    lock = make_lock(folder, lease=30.0)
    lock.try_acquire("run-a")

    def cancel() -> None:
        raise RuntimeError("py4j is gone")

    with LeaseKeeper([lock], interval=0.02, stop_when=lambda: "killed by op", on_stop=cancel) as keeper:
        assert keeper.killed.wait(5) is True
        first = content(folder, 0)["expires"]
        deadline = time.monotonic() + 5
        while content(folder, 0)["expires"] == first and time.monotonic() < deadline:
            time.sleep(0.02)
        assert content(folder, 0)["expires"] != first  # still renewed after the failed cancel


def test_generations_ten_leases_old_are_deleted_by_the_next_winner(folder: Path, clock: SetClock) -> None:
    make_lock(folder, clock).try_acquire("killed")
    clock.advance(LEASE * 2)
    assert make_lock(folder, clock).try_acquire("run-b").taken
    old = time.time() - 11 * LEASE
    os.utime(folder / "lock.0", (old, old))
    clock.advance(LEASE * 2)
    assert make_lock(folder, clock).try_acquire("run-c").taken
    assert generation_files(folder) == ["lock.1", "lock.2"]  # lock.0 was old; lock.1 is recent


class OutageFileSystem(LocalFileSystem):
    """The real local file system whose writes fail while `down` is set: a storage outage seen by one holder."""

    def __init__(self) -> None:
        self.down = False

    def write_atomically(self, path: str, data: bytes) -> None:
        if self.down:
            raise StorageError(f"Cannot write {path}: injected outage.")
        super().write_atomically(path, data)


def test_a_holder_not_renewed_within_its_lease_counts_itself_lost(folder: Path, clock: SetClock) -> None:
    fs = OutageFileSystem()
    lock = make_lock(folder, clock, fs=fs)
    lock.try_acquire("run-a")
    lock.ensure_held()  # freshly taken: held
    fs.down = True
    clock.advance(LEASE / 2)
    with pytest.raises(StorageError):
        lock.renew()  # the outage: the expiry in the file stays where it was
    lock.ensure_held()  # half a lease without renewal: still within the lease, minus the skew it tolerates
    clock.advance(LEASE / 2 - SKEW_SHARE * LEASE + 1)

    with pytest.raises(LockLostError) as raised:
        lock.ensure_held()  # nobody took it yet, but it may be taken by now: counted lost

    assert raised.value.exit_code == 1
    assert to_uri(str(folder / "lock.0")) in str(raised.value) and "run-a" in str(raised.value)
    assert "\n" not in str(raised.value)
    assert generation_files(folder) == ["lock.0"]


def test_storage_outage_longer_than_the_lease_a_second_run_takes_the_lock_the_first_publishes_nothing(
        folder: Path, clock: SetClock, tmp_path: Path) -> None:
    fs = OutageFileSystem()
    first = make_lock(folder, clock, fs=fs)
    assert first.try_acquire("run-a").taken
    target, staging = tmp_path / "data/2026/11/21/10", tmp_path / "data/2026/11/21/.10.staging"
    (target).mkdir(parents=True)
    (target / "part-0").write_text("published before")
    staging.mkdir()
    (staging / "part-0").write_text("run-a's result")

    with LeaseKeeper([first], interval=0.01) as keeper:
        fs.down = True  # every renewal of run-a fails from now on
        time.sleep(0.05)
        clock.advance(LEASE + 1)  # the outage lasts longer than the lease
        second = make_lock(folder, clock)  # another run, on storage that works
        assert second.try_acquire("run-b").taken
        fs.down = False  # the outage ends; run-a goes on to publish before its keeper looks again
        with pytest.raises(LockLostError), Publication(fs, guard=keeper.ensure_held) as publication:
            publication.swap(to_uri(str(staging)), to_uri(str(target)), to_uri(str(tmp_path / "data/aside")))

    assert (target / "part-0").read_text() == "published before"
    assert (staging / "part-0").read_text() == "run-a's result"
    assert not (tmp_path / "data/aside").exists()
    assert content(folder, 1)["run_id"] == "run-b" and second.still_ours()


def test_keeper_ensure_held_raises_once_a_renewal_found_the_lock_taken(folder: Path) -> None:
    lock = make_lock(folder, lease=30.0)
    lock.try_acquire("run-a")

    with LeaseKeeper([lock], interval=0.05) as keeper:
        keeper.ensure_held()
        assert make_lock(folder, SetClock(time.time() + 3600)).try_acquire("run-b").taken
        assert keeper.lost.wait(5) is True
        with pytest.raises(LockLostError):
            keeper.ensure_held()


LEASE_FILE = Path(__file__).parent / "lock_files" / "lease.json"  # a generation file as the toolkit wrote it


def test_a_generation_file_of_the_hand_written_codec_reads_and_writes_byte_for_byte_through_the_record_codec() -> None:
    lease = Lease.parse(LEASE_FILE.read_bytes(), str(LEASE_FILE))
    assert lease == Lease("20261121T100000-ab12", "scheduler-1:4242", 1795255260.5, HELD,
                          LeaseDetails(time="2026-11-21T10:00Z", attempt=2))
    assert lease.to_json() == LEASE_FILE.read_bytes()


@pytest.mark.parametrize(("field", "value", "why"), [
    ("state", "TAKEN", "the field 'state' is 'TAKEN', not one of HELD, RELEASED"),
    ("run_id", None, "the field 'run_id' is None, not a text"),
    ("holder", 7, "the field 'holder' is 7, not a text"),
])
def test_a_lease_field_of_the_wrong_kind_is_named(field: str, value: object, why: str) -> None:
    document = {**json.loads(LEASE_FILE.read_bytes()), field: value}
    with pytest.raises(CorruptRecordError) as raised:
        Lease.parse(json.dumps(document).encode(), "file:///l/lock.3")
    assert f"not a lock lease: {why}" in str(raised.value) and raised.value.path == "file:///l/lock.3"
