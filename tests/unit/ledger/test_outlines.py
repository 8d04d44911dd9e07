"""Outlines as columns: built from a mapping or joined from parts, always in time order."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from toolkit.core.ledger.instance_states import EMPTY_OUTLINES, InstanceOutline, Outlines

T0 = datetime(2026, 11, 1, tzinfo=UTC)
HOUR = timedelta(hours=1)


def outline(n: int) -> InstanceOutline:
    return InstanceOutline("SUCCEEDED" if n % 2 else "FAILED", n, 1_000.0 + n if n % 3 else None, n or None)


def part(*hours: int) -> Outlines:
    return Outlines.of({T0 + hour * HOUR: outline(hour) for hour in hours})


def test_a_mapping_becomes_columns_in_time_order() -> None:
    columns = Outlines.of({T0 + 2 * HOUR: outline(2), T0: outline(0), T0 + HOUR: outline(1)})
    assert columns == Outlines((T0, T0 + HOUR, T0 + 2 * HOUR), ("FAILED", "SUCCEEDED", "FAILED"), (0, 1, 2),
                               (None, 1_001.0, 1_002.0), (None, 1, 2))
    assert columns.by_time() == {T0: outline(0), T0 + HOUR: outline(1), T0 + 2 * HOUR: outline(2)}
    assert Outlines.of({}) == EMPTY_OUTLINES


@pytest.mark.parametrize("parts", [
    [(0, 1), (2, 3)],  # in order: the columns are concatenated
    [(2, 3), (0, 1)],  # out of order
    [(0, 3), (1, 2)],  # interleaved: a folder's instance among a month's
    [(), (1,), (), (0, 5)],
    [(), ()],
])
def test_joined_parts_are_in_time_order(parts: list[tuple[int, ...]]) -> None:
    hours = sorted(hour for each in parts for hour in each)
    assert Outlines.joined([part(*each) for each in parts]) == part(*hours)


def test_columns_of_other_lengths_are_refused() -> None:
    with pytest.raises(ValueError, match=r"outlines of 1 instances have columns of \[0, 1\] entries"):
        Outlines((T0,), ("SUCCEEDED",), (1,), (None,), ())
