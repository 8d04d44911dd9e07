"""What retention of a file feed would evict on a cluster at a cut-off, location by location: each dated location's
walk (file_plan.py), less the instances that hold another feed's (shared_folders.py). Retention's own planner, and the
one `toolkit plan` asks of two definitions of a feed (toolkit/views/plan/retention_changes.py), so that what a change
is said to delete is what retention will delete."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.core.el.templates import PathTemplate
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import require_safe_template
from toolkit.core.storage.filesystem import FileSystem
from toolkit.extensions.retention_actions.location_plan import LocationPlan
from toolkit.planners.retention.file_plan import plan_location
from toolkit.planners.retention.shared_folders import Refusal, keep_others, neighbours


@dataclass(frozen=True)
class FeedPlans:
    """The plans of a feed's dated locations, the instances kept for another feed's sake (with their location's
    kind), and the locations that are not dated (retention cannot tell their instances' times)."""

    plans: tuple[LocationPlan, ...]
    refused: tuple[tuple[str, Refusal], ...]
    undated: tuple[str, ...]


def feed_plans(repo: ConfigRepo, feed: Feed, cluster: Cluster, fs: FileSystem, zone: ZoneInfo,
               cut_off: datetime) -> FeedPlans:
    """The eviction of `feed`'s file locations on `cluster` (read through `fs`) of the instances before `cut_off`,
    as `repo` defines the feed and its neighbours; nothing is deleted here. UsageError for a location too shallow
    to walk safely (require_safe_template)."""
    assert cluster.write_endpoint is not None  # callers refuse a cluster without one first
    plans: list[LocationPlan] = []
    refused: list[tuple[str, Refusal]] = []
    undated: list[str] = []
    for kind, text in feed.locations_on(cluster.name).items():
        template = PathTemplate(text)
        if not template.is_dated:
            undated.append(kind)
            continue
        require_safe_template(kind, feed.name, template, "retention")
        plan = plan_location(fs, cluster.write_endpoint, kind, template, zone, cut_off)
        plan, kept = keep_others(fs, cluster.write_endpoint, plan, neighbours(repo, feed.name, cluster.name, template))
        refused += [(kind, refusal) for refusal in kept]
        plans.append(plan)
    return FeedPlans(tuple(plans), tuple(refused), tuple(undated))
