"""formatTime's Java SimpleDateFormat patterns (English names), from the Java documentation:
letters repeat for width, text for 4+ letters is the full name and the short form below, 'yy' is
the two-digit year, quoted text is literal and '' is one quote (inside or outside quotes)."""

from datetime import datetime, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.core.el.java_format import format_java
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


# Differences the differential test against java.text.SimpleDateFormat found (tests/integration/el/); each
# expected value is Java's output (JDK 17, Locale.US).
def _at(zone: str, *fields: int) -> datetime:
    return datetime(*fields, tzinfo=timezone.utc).astimezone(ZoneInfo(zone))


@pytest.mark.parametrize(
    ("moment", "pattern", "expected"),
    [
        # zzzz is the long name, not the abbreviation
        (_at("America/Los_Angeles", 2026, 7, 1, 10), "zzzz", "Pacific Daylight Time"),
        (_at("America/Los_Angeles", 2026, 11, 21, 10), "zzzz", "Pacific Standard Time"),
        (_at("UTC", 2026, 11, 21, 10), "zzzz", "Coordinated Universal Time"),
        # zones whose tz abbreviation is a number have a Java name
        (_at("Asia/Dubai", 2026, 11, 21, 10), "z zzzz", "GST Gulf Standard Time"),
        (_at("America/Sao_Paulo", 2026, 11, 21, 10), "z", "BRT"),
        # a zone without a Java name is written as the offset, GMT+hh:mm
        (_at("Etc/GMT+5", 2026, 11, 21, 10), "z zzzz", "GMT-05:00 GMT-05:00"),
        (_at("Etc/GMT-14", 2026, 11, 21, 10), "z", "GMT+14:00"),
        # Java's daylight time is tz's "rearguard" one: Dublin's summer is daylight time, Casablanca's +01 too
        (_at("Europe/Dublin", 2026, 1, 21, 10), "z zzzz", "GMT Greenwich Mean Time"),
        (_at("Europe/Dublin", 2026, 7, 21, 10), "z zzzz", "IST Irish Standard Time"),
        (_at("Africa/Casablanca", 2026, 11, 21, 10), "z", "WEST"),
        # ... over the whole zone period that has negative DST in tz, not only near it
        (_at("Europe/Dublin", 1969, 1, 15), "z", "IST"),  # +01 all year 1968-1971: daylight for Java
        (_at("Africa/Windhoek", 2018, 1, 15), "z", "WAT"),  # Java's daylight name of Windhoek
        (_at("Africa/Casablanca", 2089, 1, 15), "z", "WEST"),
        (_at("Africa/Casablanca", 2018, 6, 15), "z", "WET"),  # before Morocco's 2018 change
        (_at("Europe/Prague", 1946, 12, 15), "z Z", "CET +0000"),
        # tz's DST flag, whatever amount zoneinfo derives (Kyiv's 1941 CEST is -1 hour from Moscow time)
        (_at("Europe/Kyiv", 1941, 10, 15, 12), "z Z", "EEST +0200"),
        (_at("Asia/Hong_Kong", 1941, 10, 15, 12), "zzzz", "Hong Kong Summer Time"),
        # a historic time keeps the zone's name, not tz's abbreviation of the time (LMT, +0630)
        (_at("Asia/Kolkata", 1943, 1, 1), "z Z", "IDT +0630"),
    ],
)
def test_zone_names_are_javas(moment, pattern, expected):
    assert format_java(moment, pattern) == expected


@pytest.mark.parametrize(
    ("moment", "pattern", "expected"),
    [
        # weeks of Locale.US: Sunday first, week 1 is the week of January 1st
        (_at("UTC", 2026, 12, 31), "YYYY-'W'ww", "2027-W01"),  # Thursday, in the week of 2027-01-01
        (_at("UTC", 2026, 12, 26), "YYYY-'W'ww", "2026-W52"),  # Saturday
        (_at("UTC", 2027, 1, 3), "YY w", "27 2"),  # the first Sunday of 2027 starts week 2
        (_at("UTC", 2026, 11, 1), "W", "1"),  # a Sunday
        (_at("UTC", 2026, 11, 7), "W", "1"),
        (_at("UTC", 2026, 11, 8), "WW", "02"),
        (_at("UTC", 2026, 11, 30), "W", "5"),
        (_at("UTC", 2026, 9, 30), "W", "5"),
        # F: the how-manieth such week day of the month
        (_at("UTC", 2026, 11, 7), "F", "1"),
        (_at("UTC", 2026, 11, 8), "F", "2"),
        (_at("UTC", 2026, 11, 29), "FF", "05"),
        (_at("UTC", 9998, 12, 31), "Y w", "9999 1"),
    ],
)
def test_week_letters_are_javas_for_locale_us(moment, pattern, expected):
    assert format_java(moment, pattern) == expected


@pytest.mark.parametrize("pattern", ["qq", "yyyy-MM-dd'T", "'", "XXXX", "HH XXXXX"])
def test_unsupported_letters_and_unclosed_quotes_are_usage_errors(pattern):
    with pytest.raises(UsageError) as caught:
        format_java(T, pattern)
    assert pattern in str(caught.value)
