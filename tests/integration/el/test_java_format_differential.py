"""formatTime against Java itself: `java.text.SimpleDateFormat` in the test session's JVM, set up as Falcon's
DateUtil.formatDateCustom set it up (`new SimpleDateFormat(pattern)` in the cluster's default locale, en_US,
then `setTimeZone(zone)`), over random instants, IANA zones and patterns made of every pattern letter.

Where the two cannot agree the example is excluded with `assume`, for a reason written next to it (see
toolkit/core/el/README.md): instants where Java's copy of the tz database gives another offset or DST flag than
Python's, and zones the JVM does not know. Instants start in 1583, after Java's switch from the Julian calendar.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo, available_timezones

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st
from pyspark.errors import IllegalArgumentException

from tests.integration.el.java_zone_names import zone_names
from toolkit.core.el.java_format import format_java
from toolkit.core.el.java_zone_names import ZONE_NAMES
from toolkit.errors import UsageError

EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
LETTERS = "GyYMLwWDdFEuaHkKhmsSzZX"
# DST zones of both hemispheres, half- and quarter-hour offsets, a 30-minute DST (Lord Howe), negative DST
# (Dublin), zones whose tz abbreviation is a number (Dubai "+04", Sao Paulo "-03"), zones without a Java name
# (Etc/GMT+5), zones with a rich history (Amsterdam's +00:19:32, Singapore's +07:20, Kathmandu's +05:30, Kyiv's
# 1941 CEST), and one Java's tz links away (Atikokan).
ZONES = ("UTC", "America/Los_Angeles", "America/New_York", "Europe/London", "Europe/Dublin", "Europe/Amsterdam",
         "Europe/Moscow", "Asia/Kolkata", "Asia/Kathmandu", "Asia/Tehran", "America/St_Johns", "Australia/Adelaide",
         "Australia/Lord_Howe", "Pacific/Chatham", "Asia/Dubai", "America/Sao_Paulo", "Etc/GMT+5", "Etc/GMT-14",
         "Asia/Singapore", "Africa/Casablanca", "America/Santiago", "Pacific/Apia", "Antarctica/Troll",
         "Africa/Windhoek", "Europe/Prague", "Europe/Kyiv", "Asia/Hong_Kong", "America/Atikokan")
# The zones whose tz data has negative DST (tz's ziguard.awk list, with their links).
NEGATIVE_DST_ZONES = frozenset({"Europe/Dublin", "Eire", "Africa/Windhoek", "Africa/Casablanca", "Africa/El_Aaiun",
                                "Europe/Prague", "Europe/Bratislava"})


@pytest.fixture(scope="module")
def jvm(spark):
    return spark.sparkContext._jvm


@pytest.fixture(scope="module")
def java(jvm):
    """Java's formatter as a function (pattern, zone, instant) -> (text, or None when Java refuses the pattern;
    the zone's offset at the instant in seconds, and whether it is daylight time, in Java's copy of the tz
    database). Seven py4j calls."""
    locale = jvm.java.util.Locale.US
    known = set(jvm.java.util.TimeZone.getAvailableIDs())

    def format_in_java(pattern: str, zone: str, instant: datetime) -> tuple[str | None, float, bool]:
        assume(zone in known)  # an id the JVM does not know is GMT there: no comparison to make
        millis = (instant - EPOCH) // timedelta(milliseconds=1)
        date, java_zone = jvm.java.util.Date(millis), jvm.java.util.TimeZone.getTimeZone(zone)
        offset, daylight = java_zone.getOffset(millis) / 1000, java_zone.inDaylightTime(date)
        try:
            formatter = jvm.java.text.SimpleDateFormat(pattern, locale)
        except IllegalArgumentException:  # Java refuses the pattern (PySpark converts py4j's error)
            return None, offset, daylight
        formatter.setTimeZone(java_zone)
        return formatter.format(date), offset, daylight

    return format_in_java


def _quoted_literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


TOKENS = st.one_of(
    st.builds(lambda letter, count: letter * count, st.sampled_from(LETTERS), st.integers(1, 5)),
    st.builds(_quoted_literal, st.text(st.characters(codec="ascii", exclude_categories=("Cc",)), max_size=4)),
    st.just("''"),
    st.sampled_from(" -:/.,_0éT"),  # T is no pattern letter: Java refuses it unquoted
)
PATTERNS = st.lists(TOKENS, min_size=1, max_size=8).map("".join)
# Any instant Java's Gregorian calendar covers, and more of them in the years zones changed most.
INSTANTS = st.one_of(
    st.datetimes(min_value=datetime(1583, 1, 1), max_value=datetime(9998, 12, 31), timezones=st.just(timezone.utc)),
    st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(timezone.utc)),
).map(lambda t: t.replace(microsecond=t.microsecond // 1000 * 1000))  # Java's Date holds milliseconds
ZONE_IDS = st.one_of(st.sampled_from(ZONES), st.sampled_from(sorted(available_timezones())))


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pattern=PATTERNS, zone=ZONE_IDS, instant=INSTANTS)
@example(pattern="zzzz z", zone="America/Los_Angeles", instant=datetime(2026, 7, 1, 12, tzinfo=timezone.utc))
@example(pattern="z zzzz", zone="Asia/Dubai", instant=datetime(2026, 11, 21, tzinfo=timezone.utc))
@example(pattern="z zzzz", zone="Etc/GMT+5", instant=datetime(2026, 11, 21, tzinfo=timezone.utc))
@example(pattern="z zzzz Z", zone="Europe/Dublin", instant=datetime(2026, 1, 21, tzinfo=timezone.utc))
@example(pattern="z zzzz", zone="Europe/Kyiv", instant=datetime(1941, 10, 15, 12, tzinfo=timezone.utc))
@example(pattern="z", zone="Etc/GMT0", instant=datetime(2026, 11, 21, tzinfo=timezone.utc))
@example(pattern="z Z", zone="Africa/Casablanca", instant=datetime(2089, 1, 1, tzinfo=timezone.utc))
@example(pattern="z Z", zone="Africa/Windhoek", instant=datetime(1990, 7, 15, tzinfo=timezone.utc))
@example(pattern="YYYY-'W'ww-u W F", zone="UTC", instant=datetime(2026, 12, 31, tzinfo=timezone.utc))
@example(pattern="XXXX", zone="UTC", instant=datetime(2026, 12, 31, tzinfo=timezone.utc))
@example(pattern="MMMMM LLLLL EEEEE", zone="UTC", instant=datetime(2026, 12, 31, tzinfo=timezone.utc))
def test_format_java_agrees_with_simple_date_format(java, pattern, zone, instant):
    expected, java_offset, java_daylight = java(pattern, zone, instant)
    local = instant.astimezone(ZoneInfo(zone))
    # Offsets and DST flags are data, not formatting: where Java's copy of the tz database differs from Python's
    # we follow Python's (README). Java keeps no history before 1900, and links zones that Debian's tzdata keeps
    # apart with their own history (America/Atikokan is Panama for Java, Guernsey is London, CET is Brussels).
    assume(local.utcoffset().total_seconds() == java_offset)
    # tz's negative DST is Java's positive DST by design (toolkit/core/el/java_zones.py), so compared, not excluded
    assume(zone in NEGATIVE_DST_ZONES or bool(local.dst()) == java_daylight)
    if expected is None:
        with pytest.raises(UsageError):
            format_java(local, pattern)
    else:
        assert format_java(local, pattern) == expected, (pattern, zone, instant.isoformat())


def test_zone_names_table_is_the_jvms(jvm):
    """toolkit/core/el/java_zone_names.py is the JVM's data; regenerate it when this fails (its module says how)."""
    assert zone_names(jvm) == ZONE_NAMES
