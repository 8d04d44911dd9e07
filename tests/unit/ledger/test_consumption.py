"""A batch consumer's queue (toolkit/core/ledger/consumption.py) on real files: plans of exact event ids created
exclusively, leases, commits, replays after a kill, events written out of id order, and a property test of
interleaved publications, plans, commits and kills: every event ends in exactly one committed plan."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import signal
import tempfile
import time
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.unit.ledger.ledger_support import SetClock, local_cluster
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.consumption import ConsumerQueue, Plan
from toolkit.core.ledger.journal import JournalEntry
from toolkit.core.ledger.locks import LockLostError
from toolkit.core.ledger.records import (
    CorruptRecordError,
    DatasetEvent,
    PublicationFacts,
    event_id,
    event_id_ms,
    to_json,
)
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem

UTC = timezone.utc
BASE = datetime(2026, 11, 21, tzinfo=UTC)
PRINT = Fingerprint("d", 1, 1)


def hour(k: int) -> datetime:
    return BASE + timedelta(hours=k)


def open_ledger(root: Path, clock: SetClock | None = None, lease: float = 60.0) -> Ledger:
    """The ledger of a cluster rooted in `root` (each caller, a child process too, loads its own config)."""
    cluster = local_cluster(root / f"conf-{os.getpid()}-{time.monotonic_ns()}", root / "root")
    return Ledger.of(LocalFileSystem(), cluster, lease_seconds=lease, clock=clock)


def publish(ledger: Ledger, feed: str, k: int, run_id: str = "producer") -> DatasetEvent:
    event = ledger.record_publication(PublicationFacts(feed, "primary", hour(k), producer="external", run_id=run_id,
                                                       location=f"file:///d/{feed}/{k}",
                                                       fingerprint=replace(PRINT, digest=run_id)))
    assert event is not None
    return event


def write_as_of(ledger: Ledger, feed: str, k: int, ms: int, run_id: str) -> DatasetEvent:
    """What a producer stalled after stamping its id at `ms` writes later: its event file, then its entry."""
    stamp = f"{hour(k):%Y-%m-%dT%H:%MZ}"
    event = DatasetEvent(feed=feed, cluster="primary", time=stamp, run_id=run_id, producer="external",
                         location=f"file:///d/{feed}/{k}", published="2026-11-22T10:00:00Z",
                         fingerprint=PRINT, event_id=event_id(ms, run_id, feed, stamp, "published"))
    ledger.fs.write_atomically(ledger.layout.event_record(feed, hour(k), event.event_id), to_json(event))
    ledger.journal.write(event)
    return event


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return open_ledger(tmp_path, SetClock(time.time()))


def test_plans_take_the_oldest_pending_events_and_a_commit_consumes_them(ledger: Ledger) -> None:
    events = sorted((publish(ledger, "clicks", k) for k in range(5)), key=lambda e: e.event_id)
    publish(ledger, "other", 0)  # not an input of the consumer
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    assert [e.event_id for e in queue.pending()] == [e.event_id for e in events]

    outcome = queue.create_plan("sweep-1", max_batch=2)
    assert outcome is not None and outcome.created
    plan = outcome.plan
    assert (plan.seq, plan.run_id, sorted(plan.event_ids)) == (1, "sweep-1", [e.event_id for e in events[:2]])
    assert [e.time for e in plan.entries] == [hour(int(e.location.rsplit("/", 1)[1])) for e in events[:2]]
    assert [e.event_id for e in queue.pending()] == [e.event_id for e in events[2:]]
    assert queue.open_plan() == plan

    claim = queue.claim("run-1")
    assert claim is not None and claim.plan == plan and claim.previous is None
    assert [e.location for e in queue.events(plan)] == [e.location for e in events[:2]]
    assert queue.claim("run-2") is None  # the only open plan is held
    commit = queue.commit(claim)
    assert (commit.seq, commit.run_id) == (1, "run-1")
    assert queue.open_plan() is None and queue.claim("run-2", seq=1) is None
    assert [b.state for b in queue.batches()] == ["consumed"]

    rest = queue.create_plan("sweep-2")
    assert rest is not None and rest.plan.seq == 2 and len(rest.plan.events) == 3
    assert queue.pending() == [] and queue.create_plan("sweep-3") is None


def test_the_cut_and_ordered(ledger: Ledger) -> None:
    [publish(ledger, "clicks", k) for k in range(4)]
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    first = queue.create_plan("s", cut=hour(1), ordered=True)
    assert first is not None and sorted(e.time for e in first.plan.entries) == [hour(0), hour(1)]
    # ordered: no new plan while one is open; the open one is said
    again = queue.create_plan("s", ordered=True)
    assert again is not None and not again.created and again.plan == first.plan
    unordered = queue.create_plan("s", cut=hour(2))
    assert unordered is not None and unordered.created and [e.time for e in unordered.plan.entries] == [hour(2)]
    assert [p.seq for p in queue.open_plans()] == [1, 2]
    with pytest.raises(ValueError):
        queue.create_plan("s", max_batch=0)


def test_a_failed_run_gives_its_plan_back_and_the_next_run_replays_it(ledger: Ledger) -> None:
    [publish(ledger, "clicks", k) for k in range(2)]
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    created = queue.create_plan("s")
    assert created is not None
    claim = queue.claim("run-1")
    assert claim is not None
    queue.release(claim)
    replay = queue.claim("run-2")
    assert replay is not None and replay.plan == created.plan and replay.previous is None


def test_a_lost_lease_commits_nothing(tmp_path: Path) -> None:
    clock = SetClock(time.time())
    ledger = open_ledger(tmp_path, clock, lease=10.0)
    publish(ledger, "clicks", 0)
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    queue.create_plan("s")
    claim = queue.claim("slow")
    assert claim is not None
    clock.advance(11)  # the slow run did not renew: another run takes the plan over
    other = queue.claim("other")
    assert other is not None and other.previous is not None and other.previous.run_id == "slow"
    with pytest.raises(LockLostError):
        queue.commit(claim)
    assert queue.commit(other).run_id == "other"
    assert [b.commit.run_id for b in queue.batches() if b.commit] == ["other"]


class MeetingQueue(ConsumerQueue):
    """A consumer queue whose plan creation waits at a barrier: every racer has read the same plans and pending
    events before any of them creates plan 1 (the real exclusive create then decides)."""

    def __init__(self, *args, barrier, **kwargs) -> None:  # noqa: ANN001, ANN002, ANN003
        super().__init__(*args, **kwargs)
        self.barrier = barrier

    def _create(self, path: str, data: bytes) -> bool:
        if self.barrier is not None and "/plans/" in path:
            self.barrier.wait(30)
            self.barrier = None
        return super()._create(path, data)


def _race(root: str, barrier, results, name: str) -> None:  # noqa: ANN001
    queue = MeetingQueue(open_ledger(Path(root)), "loader", ["clicks"], barrier=barrier)
    outcome = queue.create_plan(name)
    assert outcome is not None
    results.put((name, outcome.created, outcome.plan.seq, outcome.plan.run_id))


def test_two_processes_racing_create_one_plan_and_the_loser_learns_who(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path)
    events = [publish(ledger, "clicks", k) for k in range(4)]
    context = multiprocessing.get_context("fork")
    barrier, results = context.Barrier(2), context.Queue()
    racers = [context.Process(target=_race, args=(str(tmp_path), barrier, results, n)) for n in ("a", "b")]
    for racer in racers:
        racer.start()
    outcomes = sorted(results.get(timeout=30) for _ in range(2))
    [racer.join(30) for racer in racers]
    assert [racer.exitcode for racer in racers] == [0, 0]
    # both created plan 1 from the same view: one did, the other was told who did
    assert sorted(created for _, created, _, _ in outcomes) == [False, True]
    winner = next(name for name, created, _, _ in outcomes if created)
    assert {(seq, made_by) for _, _, seq, made_by in outcomes} == {(1, winner)}
    [plan] = ConsumerQueue(ledger, "loader", ["clicks"]).plans()
    assert sorted(plan.event_ids) == sorted(e.event_id for e in events)


def _sweep(root: str, barrier, name: str) -> None:  # noqa: ANN001
    queue = ConsumerQueue(open_ledger(Path(root)), "loader", ["clicks"])
    barrier.wait(30)
    while queue.create_plan(name, max_batch=3) is not None:
        pass


def test_many_racing_sweeps_plan_every_event_exactly_once(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path)
    events = [publish(ledger, "clicks", k) for k in range(40)]
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(4)
    racers = [context.Process(target=_sweep, args=(str(tmp_path), barrier, f"s{n}")) for n in range(4)]
    for racer in racers:
        racer.start()
    [racer.join(120) for racer in racers]
    assert [racer.exitcode for racer in racers] == [0] * 4
    plans = ConsumerQueue(ledger, "loader", ["clicks"]).plans()
    planned = [i for plan in plans for i in plan.event_ids]
    assert sorted(planned) == sorted(e.event_id for e in events)  # each exactly once
    assert [plan.seq for plan in plans] == list(range(1, len(plans) + 1))


def _claim_and_hang(root: str, ready) -> None:  # noqa: ANN001
    queue = ConsumerQueue(open_ledger(Path(root), lease=1.0), "loader", ["clicks"])
    claim = queue.claim("doomed")
    assert claim is not None
    ready.set()
    time.sleep(600)


def test_a_run_killed_holding_its_plan_is_replayed_exactly_once_after_its_lease(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path, lease=1.0)
    events = [publish(ledger, "clicks", k) for k in range(3)]
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    planned = queue.create_plan("sweep")
    assert planned is not None
    context = multiprocessing.get_context("fork")
    ready = context.Event()
    child = context.Process(target=_claim_and_hang, args=(str(tmp_path), ready))
    child.start()
    assert ready.wait(30)
    assert queue.claim("too-early") is None  # held by a live run
    [batch] = queue.batches()
    assert batch.state == "claimed" and batch.lease is not None and batch.lease.run_id == "doomed"
    os.kill(child.pid or 0, signal.SIGKILL)
    child.join(30)
    assert child.exitcode == -signal.SIGKILL
    time.sleep(1.2)  # its lease expires: nobody renews it
    replay = queue.claim("next")
    assert replay is not None and replay.previous is not None and replay.previous.run_id == "doomed"
    assert replay.plan == planned.plan and sorted(replay.plan.event_ids) == sorted(e.event_id for e in events)
    commit = queue.commit(replay)
    assert commit.run_id == "next"
    assert queue.claim("after") is None and queue.create_plan("sweep") is None
    assert [(b.plan.seq, b.state) for b in queue.batches()] == [(1, "consumed")]


def test_an_event_written_after_a_newer_one_was_planned_is_planned_once(ledger: Ledger) -> None:
    queue = ConsumerQueue(ledger, "loader", ["clicks"], lag=timedelta(minutes=10))
    now_ms = int(time.time() * 1000)
    newer = write_as_of(ledger, "clicks", 1, now_ms, "fast")
    first = queue.create_plan("s")
    assert first is not None and first.plan.event_ids == {newer.event_id}
    assert queue.cursor().position == newer.event_id
    # a slower producer stamped its id two minutes before, and writes only now
    older = write_as_of(ledger, "clicks", 0, now_ms - 120_000, "slow")
    assert [e.event_id for e in queue.pending()] == [older.event_id]
    second = queue.create_plan("s")
    assert second is not None and second.plan.event_ids == {older.event_id}
    assert queue.pending() == [] and queue.create_plan("s") is None
    later = publish(ledger, "clicks", 2)
    third = queue.create_plan("s")
    assert third is not None and third.plan.event_ids == {later.event_id}


def test_a_repaired_entry_older_than_the_lag_is_planned_once(ledger: Ledger) -> None:
    queue = ConsumerQueue(ledger, "loader", ["clicks"], lag=timedelta(seconds=1))
    ledger.journal.ensure_rebuilt()  # a ledger with a journal from its start
    old = write_as_of(ledger, "clicks", 0, int(time.time() * 1000) - 86_400_000, "killed")
    Path(ledger.journal.path(JournalEntry.of(old)).removeprefix("file://")).unlink()  # killed before its entry
    recent = publish(ledger, "clicks", 1)
    time.sleep(0.002)  # the cursor never passes now: planned in the event's own millisecond, it would stop before it
    assert (made := queue.create_plan("s")) is not None and made.plan.event_ids == {recent.event_id}
    assert queue.cursor().position == recent.event_id
    # the killed producer's next run repairs its entry: a day older than the window
    assert ledger.record_publication(PublicationFacts("clicks", "primary", hour(0), producer="external", run_id="again",
                                                      location="x", fingerprint=PRINT), unless_recorded=True) is None
    assert [e.event_id for e in queue.pending()] == [old.event_id]
    assert (late := queue.create_plan("s")) is not None and late.plan.event_ids == {old.event_id}
    assert queue.pending() == [] and queue.create_plan("s") is None
    assert old.event_id in queue.cursor().late_planned


def test_a_plan_that_does_not_parse_is_refused_with_its_path(ledger: Ledger) -> None:
    publish(ledger, "clicks", 0)
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    queue.create_plan("s")
    path = Path(f"{ledger.layout.consumer_folder('loader')}/plans/0000000001.json".removeprefix("file://"))
    path.write_text('{"process": "loader", "seq": 1, "run_id": "s", "created": "2026-11-21T10:00:00Z", '
                    '"events": [{"feed": "clicks"}]}')
    with pytest.raises(CorruptRecordError, match="0000000001.json") as refused:
        queue.pending()
    assert "item 0 of the field 'events': the field 'event_id' is missing" in str(refused.value)


def test_a_plan_is_written_and_read_back_as_the_events_it_consumes(ledger: Ledger) -> None:
    event = publish(ledger, "clicks", 0)
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    outcome = queue.create_plan("s")
    assert outcome is not None
    path = Path(f"{ledger.layout.consumer_folder('loader')}/plans/0000000001.json".removeprefix("file://"))
    assert json.loads(path.read_text())["events"] == [
        {"event_id": event.event_id, "feed": "clicks", "time": event.time, "kind": "published"}]
    plan = queue.plan(1)
    assert plan is not None and plan.entries == [JournalEntry(event.event_id, "clicks", event.nominal, "published")]



@pytest.mark.parametrize("position", ["2026-11-21 10:00", "20261321T100000000Z-run-1", "", "20261121T1000"])
def test_a_damaged_cursor_position_is_a_damaged_record_naming_the_file(ledger: Ledger, position: str) -> None:
    """Issue 33 (7): any text passed the check, then reading the journal from it was a ValueError traceback."""
    publish(ledger, "clicks", 0)
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    queue.create_plan("s")
    path = Path(f"{ledger.layout.consumer_folder('loader')}/cursor.json".removeprefix("file://"))
    document = json.loads(path.read_text())
    path.write_text(json.dumps({**document, "position": position}))
    with pytest.raises(CorruptRecordError, match=r"cursor\.json.*'position'"):
        queue.pending()

# -- the property: interleaved publications, plans, claims, commits and kills -----------------------------------

ACTIONS = st.lists(st.one_of(
    st.tuples(st.just("publish"), st.sampled_from(["clicks", "views", "other"])),
    st.tuples(st.just("publish-late"), st.integers(1, 500)),  # an id stamped up to 500 ms before the newest
    st.tuples(st.just("plan"), st.one_of(st.none(), st.integers(1, 3)), st.booleans()),
    st.tuples(st.just("claim"), st.integers(0, 2)),
    st.tuples(st.just("commit"), st.integers(0, 2)),
    st.tuples(st.just("fail"), st.integers(0, 2)),
    st.tuples(st.just("kill"), st.integers(0, 2)),
), max_size=30)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ACTIONS)
def test_every_event_ends_in_exactly_one_committed_plan(actions: list[tuple]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        clock = SetClock(time.time())
        ledger = open_ledger(Path(folder), clock, lease=30.0)
        queue = ConsumerQueue(ledger, "loader", ["clicks", "views"], lag=timedelta(seconds=5))
        published: list[str] = []
        runs: list = []  # claims of live runs
        for counter, action in enumerate(actions, 1):
            if action[0] == "publish":
                event = publish(ledger, action[1], counter % 48, run_id=f"p{counter}")
                published += [event.event_id] if action[1] != "other" else []
            elif action[0] == "publish-late":
                newest = max((event_id_ms(i) for i in published), default=int(time.time() * 1000))
                published.append(write_as_of(ledger, "views", counter % 48, newest - action[1], f"l{counter}").event_id)
            elif action[0] == "plan":
                queue.create_plan(f"s{counter}", max_batch=action[1], ordered=action[2])
            elif action[0] == "claim":
                claim = queue.claim(f"r{counter}")
                runs += [claim] if claim is not None else []
            elif runs:
                claim = runs.pop(action[1] % len(runs))
                if action[0] == "commit":
                    with contextlib.suppress(LockLostError):  # its lease ran out: the plan stays open
                        queue.commit(claim)
                elif action[0] == "fail":
                    queue.release(claim)
                else:  # killed: nobody releases it; its lease runs out
                    clock.advance(31)
        clock.advance(31)  # every killed run's lease is over; live ones finish
        for claim in runs:
            if claim.lock.still_ours() and claim.lock.lease.expires > clock():
                queue.commit(claim)
        for _ in range(len(published) + 5):  # the sweeps and runs that follow drain the queue (bounded)
            queue.create_plan("drain")
            for _ in range(len(published) + 5):
                if (claim := queue.claim("drain")) is None:
                    break
                queue.commit(claim)
        plans: list[Plan] = queue.plans()
        committed = [b.plan for b in queue.batches() if b.commit is not None]
        in_plans = [i for plan in plans for i in plan.event_ids]
        assert sorted(in_plans) == sorted(published)  # each event in exactly one plan
        assert len(committed) == len(plans)  # every plan committed (once: commits are created exclusively)
        assert queue.pending() == [] and queue.open_plans() == []


def test_the_cursor_moves_past_the_events_of_other_feeds(ledger: Ledger) -> None:
    """A consumer whose feeds have no new event still reads only the newest buckets on its next sweep."""
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    others = sorted(publish(ledger, "other", k).event_id for k in range(3))
    while int(time.time() * 1000) <= event_id_ms(others[-1]):
        time.sleep(0.001)  # the cursor never passes now's millisecond (a fast clock's ids): let that one go by
    assert queue.create_plan("s") is None
    assert queue.cursor().position == others[-1]
    mine = publish(ledger, "clicks", 0)
    made = queue.create_plan("s")
    assert made is not None and made.plan.event_ids == {mine.event_id}


def test_the_cursor_only_speeds_reads_up(ledger: Ledger) -> None:
    """Without it (deleted, or an old one written last by a slow sweep) nothing is planned twice."""
    now_ms = int(time.time() * 1000)
    events = [write_as_of(ledger, "clicks", k, now_ms - (5 - k) * 3_600_000, f"p{k}") for k in range(5)]  # hourly
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    while queue.create_plan("s", max_batch=2) is not None:
        pass
    cursor = Path(f"{ledger.layout.consumer_folder('loader')}/cursor.json".removeprefix("file://"))
    assert queue.cursor().plans_from == 3 and queue.cursor().position == events[-1].event_id  # the last plan only
    assert queue.pending() == [] and queue.create_plan("s") is None
    cursor.unlink()
    assert queue.pending() == [] and queue.create_plan("s") is None
    assert sorted(i for plan in queue.plans() for i in plan.event_ids) == sorted(e.event_id for e in events)


def test_a_plan_of_a_newer_format_is_refused(ledger: Ledger) -> None:
    from toolkit.core.ledger.records import NewerFormatError

    publish(ledger, "clicks", 0)
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    queue.create_plan("s")
    path = Path(f"{ledger.layout.consumer_folder('loader')}/plans/0000000001.json".removeprefix("file://"))
    path.write_text(path.read_text().replace('"format_version": 1', '"format_version": 2'))
    with pytest.raises(NewerFormatError, match="upgrade the toolkit"):
        queue.open_plans()


def test_the_cursor_never_moves_back_when_hosts_clocks_differ(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33 (1): a run on a host 10 s behind the one before capped the position at its own now, moving it
    back under `plans_from`: an older plan's event fell back inside the lag window and was planned again."""
    now_ms = int(time.time() * 1000)
    real_time = time.time

    def on_host(ahead: float) -> Ledger:
        """A ledger on a host whose clock is `ahead` seconds off, that clock being the one of the process."""
        monkeypatch.setattr(time, "time", lambda: real_time() + ahead)
        ledger = open_ledger(tmp_path, SetClock(now_ms / 1000 + ahead))
        ledger.event_clock = lambda: now_ms / 1000 + ahead
        return ledger

    lag = timedelta(seconds=5)
    fast = on_host(10)
    first = write_as_of(fast, "clicks", 0, now_ms + 2_000, "fast-producer")
    second = write_as_of(fast, "clicks", 1, now_ms + 9_000, "fast-producer")
    on_fast = ConsumerQueue(fast, "loader", ["clicks"], lag=lag)
    one = on_fast.create_plan("sweep-fast", max_batch=1)
    assert one is not None and one.plan.event_ids == {first.event_id}
    before = on_fast.cursor()
    assert before.position == second.event_id

    on_slow = ConsumerQueue(on_host(0), "loader", ["clicks"], lag=lag)
    two = on_slow.create_plan("sweep-slow")
    assert two is not None and two.plan.event_ids == {second.event_id}
    after = on_slow.cursor()
    assert after.position is not None and event_id_ms(after.position) >= event_id_ms(before.position)
    assert on_slow.create_plan("sweep-slow") is None and on_slow.pending() == []
    planned = [i for plan in on_slow.plans() for i in plan.event_ids]
    assert sorted(planned) == sorted({first.event_id, second.event_id})
