"""When a feed's retention runs on a cluster: Falcon's cadence (a limit under 24 hours every 6 hours, any other every
24 hours), or the lifecycle's retention-stage frequency, or the feed property `retention.frequency`, from the feed's
validity start on the cluster, in its zone. The generated schedules call retention at these instants; a call for a
whole cluster (`--all`) runs each feed at the latest of them that has no retention record yet."""

from __future__ import annotations

from datetime import datetime

from toolkit.core.el.frequency import Frequency, TimeUnit
from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.shift import shift
from toolkit.core.el.timezones import resolve_zone
from toolkit.core.entities.model import Feed, FeedCluster
from toolkit.errors import UsageError

# Falcon's documented rule (FalconDocumentation: "When does retention policy come into play"): a retention limit
# under 24 hours runs every 6 hours, any other every 24 hours.
SHORT_RETENTION = Frequency(TimeUnit.HOURS, 24)
OFTEN, DAILY = Frequency(TimeUnit.HOURS, 6), Frequency(TimeUnit.DAYS, 1)
RETENTION_FREQUENCY_PROPERTY = "retention.frequency"
KEEP_BEYOND_VALIDITY = "retention.keep-instances-beyond-validity"


def retention_frequency(feed: Feed, on_cluster: FeedCluster) -> tuple[Frequency, str]:
    """How often retention of `feed` runs on a cluster, and why: the lifecycle's retention-stage frequency, else the
    feed property `retention.frequency`, else Falcon's documented rule on the retention limit. A property that is
    no frequency is a UsageError (exit 2) naming the feed and the property."""
    stage = (on_cluster.lifecycle or feed.lifecycle)
    if stage is not None and stage.retention_stage is not None and stage.retention_stage.frequency is not None:
        return stage.retention_stage.frequency, "the lifecycle's retention-stage frequency"
    if RETENTION_FREQUENCY_PROPERTY in feed.properties:
        try:
            frequency = Frequency.parse(feed.properties[RETENTION_FREQUENCY_PROPERTY])
        except UsageError as err:
            raise UsageError(f"Feed '{feed.name}': its retention frequency does not parse ({err}) Fix the feed "
                             f"property {RETENTION_FREQUENCY_PROPERTY}.") from None
        return frequency, f"the feed property {RETENTION_FREQUENCY_PROPERTY}"
    limit = on_cluster.retention.limit if on_cluster.retention is not None else None
    if limit is not None and limit.approx_minutes() < SHORT_RETENTION.approx_minutes():
        return OFTEN, f"Falcon's rule: a retention limit under 24 hours ({limit}) runs every 6 hours"
    return DAILY, "Falcon's rule: a retention limit of 24 hours or more runs every 24 hours"


def retention_grid(feed: Feed, on_cluster: FeedCluster) -> InstanceGrid:
    """The instants retention of `feed` is called at on the cluster: its frequency from the validity start, in the
    feed's zone, with no end (the entrypoint decides what runs after the validity end)."""
    frequency, _ = retention_frequency(feed, on_cluster)
    return InstanceGrid(on_cluster.validity.start, frequency, resolve_zone(feed.timezone))


def latest_call(feed: Feed, on_cluster: FeedCluster, t: datetime) -> datetime | None:
    """The latest instant of the feed's retention cadence at or before `t`; None before the first."""
    return retention_grid(feed, on_cluster).at_or_before(t)


def retention_end(feed: Feed, on_cluster: FeedCluster) -> datetime:
    """The first instant retention of `feed` no longer runs at on the cluster: its validity's end, or, with the feed
    property `retention.keep-instances-beyond-validity: "false"`, the end plus the retention limit (the instances
    written before the end are evicted in turn)."""
    assert on_cluster.retention is not None  # asked of a feed the cluster keeps
    end = on_cluster.validity.end
    if feed.properties.get(KEEP_BEYOND_VALIDITY, "true").strip().lower() != "false":
        return end
    return shift(end, on_cluster.retention.limit, resolve_zone(feed.timezone), +1)
