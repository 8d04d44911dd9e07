"""Which instance a record goes to (toolkit/actions/ingest/placement.py), computed in Spark: on every grid, fixed step
or calendar, it is the instance the Python grid (`InstanceGrid.at_or_before`) names, null outside the validity; and
the instances the watermark closed refuse their records exactly when `closes_at(t) <= watermark`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyspark.sql import SparkSession

from tests.unit.ingest.ingest_repo import DELIMITED, make_repo
from toolkit.actions.ingest.closing import closes_at
from toolkit.actions.ingest.placement import INSTANCE, Placement, fixed_step, from_micros, micros, placement
from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.el.grid import InstanceGrid

UTC = timezone.utc
START = datetime(2026, 1, 1, 0, 0, tzinfo=UTC)
FREQUENCIES = st.sampled_from([Frequency(TimeUnit.MINUTES, 15), Frequency(TimeUnit.HOURS, 1),
                               Frequency(TimeUnit.HOURS, 7), Frequency(TimeUnit.DAYS, 1),
                               Frequency(TimeUnit.DAYS, 2), Frequency(TimeUnit.MONTHS, 1)])
ZONES = st.sampled_from(["UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata"])
# Times from a year before the start to two years after it, to the microsecond: before the validity, inside, after
OFFSETS = st.lists(st.integers(min_value=-365 * 86_400_000_000, max_value=730 * 86_400_000_000), min_size=1,
                   max_size=40)


def _expected(grid: InstanceGrid, t: datetime) -> datetime | None:
    inside = grid.start <= t and (grid.end is None or t < grid.end)
    return grid.at_or_before(t) if inside else None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(frequency=FREQUENCIES, zone=ZONES, offsets=OFFSETS, start_minutes=st.integers(0, 24 * 60 - 1))
def test_every_record_goes_to_the_instance_the_python_grid_names(spark: SparkSession, frequency: Frequency,
                                                                  zone: str, offsets: list[int],
                                                                  start_minutes: int) -> None:
    start = START + timedelta(minutes=start_minutes)
    grid = InstanceGrid(start, frequency, ZoneInfo(zone), start + timedelta(days=365))
    times = [start + timedelta(microseconds=o) for o in offsets]
    frame = spark.createDataFrame([(k, t, None) for k, t in enumerate(times)], "k int, _time timestamp, reason string")
    placed = Placement(grid, None).placed(frame, 0.0, by_arrival=False)
    found = {row["k"]: row[INSTANCE] for row in placed.select("k", INSTANCE).collect()}
    assert {k: None if v is None else from_micros(v) for k, v in found.items()} == {
        k: _expected(grid, t) for k, t in enumerate(times)}


def test_a_fixed_step_is_computed_in_spark_and_a_calendar_grid_is_mapped() -> None:
    def grid(frequency: Frequency, zone: str) -> InstanceGrid:
        return InstanceGrid(START, frequency, ZoneInfo(zone), None)

    assert fixed_step(grid(Frequency(TimeUnit.HOURS, 1), "Europe/Berlin")) == 3600
    assert fixed_step(grid(Frequency(TimeUnit.DAYS, 2), "UTC")) == 2 * 86400
    assert fixed_step(grid(Frequency(TimeUnit.DAYS, 1), "Europe/Berlin")) is None
    assert fixed_step(grid(Frequency(TimeUnit.MONTHS, 1), "UTC")) is None


def test_records_by_arrival_all_go_to_the_instance_of_now(spark: SparkSession) -> None:
    grid = InstanceGrid(START, Frequency(TimeUnit.HOURS, 1), ZoneInfo("UTC"), START + timedelta(days=1))
    frame = spark.createDataFrame([(1, None, None)], "k int, _time timestamp, reason string")
    now = (START + timedelta(hours=5, minutes=59)).timestamp()
    placed = Placement(grid, None).placed(frame, now, by_arrival=True).first()
    assert placed is not None and placed[INSTANCE] == micros(START + timedelta(hours=5))
    after = (START + timedelta(days=1)).timestamp()  # at the validity end: in no instance
    placed = Placement(grid, None).placed(frame, after, by_arrival=True).first()
    assert placed is not None and placed[INSTANCE] is None


def test_the_instances_the_watermark_closed_refuse_their_records(tmp_path: Path, spark: SparkSession) -> None:
    repo, _ = make_repo(tmp_path, DELIMITED)
    feed = repo.feed("events")
    grid = InstanceGrid(START, feed.frequency, ZoneInfo("UTC"), START + timedelta(days=2))
    watermark = START + timedelta(hours=10, minutes=30)
    chosen = placement(feed, grid, watermark, dead_letters=True)
    hours = [START + timedelta(hours=h, minutes=5) for h in range(14)]
    frame = spark.createDataFrame([(t,) for t in hours], "_time timestamp")
    refused = {from_micros(r[INSTANCE]): r["refused"] for r in chosen.placed(frame, 0.0, by_arrival=False).select(
        INSTANCE, chosen.refused().alias("refused")).collect()}
    assert refused == {grid.at_or_before(t): closes_at(feed, grid.at_or_before(t)) <= watermark  # type: ignore[arg-type]
                       for t in hours}
    assert any(refused.values()) and not all(refused.values())
    assert placement(feed, grid, watermark, dead_letters=False) == Placement(grid, None)
    assert placement(feed, grid, None, dead_letters=True) == Placement(grid, None)
    early = replace(grid, start=START + timedelta(days=1))  # the watermark is before the first instance
    assert placement(feed, early, watermark, dead_letters=True) == Placement(early, None)
