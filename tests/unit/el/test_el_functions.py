"""EL functions (issue 2, section 3), evaluated from a nominal time in a zone: truncate first (day,
week day, month, year in the zone), then add years, months, days on the calendar, then hours and
minutes (elapsed); day and month arguments are 0-based offsets that may be negative or overflow."""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.core.el.context import ELContext
from toolkit.core.el.expressions import parse_expression
from toolkit.core.el.frequency import Frequency
from toolkit.core.el.grid import InstanceGrid
from toolkit.errors import UsageError

UTC = timezone.utc
LA = ZoneInfo("America/Los_Angeles")
KOLKATA = ZoneInfo("Asia/Kolkata")
ZUTC = ZoneInfo("UTC")


def utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%MZ").replace(tzinfo=UTC)


def ev(expression: str, nominal: str, zone: ZoneInfo = ZUTC, grid=None, available=None):
    ctx = ELContext(utc(nominal), zone, grid, None if available is None else tuple(utc(a) for a in available))
    return parse_expression(expression).evaluate(ctx)


def names(expression: str, message: str) -> bool:
    """The message quotes the expression (as it is, or as Python's repr of it)."""
    return expression in message or repr(expression) in message


# 2026-11-21 is a Saturday; November has 30 days, October 31.
NOMINAL = "2026-11-21T10:00Z"


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("now(0,0)", "2026-11-21T10:00Z"),
        ("now(-1,0)", "2026-11-21T09:00Z"),
        ("now(0,-60)", "2026-11-21T09:00Z"),
        ("now(1,90)", "2026-11-21T12:30Z"),
        ("now(-24,0)", "2026-11-20T10:00Z"),
        ("now(-24*7,0)", "2026-11-14T10:00Z"),
        ("today(0,0)", "2026-11-21T00:00Z"),
        ("today(23,59)", "2026-11-21T23:59Z"),
        ("today(-1,0)", "2026-11-20T23:00Z"),
        ("today(0,-30)", "2026-11-20T23:30Z"),
        ("today(48,0)", "2026-11-23T00:00Z"),
        ("yesterday(0,0)", "2026-11-20T00:00Z"),
        ("yesterday(24,30)", "2026-11-21T00:30Z"),  # the example: 00:30 today
        ("yesterday(-24,0)", "2026-11-19T00:00Z"),
        ("yesterday(12,-15)", "2026-11-20T11:45Z"),
        # Most recent Wednesday, today included: Sat 21 -> Wed 18; SAT is today; SUN is the 15th.
        ("currentWeek('WED',0,0)", "2026-11-18T00:00Z"),
        ("currentWeek('SAT',0,0)", "2026-11-21T00:00Z"),
        ("currentWeek('SUN',0,0)", "2026-11-15T00:00Z"),
        ("currentWeek('FRI',0,0)", "2026-11-20T00:00Z"),
        ("currentWeek('MON',2,30)", "2026-11-16T02:30Z"),
        ("currentWeek('TUE',-1,0)", "2026-11-16T23:00Z"),
        ("lastWeek('WED',0,0)", "2026-11-11T00:00Z"),
        ("lastWeek('SAT',0,0)", "2026-11-14T00:00Z"),
        ("lastWeek('THU',6,0)", "2026-11-12T06:00Z"),
        ("currentMonth(0,0,0)", "2026-11-01T00:00Z"),
        ("currentMonth(14,6,0)", "2026-11-15T06:00Z"),
        ("currentMonth(-1,0,0)", "2026-10-31T00:00Z"),  # last day of the previous month
        ("currentMonth(29,0,0)", "2026-11-30T00:00Z"),
        ("currentMonth(30,0,0)", "2026-12-01T00:00Z"),  # November has 30 days: overflow into December
        ("currentMonth(0,-1,0)", "2026-10-31T23:00Z"),
        ("lastMonth(0,0,0)", "2026-10-01T00:00Z"),
        ("lastMonth(30,0,0)", "2026-10-31T00:00Z"),
        ("lastMonth(31,0,0)", "2026-11-01T00:00Z"),  # Oct 1 + 31 days
        ("lastMonth(-1,0,0)", "2026-09-30T00:00Z"),
        ("currentYear(0,0,0,0)", "2026-01-01T00:00Z"),
        ("currentYear(10,20,0,0)", "2026-11-21T00:00Z"),
        ("currentYear(1,28,0,0)", "2026-03-01T00:00Z"),  # Feb 1 + 28 days, 2026 is common
        ("currentYear(11,30,23,59)", "2026-12-31T23:59Z"),
        ("currentYear(12,0,0,0)", "2027-01-01T00:00Z"),
        ("currentYear(-1,0,0,0)", "2025-12-01T00:00Z"),
        ("currentYear(0,-1,0,0)", "2025-12-31T00:00Z"),
        ("lastYear(0,0,0,0)", "2025-01-01T00:00Z"),
        ("lastYear(1,28,0,0)", "2025-03-01T00:00Z"),
        ("lastYear(11,30,0,0)", "2025-12-31T00:00Z"),
        ("lastYear(-1,0,0,0)", "2024-12-01T00:00Z"),
        ("instanceTime()", "2026-11-21T10:00Z"),
        ("dateOffset(instanceTime(), -1, 'DAY')", "2026-11-20T10:00Z"),
        ("dateOffset(instanceTime(), 2, 'HOUR')", "2026-11-21T12:00Z"),
        ("dateOffset(instanceTime(), -90, 'MINUTE')", "2026-11-21T08:30Z"),
        ("dateOffset(instanceTime(), 1, 'WEEK')", "2026-11-28T10:00Z"),
        ("dateOffset(instanceTime(), -1, 'MONTH')", "2026-10-21T10:00Z"),
        ("dateOffset(instanceTime(), 1, 'YEAR')", "2027-11-21T10:00Z"),
        ("dateOffset(today(0,0), -2, 'DAY')", "2026-11-19T00:00Z"),
        ("dateOffset(dateOffset(instanceTime(), 1, 'MONTH'), 1, 'DAY')", "2026-12-22T10:00Z"),
    ],
)
def test_functions_in_utc(expression, expected):
    assert ev(expression, NOMINAL) == utc(expected)


