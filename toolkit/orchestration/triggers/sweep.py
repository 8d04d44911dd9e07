"""One sweep of a cluster: read the journal entries published since the last sweep, find the due instances and
batches of the data-triggered processes there, start them, remember where it stopped.

One sweep at a time per cluster (a lease lock in the ledger, renewed while the sweep works: a second sweep is told
who runs and starts nothing; a sweep that lost its lock starts nothing more and writes nothing), so nothing is
started twice by two sweeps; a run started twice by other means is refused by the run itself (its instance lock,
its batch claim). A dry run takes no lock and writes nothing (but the journal's one-time rebuild).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

from toolkit.core.el.expressions import parse_expression
from toolkit.core.entities.model import Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.window_inverse import why_not_invertible
from toolkit.core.ledger.consumption import DEFAULT_LAG
from toolkit.core.ledger.journal import JournalEntry
from toolkit.core.ledger.locks import LeaseDetails, LeaseKeeper, LockLostError
from toolkit.core.ledger.record_files import RecordFile
from toolkit.core.ledger.records import event_id_floor, event_id_ms
from toolkit.core.ledger.run_locks import describe_holder
from toolkit.core.ledger.store import Ledger
from toolkit.core.ledger.switches import require_no_safemode
from toolkit.errors import BlockedError
from toolkit.orchestration.triggers.batch_due import batch_due
from toolkit.orchestration.triggers.instance_due import decide, merge_due, newly_due
from toolkit.orchestration.triggers.launch import Launcher, Run
from toolkit.orchestration.triggers.state import DueInstance, ProcessState, SweepState, due_in_order

# A run a sweep started is not started again for this long unless the ledger shows it ran (spark-submit's start).
RESTART_AFTER_MS = 5 * 60 * 1000


@dataclass
class SweepReport:
    entries: int = 0  # new journal entries read for the processes with a frequency
    started: list[Run] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)  # due, not started, and why
    skipped: list[str] = field(default_factory=list)  # processes not swept, and why


def run_sweep(repo: ConfigRepo, cluster: str, ledger: Ledger, launcher: Launcher, *, dry_run: bool = False,
              lag: timedelta = DEFAULT_LAG) -> SweepReport:
    require_no_safemode(ledger.fs, repo.cluster(cluster))
    run_id = uuid.uuid4().hex[:12]
    lock = ledger.sweep_lock()
    if not dry_run:
        taken = lock.try_acquire(run_id, LeaseDetails(action="trigger"))
        if not taken.taken:
            raise BlockedError(f"The data-trigger sweep of cluster '{cluster}' is being run by "
                               f"{describe_holder(taken.holder)}: nothing was started; call again later.")
    if dry_run:
        return _sweep(_Sweep(repo, cluster, ledger, launcher, run_id, lambda: None, dry_run), lag)
    lost = False
    try:
        with LeaseKeeper([lock], ledger.lease_seconds / 3) as keeper:  # a long sweep keeps its lock
            return _sweep(_Sweep(repo, cluster, ledger, launcher, run_id, keeper.ensure_held, dry_run), lag)
    except LockLostError:
        lost = True  # another sweep holds the lock now: nothing more is started or written, not even the release
        raise
    finally:
        if not lost:
            lock.release()


@dataclass
class _Sweep:
    """One sweep of `cluster`: where it reads, how it starts runs, and `guard`, which raises once its lock is lost
    (another sweep took over); a dry run starts nothing. Its `report` is filled in as it goes."""

    repo: ConfigRepo
    cluster: str
    ledger: Ledger
    launcher: Launcher
    run_id: str
    guard: Callable[[], None]
    dry_run: bool
    report: SweepReport = field(default_factory=SweepReport)


def _sweep(sweep: _Sweep, lag: timedelta) -> SweepReport:
    repo, cluster, ledger, report, dry_run = sweep.repo, sweep.cluster, sweep.ledger, sweep.report, sweep.dry_run
    state = _read_state(ledger)
    now_ms = int(time.time() * 1000)
    active = []
    for process in _triggered(repo, cluster):
        suspended = ledger.control.suspension("process", process.name)
        why_not = None if process.is_batch_consumer else _not_invertible(process)
        if suspended.on:  # its events wait for it: its position does not move
            report.skipped.append(f"{process.name}: suspended since {suspended.since}")
        elif why_not is not None:  # nor does this one's, and it does not hold the others' reading back
            report.skipped.append(f"{process.name}: {why_not}")
        else:
            active.append(process)
    entries, late = _journal(ledger, state, [p for p in active if not p.is_batch_consumer], lag)
    swept: dict[str, ProcessState] = {}
    read: set[str] = set()
    for process in active:
        if process.is_batch_consumer:
            found = batch_due(ledger, process, cluster, datetime.fromtimestamp(now_ms / 1000, timezone.utc))
            if not found.runs:
                report.waiting.append(f"{process.name}: {found.reason}")
            for _ in range(found.runs):
                _start(sweep, Run(process.name))
            continue
        before = state.of(process.name)
        new = _new_for(before, entries, late, lag)
        instances = merge_due(before.due_by_time(), newly_due(repo, process, cluster, new))
        read.update(entry.event_id for entry in new)
        due = _start_instances(sweep, process, instances, now_ms)
        swept[process.name] = _moved_on(before, entries, late, due, lag, now_ms)
    report.entries = len(read)
    if not dry_run and swept:
        sweep.guard()
        kept = {name: item for name, item in state.processes.items() if name not in swept}  # other repos' too
        _state_file(ledger).write(SweepState({**kept, **swept}))
    return report


def _not_invertible(process: Process) -> str | None:
    """Why the sweep cannot find the instances an event completes (a window that picks among existing instances,
    or steps back at a DST change), or None."""
    for item in process.inputs:
        for text in item.require_window():
            why = why_not_invertible(parse_expression(text))
            if why is not None:
                return f"the input '{item.name}' cannot be triggered by data: {why}"
    return None


def _journal(ledger: Ledger, state: SweepState, processes: list[Process],
             lag: timedelta) -> tuple[list[JournalEntry], list[JournalEntry]]:
    """The journal entries from the oldest position of the processes on (all of it when one is new), and the late
    ones; nothing is read when no process with a frequency is swept."""
    if not processes:
        return [], []
    ledger.journal.ensure_rebuilt()
    positions = [state.of(process.name).position for process in processes]
    start = None if None in positions else min(p for p in positions if p is not None)
    return ledger.journal.entries_since(start, lag), ledger.journal.late_entries()


def _new_for(before: ProcessState, entries: list[JournalEntry], late: list[JournalEntry],
             lag: timedelta) -> list[JournalEntry]:
    """The entries this process has not handled: from its position minus the lag on, and the late ones."""
    floor = None if before.position is None else event_id_ms(before.position) - int(lag.total_seconds() * 1000)
    return [entry for entry in [*entries, *late]
            if entry.event_id not in before.seen and (floor is None or entry.ms >= floor or entry in late)]


def _start_instances(sweep: _Sweep, process: Process, instances: dict[datetime, DueInstance],
                     now_ms: int) -> dict[datetime, DueInstance]:
    """Start the due instances that are ready, oldest first, at most the free `parallel` slots; what stays due."""
    if not instances:
        return {}  # the usual case of a sweep every minute: not even the slots are listed
    ledger, report = sweep.ledger, sweep.report
    room = process.parallel - len(ledger.running(process.name))
    left: dict[datetime, DueInstance] = {}
    for t in sorted(instances):
        decision = decide(sweep.repo, process, sweep.cluster, ledger, instances[t], now_ms, RESTART_AFTER_MS)
        if decision.done:
            continue
        if decision.start and room > 0:
            event = datetime.fromtimestamp(instances[t].event_ms // 1000, timezone.utc)
            _start(sweep, Run(process.name, t, event if decision.rerun else None))
            room -= 1
            left[t] = DueInstance(t, instances[t].event_ms, now_ms)
            continue
        reason = decision.reason or f"`parallel` ({process.parallel}) reached"
        report.waiting.append(f"{process.name} {t:%Y-%m-%dT%H:%MZ}: {reason}")
        left[t] = instances[t]
    return left


def _start(sweep: _Sweep, run: Run) -> None:
    """Start the run, unless a dry run; not once the sweep's lock is lost."""
    if not sweep.dry_run:
        sweep.guard()
        sweep.launcher.start(run, sweep.run_id)
    sweep.report.started.append(run)


