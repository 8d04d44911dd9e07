"""Batch consumption of dataset events by one consumer process on one cluster: each event in exactly one plan,
each plan committed once.

    consumers/<process>/plans/<seq>.json         plan N: the exact events of a batch (ids, feeds, instance times)
    consumers/<process>/commits/<seq>.json       written after plan N's run succeeded
    consumers/<process>/leases/<seq>/lock.<n>    the lease of the run consuming plan N (locks.py)
    consumers/<process>/cursor.json              where the journal is read from: it only speeds reads up

How it stays exactly once, by reading:
- Pending events are the journal's entries of the consumer's input feeds (published or replaced) that are in
  no plan. A plan is created as sequence number last + 1 by renaming a complete file onto its name without
  replacing: of two callers that read the same plans, one creates plan N and the other finds it (and who made
  it). Creating plan N+1 needs to have read plan N, so no event is planned twice.
- A run claims a plan with a lease and commits it after success. A plan without commit is open: the next run
  claims it (once a killed run's lease has expired) and replays exactly its events; the commit is created
  exclusively, after a check that the lease is still held.
- The cursor says which journal entries and plans a reader may skip: `position` is an event id such that every
  entry of an id before it, minus the lag, is planned, and every plan before `plans_from` holds only ids
  before that. Entries inside the lag window are checked against the plans' explicit ids, so an event written
  out of id order (by a slower producer) within the lag is still planned once. Entries a repair wrote late
  (`journal-late/`, possibly older than any window) are checked against every plan until they are planned.
  A lost or stale cursor costs reading, never correctness.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.ledger.journal import JournalEntry
from toolkit.core.ledger.locks import Lease, LeaseDetails, LeaseLock
from toolkit.core.ledger.records import (
    CorruptRecordError,
    DatasetEvent,
    EventId,
    Minute,
    Stamp,
    event_id_floor,
    event_id_ms,
    parse_record,
    record_time,
    to_json,
    wall_clock_stamp,
)
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError

# How late a journal entry may appear after its id's stamp (a slow producer, clocks of two hosts): entries
# this much before the cursor are read again and checked against the plans' ids.
DEFAULT_LAG = timedelta(minutes=10)
CONSUMED_KINDS = ("published", "replaced")


@dataclass(frozen=True)
class PlannedEvent:
    """An event a plan consumes, as its file names it: the journal's entry, its instance time spelled as records
    spell one."""

    event_id: str
    feed: str
    time: Minute
    kind: str

    @classmethod
    def of(cls, entry: JournalEntry) -> PlannedEvent:
        return cls(entry.event_id, entry.feed, format_timestamp(entry.time), entry.kind)

    @property
    def entry(self) -> JournalEntry:
        return JournalEntry(self.event_id, self.feed, record_time(self.time), self.kind)


@dataclass(frozen=True)
class Plan:
    """Batch `seq` of a consumer: the `events` it consumes, oldest id first; `run_id` made it."""

    process: str
    seq: int
    run_id: str
    created: Stamp
    events: tuple[PlannedEvent, ...] = ()

    @classmethod
    def parse(cls, data: bytes, path: str) -> Plan:
        plan: Plan = parse_record(cls, data, path)  # every item an event: CorruptRecordError naming it otherwise
        return plan

    @property
    def entries(self) -> list[JournalEntry]:
        return [event.entry for event in self.events]

    @property
    def event_ids(self) -> frozenset[str]:
        return frozenset(event.event_id for event in self.events)

    @property
    def newest_ms(self) -> int:
        return max((event_id_ms(i) for i in self.event_ids), default=0)

    @property
    def instances(self) -> tuple[str, str] | None:
        """The first and the last instance time it holds."""
        times = sorted(event.time for event in self.events)
        return (times[0], times[-1]) if times else None


@dataclass(frozen=True)
class Commit:
    """Plan `seq` was consumed by run `run_id` (its lease holder) at `committed`."""

    process: str
    seq: int
    run_id: str
    committed: Stamp



@dataclass(frozen=True)
class Cursor:
    """Where reading may start (see the module's docstring); the defaults read everything."""

    position: EventId | None = None
    plans_from: int = 1
    open_from: int = 1
    late_planned: list[str] = field(default_factory=list)



@dataclass(frozen=True)
class PlanOutcome:
    """The plan a `create_plan` call ended with: `created` by this call, or made by another (`plan.run_id`)."""

    plan: Plan
    created: bool


@dataclass
class Claim:
    """A plan held by a run: renew `lock` (LeaseKeeper) while it works; `previous` is a killed run's lease."""

    plan: Plan
    lock: LeaseLock
    previous: Lease | None = None


@dataclass(frozen=True)
class Batch:
    """A plan as `toolkit queue` shows it: its commit, and its lease (live or not)."""

    plan: Plan
    commit: Commit | None
    lease: Lease | None
    live: bool

    @property
    def state(self) -> str:
        if self.commit is not None:
            return "consumed"
        return "claimed" if self.live else "open"


@dataclass(frozen=True)
class _View:
    cursor: Cursor
    plans: list[Plan]  # from cursor.plans_from to the last
    last_seq: int
    entries: list[JournalEntry]  # the window's, of the consumer's feeds and kinds
    newest: str | None  # the newest id in the window, of any feed
    late: list[JournalEntry]  # late entries not known planned
    planned: frozenset[str]
    pending: list[JournalEntry]


class ConsumerQueue:
    """The queue of consumer `process` over the events of `feeds` in this ledger."""

    def __init__(self, ledger: Ledger, process: str, feeds: Iterable[str], *, lag: timedelta = DEFAULT_LAG,
                 kinds: Collection[str] = CONSUMED_KINDS) -> None:
        self.ledger, self.fs, self.process = ledger, ledger.fs, process
        self.feeds, self.kinds, self.lag = frozenset(feeds), frozenset(kinds), lag
        self.folder = ledger.layout.consumer_folder(process)

    # Records

    def _plan_path(self, seq: int) -> str:
        return f"{self.folder}/plans/{seq:010d}.json"

    def _commit_path(self, seq: int) -> str:
        return f"{self.folder}/commits/{seq:010d}.json"

    def plan(self, seq: int) -> Plan | None:
        path = self._plan_path(seq)
        data = self.fs.read_if_exists(path)
        return None if data is None else Plan.parse(data, path)

    def commit_of(self, seq: int) -> Commit | None:
        path = self._commit_path(seq)
        data = self.fs.read_if_exists(path)
        return None if data is None else parse_record(Commit, data, path)

    def plans(self) -> list[Plan]:
        """Every plan, oldest first (lists the folder: for people, not for sweeps)."""
        folder = f"{self.folder}/plans"
        if not self.fs.exists(folder):
            return []
        seqs = sorted(int(s.name[:-5]) for s in self.fs.list(folder)
                      if s.name.endswith(".json") and s.name[:-5].isdigit())
        return [plan for plan in (self.plan(seq) for seq in seqs) if plan is not None]

    def cursor(self) -> Cursor:
        path = f"{self.folder}/cursor.json"
        data = self.fs.read_if_exists(path)
        return Cursor() if data is None else parse_record(Cursor, data, path)

    def _create(self, path: str, data: bytes) -> bool:
        """Create `path` with its whole content, False when it exists: a complete temporary file renamed onto
        it without replacing, so a reader never sees a half-written plan or commit."""
        temporary = f"{path.rsplit('/', 1)[0]}/.{uuid.uuid4().hex}.tmp"
        self.fs.write_atomically(temporary, data)
        try:
            self.fs.rename(temporary, path)
            return True
        except StorageError:
            self.fs.delete(temporary, recursive=False)
            if self.fs.exists(path):
                return False
            raise

    # Pending events and plans

    def _scan(self) -> _View:
        self.ledger.journal.ensure_rebuilt()
        cursor = self.cursor()
        plans, seq = [], cursor.plans_from
        while (plan := self.plan(seq)) is not None:
            plans.append(plan)
            seq += 1
        planned = frozenset().union(*(plan.event_ids for plan in plans))
        window = self.ledger.journal.entries_since(cursor.position, self.lag)
        mine = [entry for entry in window if self._wanted(entry)]
        late = [entry for entry in self.ledger.journal.late_entries()
                if self._wanted(entry) and entry.event_id not in cursor.late_planned]
        if any(entry.event_id not in planned for entry in late):  # a repair wrote them: check every plan
            older = (self.plan(n) for n in range(1, cursor.plans_from))
            planned = planned.union(*(plan.event_ids for plan in older if plan is not None))
        unique = {entry.event_id: entry for entry in [*mine, *late] if entry.event_id not in planned}
        pending = [unique[key] for key in sorted(unique)]
        return _View(cursor, plans, seq - 1, mine, window[-1].event_id if window else None, late, planned, pending)

    def _wanted(self, entry: JournalEntry) -> bool:
        return entry.feed in self.feeds and entry.kind in self.kinds

    def pending(self) -> list[JournalEntry]:
        """The events of the input feeds that are in no plan, oldest id first."""
        return self._scan().pending

    def open_plans(self) -> list[Plan]:
        """The plans without commit, oldest first: each is replayed exactly by the run that claims it."""
        found, seq = [], self.cursor().open_from
        while (plan := self.plan(seq)) is not None:
            if not self.fs.exists(self._commit_path(seq)):
                found.append(plan)
            seq += 1
        return found

    def open_plan(self) -> Plan | None:
        """The oldest plan without commit."""
        plans = self.open_plans()
        return plans[0] if plans else None

    def create_plan(self, run_id: str, *, max_batch: int | None = None, cut: datetime | None = None,
                    ordered: bool = False) -> PlanOutcome | None:
        """Plan the next batch: the oldest pending events (by id), at most `max_batch`, of instances up to `cut`.
        `ordered`: no new plan while one is open (the oldest open one is returned, not created). None when
        nothing is to plan. When another caller created that plan number first, its plan is returned with
        `created` False: the caller plans nothing else (it may call again)."""
        if max_batch is not None and max_batch < 1:
            raise ValueError(f"max_batch must be positive, not {max_batch}")
        view = self._scan()
        if ordered:
            open_plan = self.open_plan()
            if open_plan is not None:
                return PlanOutcome(open_plan, created=False)
        chosen = [entry for entry in view.pending if cut is None or entry.time <= cut][:max_batch]
        if not chosen:
            self._advance(view, None)
            return None
        plan = Plan(process=self.process, seq=view.last_seq + 1, run_id=run_id,
                    created=wall_clock_stamp(self.ledger.clock()),
                    events=tuple(PlannedEvent.of(entry) for entry in chosen))
        if not self._create(self._plan_path(plan.seq), to_json(plan)):
            winner = self.plan(plan.seq)
            if winner is None:  # cannot be: plans are never deleted
                raise CorruptRecordError(self._plan_path(plan.seq), "it existed a moment ago and is gone")
            return PlanOutcome(winner, created=False)
        self._advance(view, plan)
        return PlanOutcome(plan, created=True)

    def _advance(self, view: _View, new: Plan | None) -> None:
        """Move the cursor past what is planned now (written only when it moves; a stale one is harmless)."""
        plans = [*view.plans, *([new] if new is not None else [])]
        planned = view.planned | (new.event_ids if new is not None else frozenset())
        left = [entry.event_id for entry in view.entries if entry.event_id not in planned]
        position = min(left) if left else view.newest or view.cursor.position
        if position is not None:  # not past now: an id from a host whose clock runs fast would hide later events
            position = min(position, event_id_floor(int(self.ledger.event_clock() * 1000)))
        old = view.cursor.position
        if old is not None and (position is None or event_id_ms(position) < event_id_ms(old)):
            position = old  # never back, whatever this host's clock says: plans skipped before hold nothing in it
        plans_from = view.cursor.plans_from
        if position is not None:
            start = event_id_ms(position) - int(self.lag.total_seconds() * 1000)
            keep = [plan.seq for plan in plans if plan.newest_ms >= start]
            plans_from = keep[0] if keep else (plans[-1].seq + 1 if plans else plans_from)
        open_from = view.cursor.open_from
        while open_from <= (plans[-1].seq if plans else view.last_seq) and self.fs.exists(self._commit_path(open_from)):
            open_from += 1
        late = sorted({*view.cursor.late_planned, *(e.event_id for e in view.late if e.event_id in planned)})
        cursor = Cursor(position=position, plans_from=plans_from, open_from=open_from, late_planned=late)
        if cursor != view.cursor:
            self.fs.write_atomically(f"{self.folder}/cursor.json", to_json(cursor))

    # Runs

    def _lease_lock(self, seq: int) -> LeaseLock:
        return LeaseLock(self.fs, f"{self.folder}/leases/{seq:010d}", "lock", self.ledger.lease_seconds,
                         clock=self.ledger.clock)

    def claim(self, run_id: str, seq: int | None = None, details: LeaseDetails | None = None) -> Claim | None:
        """Take the lease of plan `seq` (default: the oldest open plan whose lease is free) for `run_id`; None
        when it is committed or held by a live run (`lease` says whom). Renew `claim.lock` while working."""
        candidates = [p for p in [self.plan(seq)] if p is not None] if seq is not None else self.open_plans()
        for plan in candidates:
            lock = self._lease_lock(plan.seq)
            if self.fs.exists(self._commit_path(plan.seq)):
                continue
            since = wall_clock_stamp(self.ledger.clock())
            outcome = lock.try_acquire(run_id, replace(details or LeaseDetails(), seq=plan.seq, since=since))
            if not outcome.taken:
                continue
            if self.fs.exists(self._commit_path(plan.seq)):  # committed by the run we listed as open
                lock.release()
                continue
            return Claim(plan, lock, outcome.previous)
        return None

    def commit(self, claim: Claim) -> Commit:
        """Record the claimed plan consumed (LockLostError when the lease was lost: nothing written), then
        release the lease. A commit that exists already (this run's own, written before a crash) is returned."""
        claim.lock.ensure_held()
        lease = claim.lock.lease
        run_id = lease.run_id if lease is not None else ""
        commit = Commit(self.process, claim.plan.seq, run_id, wall_clock_stamp(self.ledger.clock()))
        if not self._create(self._commit_path(commit.seq), to_json(commit)):
            existing = self.commit_of(commit.seq)
            commit = existing if existing is not None else commit
        claim.lock.release()
        return commit

    def release(self, claim: Claim) -> None:
        """Give the plan back without commit (the run failed): the next run replays it at once."""
        claim.lock.release()

    def lease(self, seq: int) -> Lease | None:
        """The lease of plan `seq`'s last claim, live or not."""
        return self._lease_lock(seq).current()

    def events(self, plan: Plan) -> list[DatasetEvent]:
        """The dataset events a plan lists, in its order (their locations and fingerprints)."""
        found = []
        for entry in plan.entries:
            match = [e for e in self.ledger.events(entry.feed, entry.time) if e.event_id == entry.event_id]
            if not match:
                raise CorruptRecordError(self._plan_path(plan.seq), f"its event {entry.event_id} of feed "
                                         f"'{entry.feed}' has no event file")
            found.append(match[0])
        return found

    def batches(self) -> list[Batch]:
        """Every plan with its commit and lease: what `toolkit queue` shows."""
        now = self.ledger.clock()
        found = []
        for plan in self.plans():
            lease = self.lease(plan.seq)
            found.append(Batch(plan, self.commit_of(plan.seq), lease, lease is not None and lease.live(now)))
        return found

