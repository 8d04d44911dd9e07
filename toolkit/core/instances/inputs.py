"""A process instance's inputs, resolved against what exists: each input's window of feed instances (EL
windows on the feed's grid), each instance available or not, with its fingerprint.

`latest(n)` and `future(n, limit)` pick among the instances that exist: instances are probed in chunks,
backwards from the nominal time for `latest` (until the window resolves, at most LATEST_LOOKBACK instances
back, never before the feed's first instance) and forwards for `future` (at most FUTURE_PROBE instances), so
a feed with years of history is never listed whole. A window they cannot resolve (too few instances exist)
is unresolved, and a required input that is unresolved is missing: the run waits, it does not run on nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.expressions import Expression, parse_expression
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.resolution import resolve_window
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Feed, Input
from toolkit.core.instances.availability import InstanceState
from toolkit.core.instances.feed_locations import FeedLocations

# Instances probed per round trip when `latest`/`future` look for the instances that exist.
PROBE_CHUNK = 96
# How far ahead `future(n, limit)` looks at most, in instances (its limit is usually a handful).
FUTURE_PROBE = 384
# How far back `latest(n)` looks at most, in instances (40 days of an hourly feed, 2.6 years of a daily one).
LATEST_LOOKBACK = PROBE_CHUNK * 10

Probe = Callable[[Sequence[datetime]], Mapping[datetime, InstanceState]]


@dataclass(frozen=True)
class ResolvedInput:
    """One input of a process instance on a cluster: the process's input, its feed's locations there, its window's
    instances (oldest first) and, once checked against storage, their states. The one model of a resolved input,
    for `toolkit instances` (described, storage untouched) and the process runner (checked, recorded)."""

    item: Input
    feed: Feed
    where: FeedLocations
    times: tuple[datetime, ...] | None  # None: latest()/future() pick among instances that exist, not known here
    states: tuple[InstanceState, ...] | None = None  # None: not checked against storage
    unresolved: str | None = None  # why the window has no instances

    @property
    def name(self) -> str:
        return self.item.name

    @property
    def optional(self) -> bool:
        return self.item.optional

    @property
    def is_table(self) -> bool:
        return self.where.is_table

    @property
    def checked_states(self) -> tuple[InstanceState, ...]:
        if self.states is None:
            raise ValueError(f"The input '{self.name}' was not checked against storage.")
        return self.states

    @property
    def missing(self) -> tuple[InstanceState, ...]:
        return tuple(state for state in self.checked_states if not state.available)

    def describe_missing(self) -> list[str]:
        unresolved = [f"{self.feed.name} {self.unresolved}"] if self.unresolved else []
        return unresolved + [f"{self.feed.name} {format_timestamp(s.time)} ({s.location})" for s in self.missing]

    def to_json(self, with_fingerprints: bool = True) -> dict[str, object]:
        """The checked input as the ledger records it: each instance's location, availability and fingerprint."""
        instances = []
        for state in self.checked_states:
            item: dict[str, object] = {"time": format_timestamp(state.time), "location": state.location,
                                       "available": state.available}
            if with_fingerprints and state.fingerprint is not None:
                item["fingerprint"] = state.fingerprint.to_json()
            instances.append(item)
        described: dict[str, object] = {"name": self.name, "feed": self.feed.name, "optional": self.optional,
                                        "instances": instances}
        if self.unresolved:
            described["unresolved"] = self.unresolved
        return described

    def describe(self) -> dict[str, object]:
        """The input as `toolkit instances` prints it: its window and each instance's path or partition."""
        described: dict[str, object] = {
            "name": self.name, "feed": self.feed.name, "start": self.item.start, "end": self.item.end,
            "optional": self.optional, "partition": self.item.partition,
            "availability_flag": self.feed.availability_flag,
            "instances": None if self.times is None else tuple(self.where.describe(t) for t in self.times)}
        if self.unresolved is not None:
            described["unresolved"] = self.unresolved
        return described


def describe_input(item: Input, feed: Feed, where: FeedLocations, grid: InstanceGrid, nominal: datetime,
                   available: tuple[datetime, ...] | None) -> ResolvedInput:
    """The input's window without looking at storage: latest()/future() pick among `available`, the instances
    said to exist, and are unresolved without it."""
    start, end = (parse_expression(text) for text in item.require_window())
    if (start.needs_available or end.needs_available) and available is None:
        return ResolvedInput(item, feed, where, None, unresolved=(
            f"{item.start}..{item.end} picks among the instances of feed '{feed.name}' that exist; "
            "they are known at run time"))
    return ResolvedInput(item, feed, where, resolve_window(start, end, nominal, grid, available))


def resolve_input(item: Input, feed: Feed, where: FeedLocations, grid: InstanceGrid, nominal: datetime,
                  probe: Probe) -> ResolvedInput:
    """The input's window checked against storage through `probe`; latest()/future() probe for what exists."""
    start, end = (parse_expression(text) for text in item.require_window())
    if not (start.needs_available or end.needs_available):
        window = resolve_window(start, end, nominal, grid)
        states = probe(window)
        return ResolvedInput(item, feed, where, window, tuple(states[t] for t in window))
    known: dict[datetime, InstanceState] = {}
    window = _window_among_existing(start, end, nominal, grid, probe, known)
    missing = [t for t in window if t not in known]
    if missing:
        known.update(probe(missing))
    unresolved = None if window else (
        f"{item.start}..{item.end}: not enough instances exist (looked back {LATEST_LOOKBACK} and ahead "
        f"{FUTURE_PROBE} instances from {format_timestamp(nominal)})")
    return ResolvedInput(item, feed, where, window, tuple(known[t] for t in window), unresolved)


def _window_among_existing(start: Expression, end: Expression, nominal: datetime, grid: InstanceGrid, probe: Probe,
                           known: dict[datetime, InstanceState]) -> tuple[datetime, ...]:
    """Probe chunks of instances until `latest`/`future` resolve; `known` collects every state seen."""

    def available() -> tuple[datetime, ...]:
        return tuple(sorted(t for t, state in known.items() if state.available))

    last = grid.last_index
    top = grid.floor_index(nominal) if last is None else min(grid.floor_index(nominal), last)
    if "future" in start.functions | end.functions:
        upper = top + FUTURE_PROBE if last is None else min(top + FUTURE_PROBE, last)
        known.update(probe([grid.time_of(k) for k in range(max(top, 0), upper + 1)]))
    floor = max(top - LATEST_LOOKBACK + 1, 0)
    while True:
        window = resolve_window(start, end, nominal, grid, available())
        if window or top < floor:
            return window
        bottom = max(top - PROBE_CHUNK + 1, floor)
        known.update(probe([grid.time_of(k) for k in range(bottom, top + 1)]))
        top = bottom - 1