def _triggered(repo: ConfigRepo, cluster: str) -> list[Process]:
    return [process for _, process in sorted(repo.processes.items())
            if process.is_data_triggered and process.cluster(cluster) is not None]


def _state_file(ledger: Ledger) -> RecordFile[SweepState]:
    return RecordFile(ledger.fs, ledger.layout.sweep_state(), SweepState)


def _read_state(ledger: Ledger) -> SweepState:
    """The last sweep's state; a fresh one before the first sweep."""
    state = _state_file(ledger).read()
    return SweepState() if state is None else state


def _moved_on(before: ProcessState, entries: list[JournalEntry], late: list[JournalEntry],
              due: dict[datetime, DueInstance], lag: timedelta, now_ms: int) -> ProcessState:
    """The newest entry read becomes the position; the entries inside the lag before it, and the late ones
    (read by every sweep), are remembered as seen."""
    newest = max(entries, key=lambda entry: entry.event_id, default=None)
    late_ids = {entry.event_id for entry in late}
    if newest is None or (before.position is not None and newest.event_id <= before.position):
        return ProcessState(before.position, before.seen | late_ids, due_in_order(due))
    floor = newest.ms - int(lag.total_seconds() * 1000)
    seen = frozenset(entry.event_id for entry in entries if entry.ms >= floor) | late_ids
    # Never past now: an id from a host whose clock runs fast would hide the events published after it
    return ProcessState(min(newest.event_id, event_id_floor(now_ms)), seen, due_in_order(due))
