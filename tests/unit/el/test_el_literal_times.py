"""A time written as a literal where a time is expected, as Falcon's ExpressionHelper accepts it
(`formatTime("2016-02-01T10:59Z", "yyyy")`, `dateOffset('2016-02-01T10:59Z', 1, 'DAY')`): Falcon parses it
strictly with its one mask yyyy-MM-dd'T'HH:mm'Z' in UTC, and so do we, when the expression is parsed, so a
literal that is no time is refused before anything runs, in one sentence naming it."""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.core.el.context import ELContext
from toolkit.core.el.expressions import parse_expression
from toolkit.core.el.timestamps import format_timestamp
from toolkit.errors import UsageError

UTC = timezone.utc
NOMINAL = ELContext(datetime(2026, 11, 21, 10, 0, tzinfo=UTC))


def ev(expression: str, ctx: ELContext = NOMINAL):
    return parse_expression(expression).evaluate(ctx)


@pytest.mark.parametrize(("pattern", "expected"), [("yyyy", "2016"), ("yyyy-MM", "2016-02"),
                                                   ("yyyy-MM-dd", "2016-02-01")])
def test_falcons_own_format_time_examples(pattern: str, expected: str) -> None:
    # Falcon's ExpressionHelperTest.testFormatTime, word for word (double quotes).
    assert ev(f'formatTime("2016-02-01T10:59Z", "{pattern}")') == expected


def test_literal_times_in_single_quotes_and_in_date_offset() -> None:
    assert ev("formatTime('2016-02-01T10:59Z', 'HH:mm')") == "10:59"
    assert ev("dateOffset('2016-02-01T10:59Z', 1, 'DAY')") == datetime(2016, 2, 2, 10, 59, tzinfo=UTC)
    assert ev("formatTime(dateOffset(' 2016-02-29T23:30Z ', 1, 'HOUR'), 'yyyy-MM-dd HH:mm')") == "2016-03-01 00:30"
    assert parse_expression("dateOffset('2016-02-01T10:59Z', 1, 'DAY')").type == "time"


def test_a_literal_time_does_not_depend_on_the_nominal_time() -> None:
    later = ELContext(datetime(2030, 1, 1, tzinfo=UTC))
    assert ev("formatTime('2016-02-01T10:59Z', 'yyyyMMddHHmm')") == ev("formatTime('2016-02-01T10:59Z', "
                                                                        "'yyyyMMddHHmm')", later) == "201602011059"


def test_a_literal_time_is_formatted_in_the_zone_like_any_time() -> None:
    kolkata = ELContext(NOMINAL.nominal, ZoneInfo("Asia/Kolkata"))
    assert ev("formatTime('2016-02-01T20:00Z', 'yyyy-MM-dd HH:mm')", kolkata) == "2016-02-02 01:30"


@pytest.mark.parametrize("literal", [
    "2016-02-30T10:59Z",  # no such day (Falcon's parser is not lenient either)
    "2016-02-01T24:00Z",
    "2016-02-01 10:59",
    "2016-02-01T10:59",  # no zone: Falcon's mask requires the Z
    "2016-02-01T10:59+0530",
    "2016-02-01T10:59Z and more",
    "yesterday",
    "",
])
def test_a_literal_that_is_no_time_is_refused_when_parsed_naming_it(literal: str) -> None:
    expression = f"formatTime('{literal}', 'yyyy')"
    with pytest.raises(UsageError) as caught:
        parse_expression(expression)
    message = str(caught.value)
    assert repr(literal) in message and "yyyy-MM-ddTHH:mmZ" in message and "formatTime(time, pattern)" in message
    assert message.count("\n") == 0


def test_text_that_is_not_literal_still_is_no_time() -> None:
    with pytest.raises(UsageError, match="argument time of dateOffset"):
        parse_expression("dateOffset(formatTime(now(0,0), 'yyyy'), 1, 'DAY')")


minutes = st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30)).map(
    lambda t: t.replace(second=0, microsecond=0, tzinfo=UTC))


@settings(max_examples=200, deadline=None)
@given(minutes)
def test_round_trip_the_engines_own_times(t: datetime) -> None:
    # What the engine prints for a time (instanceTime(), the CLI) reads back as the same time, and a literal
    # formats exactly as the same time reached through instanceTime().
    literal = format_timestamp(t)
    assert ev(f"dateOffset('{literal}', 0, 'MINUTE')") == t
    assert ev(f"formatTime('{literal}', \"yyyy-MM-dd'T'HH:mm'Z'\")") == literal
    assert ev(f"formatTime('{literal}', 'EEE dd MMM yyyy HH:mm')") == ev(
        "formatTime(instanceTime(), 'EEE dd MMM yyyy HH:mm')", ELContext(t))
