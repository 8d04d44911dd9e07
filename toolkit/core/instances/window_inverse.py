"""Which process instances read a given feed instance: the inverse of the window arithmetic.

A data-triggered process must learn, from one new event (feed, t), which of its instances T the event may
complete. Resolving every instance's windows forward would walk the process grid; instead each window end is
inverted. Instance T's window of an input is (`toolkit.core.el.resolution.resolve_window`) every feed instance from
the start's value snapped down onto the feed grid to the end's value, so a feed instance t (index k) is in it
exactly when

    start(T) < min(feed instance k + 1, feed validity end)   and   end(T) >= t.

start and end are monotone non-decreasing in T (below), so the first condition holds on a prefix of the process
grid and the second on a suffix: the answer is one contiguous run of process instances, its two ends found by
galloping from t's place on the process grid and bisecting (O(log n) evaluations, never a walk of the grid).

Why monotone: now(), instanceTime() and dateOffset(x, n, MINUTE|HOUR) add elapsed time; today(), yesterday(),
the week, month and year functions truncate the wall clock in the feed's zone, move it by calendar units and add
elapsed hours and minutes. Distinct truncated wall times are at least a day apart, more than any DST shift, so
their instants keep their order; and wall-clock dates step back only where a zone falls back across midnight,
which from 1970 to 2039 only St. John's, Goose Bay and Moncton did (at 00:01, until 2010) and Casey once in
2010 (for that hour, the answer there may differ from the forward resolution). Not invertible, and refused with
NotInvertible: latest() and future(), which pick among the instances that exist, and dateOffset by DAY, WEEK,
MONTH or YEAR, whose result steps back when its argument's wall clock falls back (02:45 before the change and
02:00 after it, both moved a day).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.context import ELContext
from toolkit.core.el.expressions import Call, Expression, Node, Text, parse_expression
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timezones import UTC
from toolkit.core.entities.model import Input, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import feed_grid_for_processes, process_grid
from toolkit.errors import UsageError

_ELAPSED_UNITS = ("MINUTE", "HOUR")
_PICKS_AMONG_EXISTING = ("latest", "future")
_LAST_TIME = datetime(9999, 12, 30, tzinfo=UTC)


class NotInvertible(UsageError):
    """An input window whose ends are not monotone in the process instance time (see the module docstring)."""


@dataclass(frozen=True)
class InstanceSpan:
    """Process instances `first`..`last` (indices on `grid`, both included; empty when last < first)."""

    grid: InstanceGrid
    first: int
    last: int

    def __len__(self) -> int:
        return max(0, self.last - self.first + 1)

    def __iter__(self) -> Iterator[datetime]:
        return (self.grid.time_of(k) for k in range(self.first, self.last + 1))

    @property
    def times(self) -> tuple[datetime, ...]:
        return tuple(self)


def why_not_invertible(expression: Expression) -> str | None:
    """Why the expression's value is not monotone in the nominal time, or None when it is."""
    return _why_not(expression.node)


def _why_not(node: Node) -> str | None:
    if not isinstance(node, Call):
        return None  # numbers, arithmetic on numbers and literal texts or times do not depend on the nominal time
    if node.name in _PICKS_AMONG_EXISTING:
        return (f"{node.name}() picks among the feed instances that exist, so no time arithmetic inverts it; "
                "write the window with now(), today() and the like, or keep the process on trigger: time")
    if node.name == "dateOffset":
        unit = node.args[2]
        if not (isinstance(unit, Text) and unit.value.upper() in _ELAPSED_UNITS):
            return ("dateOffset by a calendar unit steps back when its time's wall clock falls back at a DST change; "
                    "use MINUTE or HOUR, or today(), yesterday(), currentMonth() and the like, or keep the process "
                    "on trigger: time")
    return next((reason for reason in map(_why_not, node.args) if reason is not None), None)


def readers_of(start: str | Expression, end: str | Expression, feed: InstanceGrid, process: InstanceGrid,
               t: datetime) -> InstanceSpan:
    """The instances T of `process` whose window start..end (EL, evaluated in the feed grid's zone as
    `resolve_window` does) holds the feed instance t; empty when t is no instance of `feed`."""
    first_expr, last_expr = _invertible(start), _invertible(end)
    k_t = feed.index_of(t)
    last = process.last_index
    top = last if last is not None else process.floor_index(_LAST_TIME)
    if k_t is None or top < 0:
        return InstanceSpan(process, 0, -1)
    bound = _time_or_none(feed, k_t + 1)  # the window start must lie before the next feed instance ...
    if feed.end is not None and (bound is None or feed.end < bound):
        bound = feed.end  # ... and before the feed's validity end, where the window is empty

    def value(expression: Expression, k: int) -> datetime:
        nominal = process.time_of(k)
        try:
            result = expression.evaluate_time(ELContext(nominal=nominal, zone=feed.zone, grid=feed))
        except UsageError:  # beyond the years 1 to 9999: beyond t on the side where the nominal time lies
            return datetime.max.replace(tzinfo=UTC) if nominal >= t else datetime.min.replace(tzinfo=UTC)
        assert result is not None  # only latest() and future() give None, and _invertible refused them
        return result

    guess = process.floor_index(t)  # windows mostly lie near their nominal time
    lowest = _first_true(0, top, guess, lambda k: value(last_expr, k) >= t)
    highest = _first_true(0, top, guess, lambda k: bound is not None and value(first_expr, k) >= bound) - 1
    return InstanceSpan(process, lowest, highest)