def test_month_arguments_and_leap_years():
    # Feb 1 2024 + 28 days = Feb 29 (leap); + 30 days = Mar 2.
    assert ev("currentYear(1,28,0,0)", "2024-07-01T00:00Z") == utc("2024-02-29T00:00Z")
    assert ev("currentYear(1,30,0,0)", "2024-07-01T00:00Z") == utc("2024-03-02T00:00Z")
    assert ev("lastYear(1,28,0,0)", "2025-07-01T00:00Z") == utc("2024-02-29T00:00Z")
    # lastMonth from March: Feb 1 + 31 days -> Mar 4 in 2026 (28-day Feb), Mar 3 in 2024 (29-day Feb).
    assert ev("lastMonth(31,0,0)", "2026-03-15T00:00Z") == utc("2026-03-04T00:00Z")
    assert ev("lastMonth(31,0,0)", "2024-03-15T00:00Z") == utc("2024-03-03T00:00Z")
    assert ev("currentMonth(-1,0,0)", "2024-03-15T00:00Z") == utc("2024-02-29T00:00Z")
    assert ev("currentMonth(-1,0,0)", "2026-01-15T00:00Z") == utc("2025-12-31T00:00Z")
    assert ev("lastMonth(0,0,0)", "2026-01-15T00:00Z") == utc("2025-12-01T00:00Z")


def test_date_offset_months_clamp_to_the_month_end():
    assert ev("dateOffset(instanceTime(), -1, 'MONTH')", "2026-03-31T10:00Z") == utc("2026-02-28T10:00Z")
    assert ev("dateOffset(instanceTime(), 1, 'MONTH')", "2024-01-31T10:00Z") == utc("2024-02-29T10:00Z")
    assert ev("dateOffset(instanceTime(), 1, 'YEAR')", "2024-02-29T10:00Z") == utc("2025-02-28T10:00Z")
    assert ev("dateOffset(instanceTime(), 4, 'YEAR')", "2024-02-29T10:00Z") == utc("2028-02-29T10:00Z")


