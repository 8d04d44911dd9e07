"""Retention's walk reads an instance's time from the values its path's segments matched (file_plan.py's
`_instance_time`) instead of parsing the path again: the same time as `PathTemplate.parse`, or None where it gives
None (no such date, a wall time a zone skips in spring, the repeated hour of autumn), whatever the values."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from hypothesis import given, settings
from hypothesis import strategies as st

from toolkit.core.el.templates import PathTemplate
from toolkit.planners.retention.file_plan import _instance_time

TEMPLATE = PathTemplate("/data/x/${YEAR}/${MONTH}/${DAY}/${HOUR}/${MINUTE}")
ZONES = st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata"])


@settings(max_examples=400, deadline=None)
@given(year=st.integers(1, 9999), month=st.integers(0, 99), day=st.integers(0, 99), hour=st.integers(0, 99),
       minute=st.sampled_from([0, 15, 30, 45, 59, 60, 99]), zone=ZONES)
def test_the_time_of_the_matched_values_is_the_parsed_paths(year, month, day, hour, minute, zone) -> None:
    values = {"YEAR": year, "MONTH": month, "DAY": day, "HOUR": hour, "MINUTE": minute}
    path = f"/data/x/{year:04d}/{month:02d}/{day:02d}/{hour:02d}/{minute:02d}"
    assert _instance_time(values, ZoneInfo(zone)) == TEMPLATE.parse(path, ZoneInfo(zone))


def test_the_hours_of_a_spring_gap_and_an_autumn_fold() -> None:
    berlin = ZoneInfo("Europe/Berlin")
    for day, hour in ((29, 2), (25, 2), (25, 3)):  # 2026-03-29 02:xx does not exist; 2026-10-25 02:xx twice
        month = 3 if day == 29 else 10
        values = {"YEAR": 2026, "MONTH": month, "DAY": day, "HOUR": hour}
        path = f"/data/x/2026/{month:02d}/{day:02d}/{hour:02d}"
        assert _instance_time(values, berlin) == PathTemplate("/data/x/${YEAR}/${MONTH}/${DAY}/${HOUR}").parse(
            path, berlin)
