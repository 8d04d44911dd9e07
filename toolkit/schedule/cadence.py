"""When a scheduled call is due: the instants of a grid (`anchor + k * frequency` in a zone), which is the grid of
the entity's instances for a process, shifted by the target's delay for replication, and Falcon's cadence for
retention. The scheduler's own expression of it (cron, an Oozie coordinator, an Airflow timetable) is the
formats' business; every format starts from this record."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from toolkit.el.frequency import Frequency, TimeUnit
from toolkit.el.grid import InstanceGrid
from toolkit.el.timestamps import format_timestamp
from toolkit.el.timezones import resolve_zone
from toolkit.entities.model import Feed, FeedCluster

# Falcon's documented rule (FalconDocumentation: "When does retention policy come into play"): a retention limit
# under 24 hours runs every 6 hours, any other every 24 hours.
SHORT_RETENTION = Frequency(TimeUnit.HOURS, 24)
OFTEN, DAILY = Frequency(TimeUnit.HOURS, 6), Frequency(TimeUnit.DAYS, 1)
RETENTION_FREQUENCY_PROPERTY = "retention.frequency"
# The anchor of a cadence that only the clock sets (the data-trigger sweep every minute, the SLA check).
CLOCK = datetime(1970, 1, 1, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Cadence:
    """Every `frequency` from `anchor` (UTC, on the grid) in `timezone`; `end` (exclusive, UTC) None when open."""

    frequency: Frequency
    anchor: datetime
    timezone: str = "UTC"
    end: datetime | None = None

    @property
    def grid(self) -> InstanceGrid:
        return InstanceGrid(self.anchor, self.frequency, resolve_zone(self.timezone), self.end)

    def describe(self) -> str:
        zone = "" if self.timezone == "UTC" else f" in {self.timezone}"
        start = "" if self.anchor == CLOCK else f" from {format_timestamp(self.anchor)}"
        return f"every {self.frequency}{start}{zone}"


def retention_frequency(feed: Feed, on_cluster: FeedCluster) -> tuple[Frequency, str]:
    """How often retention of `feed` runs on a cluster, and why: the lifecycle's retention-stage frequency, else the
    feed property `retention.frequency`, else Falcon's documented rule on the retention limit."""
    stage = (on_cluster.lifecycle or feed.lifecycle)
    if stage is not None and stage.retention_stage is not None and stage.retention_stage.frequency is not None:
        return stage.retention_stage.frequency, "the lifecycle's retention-stage frequency"
    if RETENTION_FREQUENCY_PROPERTY in feed.properties:
        return (Frequency.parse(feed.properties[RETENTION_FREQUENCY_PROPERTY]),
                f"the feed property {RETENTION_FREQUENCY_PROPERTY}")
    limit = on_cluster.retention.limit if on_cluster.retention is not None else None
    if limit is not None and limit.approx_minutes() < SHORT_RETENTION.approx_minutes():
        return OFTEN, f"Falcon's rule: a retention limit under 24 hours ({limit}) runs every 6 hours"
    return DAILY, "Falcon's rule: a retention limit of 24 hours or more runs every 24 hours"
