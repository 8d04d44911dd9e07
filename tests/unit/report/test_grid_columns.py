"""A grid as columns (toolkit/views/report/model.py): times and states one per instance, SLA misses and details by
index, checked where the grid is built; the page's times as runs of equal steps (html.py)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.views.report.html import _steps
from toolkit.views.report.model import Cell, Details, Grid
from toolkit.views.report.states import State

T = datetime(2026, 1, 1, tzinfo=timezone.utc)
HOURS = tuple(T + timedelta(hours=n) for n in range(3))


def test_a_grid_is_its_columns_and_lists_its_cells() -> None:
    told = Details(run_id="r")
    grid = Grid("process", "p", "hours(1)", (), (), HOURS, (State.SUCCEEDED, State.FAILED, State.WAITING),
                sla={2: "missed"}, details={1: told})
    assert grid.cells == (Cell(HOURS[0], State.SUCCEEDED), Cell(HOURS[1], State.FAILED, None, told),
                          Cell(HOURS[2], State.WAITING, "missed"))


@pytest.mark.parametrize(("columns", "said"), [
    ({"states": (State.SUCCEEDED,)}, "process/p: 1 states for 3 instances"),
    ({"sla": {3: "missed"}}, "process/p: cell 3 is not one of its 3 instances"),
    ({"details": {-1: Details()}}, "process/p: cell -1 is not one of its 3 instances"),
])
def test_a_grid_whose_columns_do_not_line_up_is_refused(columns: dict[str, object], said: str) -> None:
    given_columns: dict[str, object] = {"states": (State.SUCCEEDED,) * 3, **columns}
    with pytest.raises(ValueError, match=said):
        Grid("process", "p", "hours(1)", (), (), HOURS, **given_columns)  # type: ignore[arg-type]


def test_months_take_a_run_per_length_of_month() -> None:
    months = [datetime(2026, month, 1, tzinfo=timezone.utc) for month in range(1, 6)]
    first = int(months[0].timestamp()) // 60
    assert _steps(months) == [first, 31 * 1440, 1, 28 * 1440, 1, 31 * 1440, 1, 30 * 1440, 1]
    assert _steps(HOURS) == [int(T.timestamp()) // 60, 60, 2]
    assert _steps(()) == [] and _steps(HOURS[:1]) == [int(T.timestamp()) // 60]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 3), max_size=30).map(lambda gaps: [sum(gaps[:n]) * 60 for n in range(len(gaps) + 1)]))
def test_the_steps_are_the_times_differences_in_runs(minutes: list[int]) -> None:
    times = [T + timedelta(minutes=minute) for minute in minutes]
    runs = _steps(times)
    walked = [runs[0]]
    for step, repeated in zip(runs[1::2], runs[2::2], strict=True):
        walked += [walked[-1] + step * k for k in range(1, repeated + 1)]
    assert walked == [int(t.timestamp()) // 60 for t in times]
    assert all(step != following for step, following in pairwise(runs[1::2]))  # each run as long as it goes
