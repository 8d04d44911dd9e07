"""Input windows and output instances of a process instance, on a feed's grid.

An expression is evaluated from the process instance's nominal time in the feed's zone, then snapped
down to the feed's grid (the instance at or before the result). A window `start..end` is every feed
instance between the two, both ends included, oldest first; instances that would lie before the
feed's first instance or at or after its validity end do not exist and are left out, so a window wholly
outside the validity is empty. A single instance outside the validity is None: no instance (the last
instance never stands in for a time after the end). A process's inputs and outputs are resolved on
`feed_grid_for_processes`, whose end is right after the feed's validity end, so an instance exactly at the
validity end exists for them (as Falcon's processes read and write it).
"""

from __future__ import annotations

from datetime import datetime

from toolkit.core.el.context import ELContext
from toolkit.core.el.expressions import Expression, parse_expression
from toolkit.core.el.grid import InstanceGrid


def _context(nominal: datetime, grid: InstanceGrid, available: tuple[datetime, ...] | None) -> ELContext:
    return ELContext(nominal=nominal, zone=grid.zone, grid=grid, available=available)


def _expression(expr: str | Expression) -> Expression:
    return expr if isinstance(expr, Expression) else parse_expression(expr)


def _snap(grid: InstanceGrid, value: datetime) -> datetime | None:
    """The feed instance at or before `value`; None before the first instance and at or after the
    validity end (the feed has no instance there: the last one must not stand in for it)."""
    if grid.end is not None and value >= grid.end:
        return None
    return grid.at_or_before(value)


def resolve_instance(expr: str | Expression, nominal: datetime, grid: InstanceGrid,
                     available: tuple[datetime, ...] | None = None) -> datetime | None:
    """The feed instance an expression names for a nominal time, or None when there is none."""
    value = _expression(expr).evaluate_time(_context(nominal, grid, available))
    return None if value is None else _snap(grid, value)


def resolve_window(start: str | Expression, end: str | Expression, nominal: datetime, grid: InstanceGrid,
                   available: tuple[datetime, ...] | None = None) -> tuple[datetime, ...]:
    """Every feed instance from the start's instance to the end's, oldest first."""
    ctx = _context(nominal, grid, available)
    first = _expression(start).evaluate_time(ctx)
    last = _expression(end).evaluate_time(ctx)
    if first is None or last is None or (grid.end is not None and first >= grid.end):
        return ()
    snapped = _snap(grid, first)
    return tuple(grid.between(snapped if snapped is not None else first, last))
