"""An instance's state: what `toolkit status`, `summary`, `report` and `metrics` show of its instance record, without
what it read and wrote.

A roll-up's instance record carries its inputs and outputs (with fingerprints), most of its bytes; a reader
of a window's states should not parse them. A roll-up therefore holds each instance's state again on a line of its
own (rollup_records.py), derived from the instance record it holds when it is written, and readers of states parse
only the lines of the instances they ask for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from itertools import chain, pairwise
from typing import Any, NamedTuple

from toolkit.core.entities.provenance import Provenance
from toolkit.core.ledger.records import STATUSES, CorruptRecordError, InstanceRecord, stamp_seconds
from toolkit.statuses import Status

# The instance record's fields a state holds, as the record's JSON names them.
STATE_FIELDS = ("status", "attempts", "run_id", "updated", "started", "ended", "error", "missing", "definition")
_TEXTS = ("run_id", "started", "ended", "error")
_STATUS_NAMES = frozenset(status.value for status in STATUSES)


class InstanceState(NamedTuple):
    """Immutable; a named tuple rather than a frozen dataclass because a window builds one per instance and a tuple
    is built four times faster."""

    status: str
    attempts: int
    run_id: str | None
    updated: str
    started: str | None = None
    ended: str | None = None
    error: str | None = None
    missing: tuple[str, ...] = ()  # the input instances a WAITING instance waits for
    # The definition of its last success (core/entities/provenance.py); None: none, not recorded, or damaged.
    definition: Provenance | None = None

    @classmethod
    def of(cls, record: InstanceRecord) -> InstanceState:
        return cls(record.status, record.attempts, record.run_id, record.updated, record.started, record.ended,
                   record.error, tuple(record.missing), record.definition)

    @classmethod
    def from_document(cls, document: Any, path: str, key: str) -> InstanceState:
        """The state a roll-up's state line holds for instance `key` (CorruptRecordError naming both when it is
        not one)."""
        if not isinstance(document, dict):
            raise CorruptRecordError(path, f"the state of instance {key} is not a JSON object")
        get = document.get  # each field read once: a year's page reads 1.75 million states
        status, attempts, run_id, updated = get("status"), get("attempts"), get("run_id"), get("updated")
        started, ended, error, definition = get("started"), get("ended"), get("error"), get("definition")
        if (type(status) is str and status in _STATUS_NAMES and type(attempts) is int and attempts >= 0
                and type(updated) is str and (run_id is None or type(run_id) is str)
                and (started is None or type(started) is str) and (ended is None or type(ended) is str)
                and (error is None or type(error) is str) and (definition is None or type(definition) is dict)
                and "missing" not in document):
            return cls(status, attempts, run_id, updated, started, ended, error, (),
                       None if definition is None else _provenance(definition))
        problem = _problem(document)  # a WAITING state's list of missing inputs, or what is wrong, said
        if problem is not None:
            raise CorruptRecordError(path, f"the state of instance {key}: {problem}")
        return cls(document["status"], document["attempts"], run_id, document["updated"], started, ended, error,
                   tuple(get("missing") or ()), None if definition is None else _provenance(definition))


class InstanceOutline(NamedTuple):
    """An instance's status and attempts, when it ended (seconds since the epoch) and how long it ran
    (`run_seconds`): what a roll-up's digest holds of it, enough to tell a plain success of one attempt from what
    needs a closer look, and for `toolkit metrics` to count and time a window of instances."""

    status: str
    attempts: int
    ended: float | None = None
    duration: int | None = None

    @classmethod
    def of(cls, state: InstanceState) -> InstanceOutline:
        return cls(state.status, state.attempts, stamp_seconds(state.ended), run_seconds(state))


@dataclass(frozen=True)
class Outlines:
    """Instances' outlines as columns, in time order: `toolkit metrics` counts a window of a thousand processes with
    a pass over each column (a roll-up's digest is columns already), not with an object per instance."""

    times: tuple[datetime, ...]
    statuses: tuple[str, ...]
    attempts: tuple[int, ...]
    ended: tuple[float | None, ...]
    durations: tuple[int | None, ...]

    def __post_init__(self) -> None:
        lengths = {len(self.statuses), len(self.attempts), len(self.ended), len(self.durations)}
        if lengths != {len(self.times)}:
            raise ValueError(f"outlines of {len(self.times)} instances have columns of {sorted(lengths)} entries")

    @classmethod
    def of(cls, outlines: Mapping[datetime, InstanceOutline]) -> Outlines:
        """The outlines of a mapping by time, in time order."""
        times = tuple(sorted(outlines))
        if not times:
            return EMPTY_OUTLINES
        statuses, attempts, ended, durations = zip(*map(outlines.__getitem__, times), strict=True)
        return cls(times, statuses, attempts, ended, durations)

    @classmethod
    def joined(cls, parts: Sequence[Outlines]) -> Outlines:
        """The outlines of `parts` (of distinct instances) as one, in time order."""
        filled = [part for part in parts if part.times]
        if len(filled) < 2:
            return filled[0] if filled else EMPTY_OUTLINES
        if all(before.times[-1] < after.times[0] for before, after in pairwise(filled)):
            return cls(*(tuple(chain.from_iterable(getattr(part, name) for part in filled)) for name in _COLUMNS))
        return cls.of({t: outline for part in filled for t, outline in part.by_time().items()})

    def by_time(self) -> dict[datetime, InstanceOutline]:
        return dict(zip(self.times, map(InstanceOutline, self.statuses, self.attempts, self.ended, self.durations),
                        strict=True))


_COLUMNS = ("times", "statuses", "attempts", "ended", "durations")
EMPTY_OUTLINES = Outlines((), (), (), (), ())


def run_seconds(state: InstanceState) -> int | None:
    """How long the instance ran, in whole seconds, as `toolkit status` shows it: from its start to its end, or, for
    a FAILED or TIMEDOUT instance the runner records without an end, to when it wrote it (None: either not known, or
    still RUNNING, whose end is now or never)."""
    if state.status == Status.RUNNING:
        return None
    until = stamp_seconds(state.ended)
    if until is None and state.status in (Status.FAILED, Status.TIMEDOUT):
        until = stamp_seconds(state.updated)  # the runner records these without `ended`: when it wrote them
    return seconds_between(state.started, until)


def seconds_between(started: str | None, until: float | None) -> int | None:
    """Whole seconds from the stamp `started` to `until` (None: either not known), never fewer than none."""
    begin = stamp_seconds(started)
    if begin is None or until is None:
        return None
    return max(int(round(until - begin)), 0)


def state_document(instance: Mapping[str, Any]) -> dict[str, Any]:
    """The state of an instance record's JSON object, as a roll-up's state line holds it: its fields without those
    that are null or empty (most are, for a closed instance: the line is read for every instance of a window)."""
    return {name: instance[name] for name in STATE_FIELDS if instance.get(name) not in (None, [])}


# Each definition a state line names, read once: the instances of a window mostly ran one or a few definitions.
_PROVENANCES: dict[tuple[Any, Any, bool], Provenance | None] = {}
_PROVENANCES_KEPT = 4096


def _provenance(document: dict[str, Any]) -> Provenance | None:
    """A state line's `definition` (Provenance.to_json) as the record type; None for one no toolkit wrote, as
    Provenance.read says (the state stays readable: the definition is a note about it)."""
    dirty = document.get("dirty", False)
    if dirty is not True and dirty is not False:
        return None
    key = (document.get("definition"), document.get("commit"), dirty)
    try:
        return _PROVENANCES[key]
    except KeyError:
        pass
    except TypeError:  # a value JSON gives as a list or an object: no hash, and no definition either
        return None
    if len(_PROVENANCES) >= _PROVENANCES_KEPT:
        _PROVENANCES.clear()
    found = _PROVENANCES[key] = Provenance.read(document)
    return found


def _problem(document: dict[str, Any]) -> str | None:
    """What makes `document` not a state (None: nothing). Exact types, as JSON gives them (a bool is no count)."""
    status, attempts, updated = document.get("status"), document.get("attempts"), document.get("updated")
    if type(status) is not str or status not in _STATUS_NAMES:
        return f"its status {status!r} is none of {', '.join(STATUSES)}"
    if type(attempts) is not int or attempts < 0:
        return f"its attempts {attempts!r} is not a count"
    if type(updated) is not str:
        return f"its updated {updated!r} is not a time"
    for name in _TEXTS:
        value = document.get(name)
        if value is not None and type(value) is not str:
            return f"its {name} {value!r} is not text"
    missing = document.get("missing")
    if missing is not None and (type(missing) is not list or not all(type(item) is str for item in missing)):
        return f"its missing {missing!r} is not a list of instances"
    definition = document.get("definition")
    if definition is not None and type(definition) is not dict:
        return f"its definition {definition!r} is not a JSON object"
    return None
