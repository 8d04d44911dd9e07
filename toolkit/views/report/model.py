"""The status page as immutable records: one grid per feed and process (a column of cells over the window), the
details a click on a cell shows, and the header of what needs a person now. Built from what the CLI's ledger
readers return (`toolkit/views/report/reading.py`), rendered by `html.py`; nothing here reads a file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from toolkit.core.el.timestamps import format_timestamp
from toolkit.views.report.states import FAILURES, State

_FLAGGED = frozenset({*FAILURES, State.SUSPENDED})  # the header names each instance in these states


@dataclass(frozen=True)
class Attempt:
    """One try of a process instance as the details list it; `quality` says each gate's result in a line."""

    number: int
    kind: str  # RUN or LATE_RERUN
    status: str
    started: str
    ended: str | None
    error: str | None
    quality: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {"number": self.number, "kind": self.kind, "status": self.status, "started": self.started,
                "ended": self.ended, "error": self.error, "quality": list(self.quality)}


@dataclass(frozen=True)
class Details:
    """What a click on a cell shows beyond its time and state. Process cells: the row of `toolkit status` and the
    attempts; feed cells: the last event's producer, run and location, and how many events the instance has."""

    run_id: str | None = None
    started: str | None = None
    ended: str | None = None
    attempts: int = 0
    error: str | None = None
    waits_for: tuple[str, ...] | None = None  # a waiting process instance's missing inputs, when known
    waits_note: str | None = None  # why they are not known
    hold: str | None = None
    commit: str | None = None  # the config repo's commit that ran it, when recorded
    tries: tuple[Attempt, ...] = ()
    producer: str | None = None
    location: str | None = None
    events: int = 0

    def to_json(self) -> dict[str, object]:
        """Only the facts that are there: the page's data stays small."""
        found: dict[str, object] = {
            "run_id": self.run_id, "started": self.started, "ended": self.ended, "attempts": self.attempts or None,
            "error": self.error, "waits_for": list(self.waits_for) if self.waits_for is not None else None,
            "waits_note": self.waits_note, "hold": self.hold, "commit": self.commit,
            "tries": [attempt.to_json() for attempt in self.tries] or None, "producer": self.producer,
            "location": self.location, "events": self.events or None}
        return {key: value for key, value in found.items() if value is not None}


class Cell(NamedTuple):
    """One instance: its time, its state, the SLA miss it carries (a sentence, None: none) and its details (None:
    not read, for the older plain successes of a long window: `toolkit status` tells them). Immutable; a named
    tuple rather than a frozen dataclass: a year's page of 200 entities builds 1.75 million of them."""

    time: datetime
    state: State
    sla: str | None = None
    details: Details | None = None


@dataclass(frozen=True)
class Grid:
    """A feed's or a process's instances over the window, oldest first, as columns: their times and states, and by
    index the few that carry more, an SLA miss (a sentence) or details (the older plain successes of a long window
    carry none: `toolkit status` tells them). Columns, not a record per cell: a year's page of 200 entities has 1.75
    million cells. `node` is its node id on the graph page (`feed/clicks`); `options` the options that name it to
    `toolkit triage`, `rerun` and `resume` (`--repo R --process P --cluster C`, shell-quoted), from which the page
    writes the commands of each instance."""

    kind: str
    name: str
    frequency: str
    tags: tuple[tuple[str, str], ...]
    pipelines: tuple[str, ...]
    times: tuple[datetime, ...]
    states: tuple[State, ...]
    sla: Mapping[int, str] = field(default_factory=dict)
    details: Mapping[int, Details] = field(default_factory=dict)
    suspended: str | None = None  # the entity's suspension, said (`toolkit suspend`)
    options: str = ""

    def __post_init__(self) -> None:
        if len(self.states) != len(self.times):
            raise ValueError(f"{self.node}: {len(self.states)} states for {len(self.times)} instances")
        outside = [index for index in (*self.sla, *self.details) if not 0 <= index < len(self.times)]
        if outside:
            raise ValueError(f"{self.node}: cell {outside[0]} is not one of its {len(self.times)} instances")

    @property
    def node(self) -> str:
        return f"{self.kind}/{self.name}"

    @property
    def cells(self) -> tuple[Cell, ...]:
        """Each instance as one record (for a reader of a few)."""
        return tuple(Cell(t, state, self.sla.get(index), self.details.get(index))
                     for index, (t, state) in enumerate(zip(self.times, self.states, strict=True)))


@dataclass(frozen=True)
class Flagged:
    """One instance the header names."""

    entity: str  # `process/hourly-clicks-summary`
    time: datetime
    state: State

    def to_json(self) -> dict[str, object]:
        return {"entity": self.entity, "time": format_timestamp(self.time), "state": self.state.value}


@dataclass(frozen=True)
class Header:
    """What needs a person now: failed instances (failed, quality-blocked, timed out, killed), SLA misses, held
    instances and suspended entities, and the oldest instance still waiting."""

    failures: tuple[Flagged, ...]
    sla_misses: tuple[Flagged, ...]
    held: tuple[Flagged, ...]
    suspended: tuple[str, ...]
    oldest_waiting: Flagged | None

    @classmethod
    def of(cls, grids: Sequence[Grid]) -> Header:
        failures: list[Flagged] = []
        misses: list[Flagged] = []
        held: list[Flagged] = []
        oldest_waiting: Flagged | None = None
        for grid in grids:
            times, states = grid.times, grid.states
            if State.WAITING in states:  # the oldest of a grid is its first (a year of them is not flagged one by one)
                first = states.index(State.WAITING)
                if oldest_waiting is None or times[first] < oldest_waiting.time:
                    oldest_waiting = Flagged(grid.node, times[first], State.WAITING)
            flagged = [index for index, state in enumerate(states) if state in _FLAGGED]  # most cells: nothing to say
            for index in flagged:
                item = Flagged(grid.node, times[index], states[index])
                (held if item.state is State.SUSPENDED else failures).append(item)
            misses += [Flagged(grid.node, times[index], states[index]) for index in sorted(grid.sla)]
        return cls(tuple(failures), tuple(misses), tuple(held),
                   tuple(grid.node for grid in grids if grid.suspended is not None), oldest_waiting)

    def to_json(self, listed: int) -> dict[str, object]:
        """Counts, and the newest `listed` of each list (the page links them to their cells)."""
        def newest(items: tuple[Flagged, ...]) -> list[dict[str, object]]:
            return [item.to_json() for item in sorted(items, key=lambda item: item.time, reverse=True)[:listed]]

        return {"failures": len(self.failures), "sla_misses": len(self.sla_misses), "held": len(self.held),
                "failed": newest(self.failures), "missed": newest(self.sla_misses), "held_list": newest(self.held),
                "suspended": list(self.suspended),
                "oldest_waiting": self.oldest_waiting.to_json() if self.oldest_waiting else None}


@dataclass(frozen=True)
class Report:
    """The page: `grids` in dependency order (producers before their consumers), `graph_page` the graph page
    (relative to the report) whose nodes the entities link to."""

    title: str
    cluster: str
    now: datetime
    grids: tuple[Grid, ...]
    graph_page: str

    @property
    def header(self) -> Header:
        return Header.of(self.grids)

    @property
    def cells(self) -> int:
        return sum(len(grid.times) for grid in self.grids)
