"""The text form of times (`yyyy-MM-ddTHH:mmZ`, UTC) and IANA zones (an unknown zone is an error,
never a silent UTC), with the DST rule of Java's ZonedDateTime.of (gap: later by the gap; overlap:
the earlier instant)."""

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from toolkit.core.el.timestamps import format_timestamp, instance_key, parse_timestamp
from toolkit.core.el.timezones import exists_locally, from_local, resolve_zone, to_local
from toolkit.errors import UsageError

UTC = timezone.utc
LA = ZoneInfo("America/Los_Angeles")


# -- timestamps -------------------------------------------------------------------------------------


def test_parse_timestamp_gives_an_aware_utc_datetime():
    value = parse_timestamp("2026-11-21T10:05Z")
    assert value == datetime(2026, 11, 21, 10, 5, tzinfo=UTC)
    assert value.utcoffset() == timedelta(0)


def test_parse_timestamp_leap_day():
    assert parse_timestamp("2024-02-29T00:00Z") == datetime(2024, 2, 29, tzinfo=UTC)


@pytest.mark.parametrize(
    "text",
    [
        "2026-13-01T00:00Z",  # month 13
        "2026-00-10T00:00Z",  # month 0
        "2026-02-30T00:00Z",  # Feb 30
        "2025-02-29T00:00Z",  # not a leap year
        "2026-04-31T00:00Z",
        "2026-11-00T00:00Z",
        "2026-11-21T24:00Z",  # hour 24
        "2026-11-21T10:60Z",  # minute 60
    ],
)
def test_parse_timestamp_rejects_invalid_dates(text):
    with pytest.raises(UsageError):
        parse_timestamp(text)


@pytest.mark.parametrize(
    "text",
    [
        "2026-11-21 10:00Z",
        "2026-11-21T10:00",
        "2026-11-21T10:00:00Z",
        "2026-11-21T10:00+01:00",
        "2026-1-21T10:00Z",
        "26-11-21T10:00Z",
        "2026/11/21T10:00Z",
        "2026-11-21",
        "now",
        "",
    ],
)
def test_parse_timestamp_rejects_other_formats(text):
    with pytest.raises(UsageError) as caught:
        parse_timestamp(text)
    assert "yyyy-MM-ddTHH:mmZ" in str(caught.value)


def test_parse_timestamp_error_names_the_option_and_the_value():
    with pytest.raises(UsageError) as caught:
        parse_timestamp("2026-13-01T00:00Z", "--from")
    assert "--from" in str(caught.value)
    assert "2026-13-01T00:00Z" in str(caught.value)


def test_format_timestamp_is_utc_and_drops_seconds():
    kolkata = ZoneInfo("Asia/Kolkata")
    # 15:30 in Kolkata (+05:30) is 10:00 UTC.
    assert format_timestamp(datetime(2026, 11, 21, 15, 30, 42, tzinfo=kolkata)) == "2026-11-21T10:00Z"
    assert format_timestamp(datetime(2026, 11, 21, 10, 0, tzinfo=UTC)) == "2026-11-21T10:00Z"


# -- zones --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["UTC", "America/Los_Angeles", "Europe/London", "Asia/Kolkata", "PST8PDT"])
def test_known_zones_resolve(name):
    zone = resolve_zone(name)
    assert isinstance(zone, ZoneInfo)
    assert zone.key == name


@pytest.mark.parametrize(
    "name", ["Mars/Olympus_Mons", "America/Nowhere", "", " ", " UTC", "UTC ", "../../etc/passwd", "Europe/"]
)
def test_unknown_zone_is_a_usage_error_never_utc(name):
    with pytest.raises(UsageError) as caught:
        resolve_zone(name)
    assert "zone" in str(caught.value)


def test_unknown_zone_message_names_it():
    with pytest.raises(UsageError) as caught:
        resolve_zone("Mars/Olympus_Mons")
    assert "Mars/Olympus_Mons" in str(caught.value)


def test_to_local_gives_the_wall_clock():
    # 2026-11-21T10:00Z is 02:00 PST (UTC-8).
    assert to_local(datetime(2026, 11, 21, 10, 0, tzinfo=UTC), LA) == datetime(2026, 11, 21, 2, 0)


def test_from_local_plain_time():
    # 12:00 PDT (UTC-7) on 2026-07-01 is 19:00 UTC.
    assert from_local(datetime(2026, 7, 1, 12, 0), LA) == datetime(2026, 7, 1, 19, 0, tzinfo=UTC)


def test_from_local_in_spring_gap_moves_later_by_the_gap():
    # 2026-03-08: clocks jump from 02:00 PST to 03:00 PDT. 02:30 does not exist; Java's rule makes it
    # 03:30 PDT = 10:30 UTC.
    assert from_local(datetime(2026, 3, 8, 2, 30), LA) == datetime(2026, 3, 8, 10, 30, tzinfo=UTC)
    assert not exists_locally(datetime(2026, 3, 8, 2, 30), LA)
    assert exists_locally(datetime(2026, 3, 8, 3, 30), LA)
    assert exists_locally(datetime(2026, 3, 8, 1, 59), LA)


def test_from_local_in_autumn_overlap_is_the_earlier_instant():
    # 2026-11-01: 01:00-02:00 happens twice (PDT, then PST). 01:30 is the earlier one: 01:30 PDT = 08:30 UTC.
    assert from_local(datetime(2026, 11, 1, 1, 30), LA) == datetime(2026, 11, 1, 8, 30, tzinfo=UTC)
    assert exists_locally(datetime(2026, 11, 1, 1, 30), LA)


def test_from_local_in_a_half_hour_gap():
    # Lord Howe Island moves its clocks by 30 minutes: on 2026-10-04 02:00 (+10:30) becomes 02:30 (+11:00).
    # 02:15 does not exist: later by the gap, 02:45 +11:00 = 2026-10-03T15:45Z.
    lord_howe = ZoneInfo("Australia/Lord_Howe")
    assert from_local(datetime(2026, 10, 4, 2, 15), lord_howe) == datetime(2026, 10, 3, 15, 45, tzinfo=UTC)
    assert not exists_locally(datetime(2026, 10, 4, 2, 15), lord_howe)


def test_an_instance_key_is_of_the_utc_instant_whatever_zone_or_fold_names_it() -> None:
    """Keys of UTC times are cached (a window's times recur for each entity); two local times an hour apart that
    differ only in their fold compare equal, so they must not share a cached key."""
    new_york = ZoneInfo("America/New_York")
    first = datetime(2026, 11, 1, 1, 30, tzinfo=new_york)  # EDT, 05:30Z
    second = first.replace(fold=1)  # the same wall clock an hour later, EST: 06:30Z
    assert [instance_key(first), instance_key(second), instance_key(first)] == \
        ["20261101T0530Z", "20261101T0630Z", "20261101T0530Z"]
    assert instance_key(datetime(2026, 11, 1, 5, 30, tzinfo=timezone.utc)) == "20261101T0530Z"
    assert instance_key(datetime(999, 1, 2, 3, 4, tzinfo=timezone.utc)) == "09990102T0304Z"  # padded: it sorts