def test_wrapper_and_blanks():
    assert ev("${now(0,-60)}", NOMINAL) == utc("2026-11-21T09:00Z")
    assert ev("  ${ today( 1 , 0 ) }  ", NOMINAL) == utc("2026-11-21T01:00Z")


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("now(-24*7, 0)", "2026-11-14T10:00Z"),
        ("now((1+2)*-1, 0)", "2026-11-21T07:00Z"),
        ("now(0, -(60+30))", "2026-11-21T08:30Z"),
        ("now(2*3-1, 0)", "2026-11-21T15:00Z"),  # * binds tighter than -
        ("now(1-2-3, 0)", "2026-11-21T06:00Z"),  # left to right: (1-2)-3 = -4
        ("today(-(-2), 0)", "2026-11-21T02:00Z"),
        ("currentMonth(-1*1, 0, 0)", "2026-10-31T00:00Z"),
        ("dateOffset(instanceTime(), 0-7, 'DAY')", "2026-11-14T10:00Z"),
    ],
)
def test_arithmetic_in_arguments(expression, expected):
    assert ev(expression, NOMINAL) == utc(expected)


# -- formatTime ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("formatTime(instanceTime(), 'yyyy-MMM-dd')", "2026-Nov-21"),
        ("formatTime(instanceTime(), 'yyyyMMddHH')", "2026112110"),
        ("formatTime(instanceTime(), 'EEE')", "Sat"),
        ("formatTime(instanceTime(), 'EEEE')", "Saturday"),
        ("formatTime(instanceTime(), 'MMMM d, yyyy')", "November 21, 2026"),
        ("formatTime(instanceTime(), \"yyyy-MM-dd'T'HH:mm'Z'\")", "2026-11-21T10:00Z"),
        ("formatTime(dateOffset(instanceTime(), -1, 'DAY'), 'yyyy-MMM-dd')", "2026-Nov-20"),
        ("formatTime(yesterday(0,0), 'yyyy/MM/dd')", "2026/11/20"),
        ("${formatTime(now(0,0), 'yy.MM.dd')}", "26.11.21"),
    ],
)
def test_format_time(expression, expected):
    assert ev(expression, NOMINAL) == expected


def test_format_time_uses_the_zone():
    # 10:00Z is 15:30 in Kolkata, 02:00 PST in Los Angeles.
    assert ev("formatTime(instanceTime(), 'yyyy-MM-dd HH:mm')", NOMINAL, KOLKATA) == "2026-11-21 15:30"
    assert ev("formatTime(instanceTime(), 'yyyy-MM-dd HH:mm Z')", NOMINAL, LA) == "2026-11-21 02:00 -0800"
    # 2026-11-21T07:00Z is still Friday the 20th in Los Angeles.
    assert ev("formatTime(instanceTime(), 'EEE dd')", "2026-11-21T07:00Z", LA) == "Fri 20"


@pytest.mark.parametrize(
    "expression",
    [
        "formatTime(instanceTime(), 'yyyy-XXXX')",  # Java refuses more than three X
        "formatTime(instanceTime(), 'qq')",  # not a SimpleDateFormat letter
        "formatTime(instanceTime(), \"'unclosed\")",
    ],
)
def test_unsupported_pattern_is_a_usage_error_naming_the_expression(expression):
    with pytest.raises(UsageError) as caught:
        parse_expression(expression)
    assert names(expression, str(caught.value))


# -- non-UTC zones and DST ----------------------------------------------------------------------------


