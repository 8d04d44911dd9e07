"""formatTime's Java SimpleDateFormat patterns (English names), from the Java documentation:
letters repeat for width, text for 4+ letters is the full name and the short form below, 'yy' is
the two-digit year, quoted text is literal and '' is one quote (inside or outside quotes)."""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.el.java_format import format_java
from toolkit.errors import UsageError

UTC = timezone.utc
# Saturday 2026-11-21 10:05:07.250 UTC; day of year: 31+28+31+30+31+30+31+31+30+31 = 304 days before Nov 1,
# so Nov 21 is day 325.
T = datetime(2026, 11, 21, 10, 5, 7, 250000, tzinfo=UTC)
# Tuesday 2026-03-03 00:09 (midnight hour) and 13:00 in the afternoon.
MIDNIGHT = datetime(2026, 3, 3, 0, 9, tzinfo=UTC)
AFTERNOON = datetime(2026, 3, 3, 13, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("yyyy-MMM-dd", "2026-Nov-21"),
        ("yyyyMMddHH", "2026112110"),
        ("yyyy-MM-dd'T'HH:mm:ss.SSS", "2026-11-21T10:05:07.250"),
        ("yy", "26"),
        ("y", "2026"),
        ("yyyyy", "02026"),
        ("MMMM", "November"),
        ("MMM", "Nov"),
        ("M", "11"),
        ("d", "21"),
        ("D", "325"),
        ("EEE", "Sat"),
        ("E", "Sat"),
        ("EEEE", "Saturday"),
        ("u", "6"),  # ISO day number, Monday = 1
        ("G", "AD"),
        ("H:m:s", "10:5:7"),
        ("HH:mm:ss", "10:05:07"),
        ("hh a", "10 AM"),
        ("'at' HH 'o''clock'", "at 10 o'clock"),  # '' inside a quoted text is one quote
        ("HH''mm", "10'05"),  # '' outside quotes is one quote
        ("''", "'"),
        ("-_/ :.,", "-_/ :.,"),
    ],
)
def test_patterns(pattern, expected):
    assert format_java(T, pattern) == expected


@pytest.mark.parametrize(
    ("moment", "pattern", "expected"),
    [
        (MIDNIGHT, "M/d", "3/3"),
        (MIDNIGHT, "MM/dd", "03/03"),
        (MIDNIGHT, "H", "0"),
        (MIDNIGHT, "k", "24"),  # hour 1-24
        (MIDNIGHT, "K", "0"),  # hour 0-11
        (MIDNIGHT, "h a", "12 AM"),  # hour 1-12
        (AFTERNOON, "h a", "1 PM"),
        (AFTERNOON, "K", "1"),
        (AFTERNOON, "k", "13"),
        (MIDNIGHT, "EEEE", "Tuesday"),
        (MIDNIGHT, "D", "62"),  # 31 + 28 + 3
        (MIDNIGHT, "DDD", "062"),
    ],
)
def test_hours_and_short_fields(moment, pattern, expected):
    assert format_java(moment, pattern) == expected


def test_zone_letters():
    la = datetime(2026, 11, 21, 2, 0, tzinfo=ZoneInfo("America/Los_Angeles"))  # PST, UTC-8
    assert format_java(la, "z") == "PST"
    assert format_java(la, "Z") == "-0800"
    assert format_java(la, "X") == "-08"
    assert format_java(la, "XX") == "-0800"
    assert format_java(la, "XXX") == "-08:00"
    kolkata = datetime(2026, 11, 21, 15, 30, tzinfo=ZoneInfo("Asia/Kolkata"))
    assert format_java(kolkata, "Z") == "+0530"
    assert format_java(kolkata, "XXX") == "+05:30"
    assert format_java(T, "X") == "Z"  # ISO letter for a zero offset
    assert format_java(T, "Z") == "+0000"


@pytest.mark.parametrize("pattern", ["yyyy-ww", "W", "YYYY", "F", "qq", "yyyy-MM-dd'T", "'"])
def test_unsupported_letters_and_unclosed_quotes_are_usage_errors(pattern):
    with pytest.raises(UsageError) as caught:
        format_java(T, pattern)
    assert pattern in str(caught.value)
