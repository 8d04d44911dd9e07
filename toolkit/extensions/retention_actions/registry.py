"""The retention actions by name: every `*_action.py` module of this package defines one `ACTION`, found here, so
that adding an action is adding its module (and its name to the feed schema's enum, which a test keeps equal)."""

from __future__ import annotations

from functools import cache

import toolkit.extensions.retention_actions as package
from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.instances.grids import require_on_cluster
from toolkit.errors import ToolkitError
from toolkit.extensions.retention_actions.action import Eviction, RetentionAction
from toolkit.plugins import discover


@cache
def retention_actions() -> dict[str, RetentionAction]:
    """Every action, by name, in the order of their module names."""
    return discover(package, "_action", "ACTION", RetentionAction)


def retention_action_named(name: str) -> RetentionAction:
    """The action a feed names; the schema allows only registered names, so another is a toolkit error."""
    action = retention_actions().get(name)
    if action is None:
        raise ToolkitError(f"The retention action {name!r} is not one of this toolkit's: "
                           f"{', '.join(retention_actions())}.")
    return action


def eviction_for(feed: Feed, cluster: Cluster) -> Eviction | None:
    """The eviction of the feed's retention on `cluster`, checked before anything is touched (UsageError, exit
    2); None when it has no retention there, is a table, or the cluster has no write endpoint (the run says so)."""
    on_cluster = require_on_cluster(feed, cluster.name)
    if on_cluster.retention is None:
        return None
    action = retention_action_named(on_cluster.retention.action)
    return action.check(feed, cluster.name, cluster, is_table=feed.table_on(cluster.name) is not None)
