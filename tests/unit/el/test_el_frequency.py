"""Frequencies (issue 2, section 3): minutes(n), hours(n), days(n), months(n), n a positive integer
without leading zeros; minutes and hours are elapsed time, days and months calendar units."""

import pytest

from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.errors import UsageError


@pytest.mark.parametrize(
    ("text", "unit", "count"),
    [
        ("minutes(1)", TimeUnit.MINUTES, 1),
        ("minutes(15)", TimeUnit.MINUTES, 15),
        ("hours(1)", TimeUnit.HOURS, 1),
        ("hours(24)", TimeUnit.HOURS, 24),
        ("days(1)", TimeUnit.DAYS, 1),
        ("days(7)", TimeUnit.DAYS, 7),
        ("months(1)", TimeUnit.MONTHS, 1),
        ("months(12)", TimeUnit.MONTHS, 12),
        ("minutes(10080)", TimeUnit.MINUTES, 10080),
        ("hours(100)", TimeUnit.HOURS, 100),  # zeros inside the number are not leading zeros
    ],
)
def test_valid_frequencies_parse_to_unit_and_count(text, unit, count):
    frequency = Frequency.parse(text)
    assert frequency.unit is unit
    assert frequency.count == count
    assert frequency == Frequency(unit, count)


@pytest.mark.parametrize("text", ["minutes(5)", "hours(1)", "days(30)", "months(3)"])
def test_canonical_text_round_trips(text):
    assert str(Frequency.parse(text)) == text
    assert Frequency.parse(str(Frequency.parse(text))) == Frequency.parse(text)


@pytest.mark.parametrize(
    "text",
    [
        "hours(01)",  # leading zero
        "days(007)",  # leading zeros
        "hours(00)",
        "hours(0)",  # zero is not positive
        "minutes(-5)",
        "hours(+1)",
        "hours(1.5)",
        "hours()",
        "hours(one)",
        "hours(1",
        "hours 1",
        "hours(1)x",
        "hours(1)(2)",
        "weeks(1)",  # unknown unit
        "seconds(30)",
        "years(1)",
        "hour(1)",
        "HOURS(1)",
        "1 hours",
        "",
    ],
)
def test_invalid_frequencies_are_usage_errors(text):
    with pytest.raises(UsageError):
        Frequency.parse(text)


def test_invalid_frequency_message_names_the_text():
    with pytest.raises(UsageError) as caught:
        Frequency.parse("weeks(2)")
    assert "weeks(2)" in str(caught.value)


def test_non_text_is_a_usage_error():
    with pytest.raises(UsageError):
        Frequency.parse(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [0, -1])
def test_constructed_frequency_needs_a_positive_count(count):
    with pytest.raises(UsageError):
        Frequency(TimeUnit.HOURS, count)


def test_elapsed_and_calendar_units():
    assert Frequency.parse("minutes(5)").elapsed_seconds == 5 * 60
    assert Frequency.parse("hours(2)").elapsed_seconds == 2 * 3600
    # Days and months are calendar units: no fixed length in seconds.
    assert Frequency.parse("days(1)").elapsed_seconds is None
    assert Frequency.parse("months(1)").elapsed_seconds is None
    assert not TimeUnit.MINUTES.is_calendar
    assert not TimeUnit.HOURS.is_calendar
    assert TimeUnit.DAYS.is_calendar
    assert TimeUnit.MONTHS.is_calendar


def test_frequencies_are_hashable_values():
    assert len({Frequency.parse("hours(1)"), Frequency.parse("hours(1)"), Frequency.parse("hours(2)")}) == 2
