"""The edges of time and of input: the years 1 and 9999, enormous frequencies, deeply nested
expressions. Each is an answer or a clear error, never a crash."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from toolkit.core.el.expressions import parse_expression
from toolkit.core.el.frequency import Frequency
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.templates import PathTemplate
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.el.timezones import resolve_zone
from toolkit.errors import UsageError


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=timezone.utc)


def test_years_below_1000_are_padded_so_they_parse_back() -> None:
    assert format_timestamp(utc(1, 1, 1)) == "0001-01-01T00:00Z"
    assert format_timestamp(utc(999, 12, 31, 23, 59)) == "0999-12-31T23:59Z"


def test_no_instance_after_year_9999() -> None:
    grid = InstanceGrid(utc(9999, 12, 31), Frequency.parse("hours(1)"))
    assert grid.at_or_after(utc(9999, 12, 31, 23, 30)) is None
    daily = InstanceGrid(utc(2026, 1, 1), Frequency.parse("days(1)"), resolve_zone("Asia/Tokyo"))
    assert daily.at_or_after(utc(9999, 12, 31, 23, 30)) is None
    # Instances are at 09:00 in Tokyo (00:00Z); 23:30Z is already the year 10000 there.
    assert daily.at_or_before(utc(9999, 12, 31, 23, 30)) == utc(9999, 12, 31)


def test_a_frequency_longer_than_the_calendar_has_one_instance() -> None:
    grid = InstanceGrid(utc(2026, 1, 1), Frequency.parse("hours(99999999999)"), end=utc(9999, 12, 31))
    assert grid.last_index == 0
    assert grid.at_or_before(utc(9000, 1, 1)) == utc(2026, 1, 1)
    assert grid.at_or_after(utc(2026, 1, 1, 0, 1)) is None


def test_parsing_a_path_dated_before_year_1_in_utc_is_no_instance() -> None:
    # 0001-01-01 00:00 in Tokyo is 9 hours before the first instant Python can represent in UTC.
    assert PathTemplate("/d/${YEAR}/${MONTH}/${DAY}").parse("/d/0001/01/01", resolve_zone("Asia/Tokyo")) is None


# A chain of operators nests too: `1+1+1` is `(1+1)+1`, and the walks over an expression recurse per level.
@pytest.mark.parametrize("text", ["(" * 500 + "1" + ")" * 500, "now(" + "-" * 500 + "1,0)",
                                  "now(" + "+".join(["1"] * 3_000) + ",0)", "now(" + "*".join(["1"] * 3_000) + ",0)",
                                  "now(0," + "-1" * 3_000 + ")", "now(" + "+".join(["(1*2-3)"] * 3_000) + ",0)"])
def test_deep_nesting_is_refused_with_a_short_message(text: str) -> None:
    with pytest.raises(UsageError, match=r"nests more than 50 .* deep") as caught:
        parse_expression(text)
    assert len(str(caught.value)) < 200


def test_a_chain_is_refused_from_the_51st_level() -> None:
    """now() is a level, each operator one more, the last number one: 49 numbers make 50 levels."""
    assert parse_expression("now(" + "+".join(["1"] * 49) + ",0)").type == "time"
    with pytest.raises(UsageError, match=r"nests more than 50 .* deep"):
        parse_expression("now(" + "+".join(["1"] * 50) + ",0)")


def test_ordinary_nesting_still_parses() -> None:
    assert parse_expression("formatTime(dateOffset(dateOffset(instanceTime(), -(1), 'DAY'), 1, 'HOUR'), 'HH')").type \
        == "text"