def _invertible(expr: str | Expression) -> Expression:
    expression = expr if isinstance(expr, Expression) else parse_expression(expr)
    reason = why_not_invertible(expression)
    if reason is not None:
        raise NotInvertible(f"The window expression {expression.text!r} cannot be inverted: {reason}.")
    return expression


def _time_or_none(grid: InstanceGrid, k: int) -> datetime | None:
    """Instance k's time, or None when it lies beyond the year 9999."""
    try:
        return grid.time_of(k)
    except (OverflowError, ValueError):
        return None


def _first_true(low: int, high: int, guess: int, predicate: Callable[[int], bool]) -> int:
    """The smallest k in low..high where a monotone (false, then true) predicate holds; high + 1 when none.

    Gallops from `guess` (steps 1, 2, 4, ...) to bracket the answer, then bisects: O(log d) evaluations for an
    answer d instances from the guess, so a short window costs a handful however long the grid is."""
    guess = min(max(guess, low), high)
    step = 1
    if predicate(guess):
        high = guess - 1  # the answer is guess or below
        while high >= low:
            probe = max(guess - step, low)
            if not predicate(probe):
                low = probe + 1
                break
            high, step = probe - 1, step * 2
        return _bisect(low, high, predicate)
    low = guess + 1  # the answer is above guess
    while low <= high:
        probe = min(guess + step, high)
        if predicate(probe):
            return _bisect(low, probe - 1, predicate)
        low, step = probe + 1, step * 2
    return high + 1


def _bisect(low: int, high: int, predicate: Callable[[int], bool]) -> int:
    """_first_true by halving low..high, all of whose predecessors are known false and whose successor true."""
    high += 1
    while low < high:
        middle = (low + high) // 2
        if predicate(middle):
            high = middle
        else:
            low = middle + 1
    return low


def instances_reading(repo: ConfigRepo, process: Process, cluster: str, input_name: str,
                      t: datetime) -> InstanceSpan:
    """The instances of `process` on `cluster` whose window of input `input_name` holds instance t of its feed."""
    item = process.input(input_name)
    if item is None:
        raise UsageError(f"The process '{process.name}' has no input '{input_name}': its inputs are "
                         f"{', '.join(i.name for i in process.inputs) or 'none'}.")
    try:
        return readers_of(*item.require_window(), feed_grid_for_processes(repo.feed(item.feed), cluster),
                          process_grid(process, cluster), t)
    except NotInvertible as err:
        raise _naming(err, process, item) from None


def candidate_instances(repo: ConfigRepo, process: Process, cluster: str,
                        events: Iterable[tuple[str, datetime]]) -> tuple[datetime, ...]:
    """The instances of `process` on `cluster` that some event (feed, instance time) may complete, oldest first:
    the union, over the events and every input (required or optional) reading the event's feed, of the instances
    whose window holds it. Runs of instances are merged as index ranges before any time is produced."""
    grid = process_grid(process, cluster)
    by_feed: dict[str, set[datetime]] = {}
    for feed_name, t in events:
        by_feed.setdefault(feed_name, set()).add(t)
    ranges: list[tuple[int, int]] = []
    for item in process.inputs:
        if item.feed in by_feed:
            on_feed = feed_grid_for_processes(repo.feed(item.feed), cluster)
            try:
                ranges += ranges_reading(*item.require_window(), on_feed, grid, by_feed[item.feed])
            except NotInvertible as err:
                raise _naming(err, process, item) from None
    return tuple(time for first, last in _merged(ranges) for time in InstanceSpan(grid, first, last))


def ranges_reading(start: str | Expression, end: str | Expression, feed: InstanceGrid, process: InstanceGrid,
                   times: Iterable[datetime]) -> list[tuple[int, int]]:
    """The process instances (merged runs of indices, oldest first) whose window holds one of the feed instances.

    The ends of readers_of(t) are non-decreasing in t, so when the runs of two feed instances t1 < t2 overlap or
    touch, every feed instance between them is read by instances of those two runs only: a sorted batch is split
    in halves until that holds, so the events one run of readers shares cost two searches (a day of hourly events
    read by one daily instance: two, not 24)."""
    ordered = sorted(set(times))
    spans: dict[int, InstanceSpan] = {}

    def span(i: int) -> InstanceSpan:
        if i not in spans:
            spans[i] = readers_of(start, end, feed, process, ordered[i])
        return spans[i]

    found: list[tuple[int, int]] = []
    pending = [(0, len(ordered) - 1)] if ordered else []
    while pending:
        i, j = pending.pop()
        first, last = span(i), span(j)
        if len(first) and len(last) and last.first <= first.last + 1:
            found.append((first.first, last.last))
        elif j - i <= 1:
            found += [(s.first, s.last) for s in (first, last) if len(s)]
        else:
            middle = (i + j) // 2
            pending += [(i, middle), (middle, j)]
    return _merged(found)


def _merged(ranges: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def _naming(err: NotInvertible, process: Process, item: Input) -> NotInvertible:
    reason = str(err)
    return NotInvertible(f"The input '{item.name}' of process '{process.name}' cannot be triggered by data: "
                         f"{reason[0].lower()}{reason[1:]}")