def test_functions_truncate_in_the_zone():
    # 2026-11-21T10:00Z is 02:00 PST on Sat Nov 21: local midnight is 08:00Z.
    assert ev("today(0,0)", NOMINAL, LA) == utc("2026-11-21T08:00Z")
    assert ev("yesterday(0,0)", NOMINAL, LA) == utc("2026-11-20T08:00Z")
    # 2026-11-21T07:00Z is 23:00 PST on Fri Nov 20: "today" is the 20th there.
    assert ev("today(0,0)", "2026-11-21T07:00Z", LA) == utc("2026-11-20T08:00Z")
    # 2026-11-01T06:00Z is 23:00 PDT on Oct 31: the current month is October, whose 1st is PDT (07:00Z).
    assert ev("currentMonth(0,0,0)", "2026-11-01T06:00Z", LA) == utc("2026-10-01T07:00Z")
    # Kolkata (+05:30): 2026-11-21T20:00Z is 01:30 on Nov 22; midnight Nov 22 = 18:30Z Nov 21.
    assert ev("today(0,0)", "2026-11-21T20:00Z", KOLKATA) == utc("2026-11-21T18:30Z")
    assert ev("currentYear(0,0,0,0)", "2026-11-21T20:00Z", KOLKATA) == utc("2025-12-31T18:30Z")


def test_current_week_uses_the_local_week_day():
    # 2026-11-18T05:00Z is Tue Nov 17 21:00 PST: the most recent Wednesday there is Nov 11 (08:00Z).
    # (In UTC it is Wednesday the 18th itself.)
    assert ev("currentWeek('WED',0,0)", "2026-11-18T05:00Z", LA) == utc("2026-11-11T08:00Z")
    assert ev("currentWeek('WED',0,0)", "2026-11-18T05:00Z") == utc("2026-11-18T00:00Z")
    assert ev("lastWeek('WED',0,0)", "2026-11-18T05:00Z", LA) == utc("2026-11-04T08:00Z")  # Nov 4 is PST


def test_functions_on_the_spring_forward_day():
    # 2026-03-08 in Los Angeles: 00:00 PST = 08:00Z; clocks jump at 02:00 PST (10:00Z) to 03:00 PDT.
    # The nominal time 2026-03-08T20:00Z is 13:00 PDT.
    nominal = "2026-03-08T20:00Z"
    assert ev("today(0,0)", nominal, LA) == utc("2026-03-08T08:00Z")
    # Hours are elapsed (like the frequencies): midnight PST + 3 h = 11:00Z (04:00 PDT on the wall).
    assert ev("today(3,0)", nominal, LA) == utc("2026-03-08T11:00Z")
    # yesterday = Mar 7 00:00 PST (08:00Z), a 24-hour day: + 24h30 = 00:30 PST today.
    assert ev("yesterday(24,30)", nominal, LA) == utc("2026-03-08T08:30Z")
    # The day after: yesterday is the 23-hour Mar 8, so + 24h30 lands on 01:30 PDT Mar 9 (08:30Z).
    assert ev("yesterday(24,30)", "2026-03-09T20:00Z", LA) == utc("2026-03-09T08:30Z")
    # Days are calendar: currentMonth(9,...) is Mar 10 00:00 PDT = 07:00Z, not 08:00Z.
    assert ev("currentMonth(9,0,0)", nominal, LA) == utc("2026-03-10T07:00Z")
    assert ev("currentMonth(0,0,0)", nominal, LA) == utc("2026-03-01T08:00Z")
    # dateOffset DAY is calendar: Mar 7 12:00 PST -> Mar 8 12:00 PDT (19:00Z); HOUR is elapsed.
    assert ev("dateOffset(instanceTime(), 1, 'DAY')", "2026-03-07T20:00Z", LA) == utc("2026-03-08T19:00Z")
    assert ev("dateOffset(instanceTime(), 24, 'HOUR')", "2026-03-07T20:00Z", LA) == utc("2026-03-08T20:00Z")
    assert ev("now(-24,0)", nominal, LA) == utc("2026-03-07T20:00Z")


def test_calendar_day_offset_into_a_gap():
    # Mar 7 02:30 PST (10:30Z) + 1 DAY = Mar 8 02:30, in the gap: later by the gap, 03:30 PDT = 10:30Z.
    assert ev("dateOffset(instanceTime(), 1, 'DAY')", "2026-03-07T10:30Z", LA) == utc("2026-03-08T10:30Z")


