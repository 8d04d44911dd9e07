"""A cell from what the ledger records of its instance: a process instance's row (as `toolkit status` shows it)
and its attempts, or a feed instance's dataset events on the cluster."""

from __future__ import annotations

from collections.abc import Container, Mapping, Sequence
from dataclasses import replace
from datetime import datetime

from toolkit.core.ledger.instance_states import InstanceOutline
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import AttemptRecord, DatasetEvent
from toolkit.statuses import Status
from toolkit.views.report.model import Attempt, Cell, Details
from toolkit.views.report.states import State, feed_state, process_state


def process_cell(time: datetime, status: str, details: Details | None, attempts: Sequence[AttemptRecord],
                 sla: str | None) -> Cell:
    """`attempts` oldest first (empty when not read): the newest tells a late rerun and a quality block apart."""
    newest = attempts[-1] if attempts else None
    gates = newest.gates() if newest is not None else []
    state = process_state(status, newest.kind if newest is not None else None, any(gate.blocks for gate in gates))
    if details is not None and attempts:
        details = replace(details, tries=tuple(_attempt(record) for record in attempts))
    return Cell(time, state, sla, details)


def _attempt(record: AttemptRecord) -> Attempt:
    return Attempt(record.attempt, record.kind, str(record.status), record.started, record.ended, record.error,
                   tuple(_gate_line(gate) for gate in record.gates()))


def _gate_line(gate: GateResult) -> str:
    """`quality/clicks.json: 11/12 passed (blocked publication): expect_...: 3 of 10 unexpected`."""
    told = f"{gate.suite}: {gate.passed}/{len(gate.expectations)} passed"
    if gate.success:
        return told
    return f"{told} ({'blocked publication' if gate.blocks else gate.on_failure.value}): " \
           f"{'; '.join(outcome.describe() for outcome in gate.failures[:3])}"


def feed_cell(time: datetime, events: Sequence[DatasetEvent], sla: str | None) -> Cell:
    """`events` oldest first (empty: nothing published yet); the last one's kind and producer make the state."""
    if not events:
        return Cell(time, feed_state(None, None), sla)
    last = events[-1]
    known = last.definition
    return Cell(time, feed_state(last.kind, last.producer), sla,
                Details(run_id=last.run_id, started=last.published, producer=last.producer, location=last.location,
                        events=len(events), commit=known.commit if known else None))


# The newest cells of a grid keep their details whatever their state; older ones only when they are not a plain
# success (a year of hourly successes would otherwise weigh megabytes the page does not need).
DETAILED = 48
_PLAIN = (State.SUCCEEDED, State.PUBLISHED)


def trimmed(states: Sequence[State], details: Mapping[int, Details], detailed: int = DETAILED) -> dict[int, Details]:
    """The `details` (by index into `states`, oldest first) but those of the plain successes older than the newest
    `detailed`."""
    keep_from = len(states) - detailed
    return {index: told for index, told in sorted(details.items()) if index >= keep_from or states[index] not in _PLAIN}


def plain_successes(times: Sequence[datetime], outlines: Mapping[datetime, InstanceOutline],
                    held: Container[datetime], detailed: int = DETAILED) -> set[datetime]:
    """The instances of `times` (oldest first) older than the newest `detailed` whose cell is a plain success
    without details, from their ledger outlines alone: succeeded at the first attempt (`toolkit status` shows the
    record's status as it is) and not held. A year of them is most of a page, and needs no row of its own."""
    older = times[:max(len(times) - detailed, 0)]
    return {t for t in older if (outline := outlines.get(t)) is not None
            and not needs_attempts(outline.status, outline.attempts) and t not in held}


def needs_attempts(recorded: str | None, attempts: int) -> bool:
    """Whether a process instance's attempts are worth reading: it has a record and is not a success of one attempt
    (a late rerun has more, a failure its error and quality results). A success of one attempt is its row already;
    reading the attempts of a year of them would re-read their month's roll-up for each."""
    return recorded is not None and (recorded != Status.SUCCEEDED.value or attempts > 1)
