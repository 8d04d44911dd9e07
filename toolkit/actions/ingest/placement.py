"""Which feed instance each parsed record goes to, as a Spark column (`_instance`: the instance's time in
microseconds since the epoch, null when the record's time is outside the feed's validity on the cluster), and
which records are refused because their instance is closed.

On a grid of a fixed step (minutes and hours in any zone, days in UTC) the instance is computed in Spark from the
record's time, in the pass that writes it: one read of the batch. Calendar grids (days in a zone with DST,
months) step the wall clock in the zone; for them the batch's distinct minutes are collected first and each is
mapped by the Python grid (`core/el/grid.py`), the one rule for calendar arithmetic, then joined back: two passes.
A record's time by arrival is the batch's `now`: one instance for the whole batch, a literal.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING

from toolkit.core.el.frequency import TimeUnit
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.entities.model import Feed

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame

INSTANCE = "_instance"
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MICROS = 1_000_000
_DAY = 86_400


def micros(t: datetime) -> int:
    """`t` in whole microseconds since the epoch (exact: no float)."""
    delta = t - _EPOCH
    return (delta.days * _DAY + delta.seconds) * _MICROS + delta.microseconds


def from_micros(value: int) -> datetime:
    return _EPOCH + timedelta(microseconds=value)


def fixed_step(grid: InstanceGrid) -> int | None:
    """The grid's step in seconds when every instance is that far from the next (the zone cannot change it);
    None for a calendar grid."""
    step = grid.frequency.elapsed_seconds
    if step is not None:
        return step
    if grid.frequency.unit is TimeUnit.DAYS and grid.zone.key == "UTC":
        return grid.frequency.count * _DAY
    return None


@dataclass(frozen=True)
class Placement:
    """How one batch's records find their instance: `placed` adds `_instance` to a frame derived from
    `Parsed.checked`; `refused` is true for a record of the feed whose instance is closed or that has none."""

    grid: InstanceGrid
    last_closed: int | None  # records of instances at or before it (microseconds) are refused; None: none are

    def placed(self, checked: DataFrame, now: float, by_arrival: bool) -> DataFrame:
        """`checked` with `_instance`; for a calendar grid this collects the batch's distinct minutes first."""
        from pyspark.sql import functions as F

        if by_arrival:
            arrived = datetime.fromtimestamp(now, timezone.utc)
            found = self.grid.at_or_before(arrived) if self._inside(arrived) else None
            return checked.withColumn(INSTANCE, F.lit(None if found is None else micros(found)).cast("bigint"))
        step = fixed_step(self.grid)
        if step is not None:
            return checked.withColumn(INSTANCE, self._stepped(step))
        return self._mapped(checked)

    def refused(self) -> Column:
        from pyspark.sql import functions as F

        column = F.col(INSTANCE)
        if self.last_closed is None:
            return column.isNull()
        return column.isNull() | (column <= F.lit(self.last_closed))

    def _inside(self, t: datetime) -> bool:
        return self.grid.start <= t and (self.grid.end is None or t < self.grid.end)

    def _bounds(self, time: Column) -> Column:
        from pyspark.sql import functions as F

        inside = F.unix_micros(time) >= F.lit(micros(self.grid.start))
        if self.grid.end is not None:
            inside = inside & (F.unix_micros(time) < F.lit(micros(self.grid.end)))
        return inside

    def _stepped(self, step: int) -> Column:
        """start + (t - start) - (t - start) mod step, in integer microseconds: the instance at or before t."""
        from pyspark.sql import functions as F

        start, width = micros(self.grid.start), step * _MICROS
        elapsed = F.unix_micros(F.col("_time")) - F.lit(start)
        return F.when(self._bounds(F.col("_time")), F.lit(start) + elapsed - F.pmod(elapsed, F.lit(width)))

    def _mapped(self, checked: DataFrame) -> DataFrame:
        """Calendar grids: the distinct minutes of the records of good shape, each mapped by the grid."""
        from pyspark.sql import functions as F

        minute = (F.floor(F.unix_seconds("_time") / 60) * 60).cast("bigint")
        minutes = [row[0] for row in checked.where(F.col("reason").isNull()).select(minute).distinct().collect()]
        mapping = []
        for value in minutes:
            t = datetime.fromtimestamp(value, timezone.utc)
            found = self.grid.at_or_before(t) if self._inside(t) else None
            mapping.append((value, None if found is None else micros(found)))
        table = checked.sparkSession.createDataFrame(mapping, f"_minute bigint, {INSTANCE} bigint")
        return (checked.withColumn("_minute", minute).join(F.broadcast(table), "_minute", "left")
                .drop("_minute"))


def placement(feed: Feed, grid: InstanceGrid, watermark: datetime | None, dead_letters: bool) -> Placement:
    """The placement of a batch: with `dead_letters` (late records go to the dead letters) and a watermark, the
    instances it closed refuse their records."""
    from toolkit.actions.ingest.closing import closes_at

    if not dead_letters or watermark is None:
        return Placement(grid, None)
    k = grid.floor_index(watermark)
    # closes_at(t) = t + the delay is increasing in t: step back from the watermark's instance to the newest closed
    while k >= 0 and closes_at(feed, grid.time_of(k)) > watermark:
        k -= 1
    return Placement(grid, micros(grid.time_of(k)) if k >= 0 else None)