def test_truncation_to_a_midnight_that_does_not_exist():
    # Sao Paulo 2018-11-04: clocks jumped from 00:00 (-03) to 01:00 (-02). Midnight is in the gap and moves
    # later by the gap: 01:00 -02 = 03:00Z. The nominal 2018-11-04T15:00Z is 13:00 -02.
    sao_paulo = ZoneInfo("America/Sao_Paulo")
    assert ev("today(0,0)", "2018-11-04T15:00Z", sao_paulo) == utc("2018-11-04T03:00Z")
    assert ev("yesterday(0,0)", "2018-11-04T15:00Z", sao_paulo) == utc("2018-11-03T03:00Z")  # 00:00 -03


def test_format_time_on_a_dst_day():
    assert ev("formatTime(instanceTime(), 'HH:mm z')", "2026-03-08T09:30Z", LA) == "01:30 PST"
    assert ev("formatTime(instanceTime(), 'HH:mm z')", "2026-03-08T10:30Z", LA) == "03:30 PDT"


# -- latest / future ----------------------------------------------------------------------------------

FEED = InstanceGrid(utc("2026-11-21T00:00Z"), Frequency.parse("hours(1)"))


def test_latest_skips_missing_instances_and_ignores_the_future():
    available = ["2026-11-21T06:00Z", "2026-11-21T07:00Z", "2026-11-21T09:00Z", "2026-11-21T11:00Z"]
    # 10:00 is missing, 11:00 is after the nominal time: latest(0) = 09:00; 08:00 missing: latest(-1) = 07:00.
    assert ev("latest(0)", NOMINAL, grid=FEED, available=available) == utc("2026-11-21T09:00Z")
    assert ev("latest(-1)", NOMINAL, grid=FEED, available=available) == utc("2026-11-21T07:00Z")
    assert ev("latest(-2)", NOMINAL, grid=FEED, available=available) == utc("2026-11-21T06:00Z")
    assert ev("latest(-3)", NOMINAL, grid=FEED, available=available) is None


def test_latest_includes_the_nominal_instance_and_ignores_order():
    available = ["2026-11-21T10:00Z", "2026-11-21T08:00Z", "2026-11-21T09:00Z"]
    assert ev("latest(0)", NOMINAL, grid=FEED, available=available) == utc("2026-11-21T10:00Z")
    assert ev("latest(-2)", NOMINAL, grid=FEED, available=available) == utc("2026-11-21T08:00Z")
    # Off the grid, the nominal time 10:30 still sees 10:00 as at-or-before.
    assert ev("latest(0)", "2026-11-21T10:30Z", grid=FEED, available=available) == utc("2026-11-21T10:00Z")


def test_latest_with_nothing_available():
    assert ev("latest(0)", NOMINAL, grid=FEED, available=[]) is None
    assert ev("latest(0)", NOMINAL, grid=FEED, available=["2026-11-21T12:00Z"]) is None
    # A function of a missing instance is still no instance.
    assert ev("dateOffset(latest(0), 1, 'DAY')", NOMINAL, grid=FEED, available=[]) is None
    assert ev("formatTime(latest(0), 'yyyy')", NOMINAL, grid=FEED, available=[]) is None


def test_latest_ignores_times_that_are_not_instances_of_the_feed():
    # 09:30 is not an instance of the hourly feed: it cannot be available.
    available = ["2026-11-21T08:00Z", "2026-11-21T09:30Z"]
    assert ev("latest(0)", NOMINAL, grid=FEED, available=available) == utc("2026-11-21T08:00Z")


def test_latest_without_available_list_or_looking_forward_is_a_usage_error():
    with pytest.raises(UsageError):
        ev("latest(0)", NOMINAL, grid=FEED)
    with pytest.raises(UsageError):
        ev("latest(1)", NOMINAL, grid=FEED, available=["2026-11-21T10:00Z"])
    assert parse_expression("latest(0)").needs_available
    assert parse_expression("dateOffset(future(0, 3), 1, 'DAY')").needs_available
    assert not parse_expression("now(0,0)").needs_available


def test_future_picks_among_available_within_the_limit():
    available = ["2026-11-21T08:00Z", "2026-11-21T11:00Z", "2026-11-21T12:00Z", "2026-11-21T14:00Z"]
    # The next 3 instances from the nominal 10:00 are 10:00, 11:00, 12:00; 08:00 is in the past.
    assert ev("future(0,3)", NOMINAL, grid=FEED, available=available) == utc("2026-11-21T11:00Z")
    assert ev("future(1,3)", NOMINAL, grid=FEED, available=available) == utc("2026-11-21T12:00Z")
    assert ev("future(2,3)", NOMINAL, grid=FEED, available=available) is None  # 14:00 is 4 instances away
    assert ev("future(2,5)", NOMINAL, grid=FEED, available=available) == utc("2026-11-21T14:00Z")
    assert ev("future(0,1)", NOMINAL, grid=FEED, available=available) is None  # only 10:00, not available
    with_nominal = available + ["2026-11-21T10:00Z"]
    assert ev("future(0,1)", NOMINAL, grid=FEED, available=with_nominal) == utc("2026-11-21T10:00Z")
    assert ev("future(0,5)", NOMINAL, grid=FEED, available=["2026-11-21T08:00Z"]) is None


def test_future_argument_errors():
    for expression in ("future(-1,3)", "future(0,0)"):
        with pytest.raises(UsageError):
            ev(expression, NOMINAL, grid=FEED, available=["2026-11-21T11:00Z"])
    with pytest.raises(UsageError):  # the limit counts feed instances: a feed grid is needed
        ev("future(0,3)", NOMINAL, available=["2026-11-21T11:00Z"])


# -- invalid expressions ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expression",
    [
        "foo(1)",  # unknown function
        "Now(0,0)",
        "tomorrow(0,0)",
        "now(1)",  # wrong arity
        "now(1,2,3)",
        "now()",
        "instanceTime(1)",
        "currentYear(0,0,0)",
        "today('a',0)",  # wrong argument types
        "now(0, now(0,0))",
        "dateOffset(1, 1, 'DAY')",
        "dateOffset(instanceTime(), 'DAY', 1)",
        "formatTime(now(0,0), 5)",
        "currentWeek(3,0,0)",
        "now(1+'a', 0)",
        "now(0,0) + 1",
        "currentWeek('WEDNESDAY',0,0)",  # bad week day
        "currentWeek('wed',0,0)",
        "lastWeek('XYZ',0,0)",
        "dateOffset(instanceTime(), 1, 'DAYS')",  # bad unit
        "dateOffset(instanceTime(), 1, 'SECOND')",
        "now(0,",  # garbage
        "now(0,0))",
        "now 0,0",
        "now(0;0)",
        "now(0,0) now(0,0)",
        "now(0.5,0)",
        "${now(0,0)",
        "@",
        "",
        "   ",
        "${}",
        "now",
        "(now(0,0)",
    ],
)
def test_invalid_expressions_are_usage_errors_naming_the_expression(expression):
    with pytest.raises(UsageError) as caught:
        parse_expression(expression)
    assert names(expression, str(caught.value))


def test_out_of_range_result_is_a_usage_error():
    with pytest.raises(UsageError) as caught:
        ev("now(-24*365*3000, 0)", NOMINAL)
    assert "now(-24*365*3000, 0)" in str(caught.value)


def test_expression_types():
    assert parse_expression("now(0,0)").type == "time"
    assert parse_expression("formatTime(now(0,0),'yyyy')").type == "text"
    with pytest.raises(UsageError):
        parse_expression("formatTime(now(0,0),'yyyy')").evaluate_time(ELContext(utc(NOMINAL)))


def test_evaluation_is_reproducible_and_reads_no_clock():
    expression = parse_expression("now(0,-60)")
    assert expression.evaluate(ELContext(utc("2001-01-01T00:00Z"))) == utc("2000-12-31T23:00Z")
    assert expression.evaluate(ELContext(utc("2001-01-01T00:00Z"))) == utc("2000-12-31T23:00Z")
