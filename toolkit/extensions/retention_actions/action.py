"""What a retention action is: its checks, made before anything is touched (by the retention entrypoint before
Spark starts, and by lint FD024, in one sentence), and how it evicts one location's expired instances."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from toolkit.core.entities.model import Cluster, Feed
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import UsageError
from toolkit.extensions.retention_actions.location_plan import LocationPlan


@dataclass(frozen=True)
class Applied:
    """What an action did to a location's expired instances: the bytes of each instance it evicted, the folders it
    removed besides instances, where each instance it moved went, and why each one it kept stayed (every expired
    instance is evicted or kept)."""

    sizes: dict[str, int]
    directories_removed: int
    moved: dict[str, str] = field(default_factory=dict)
    kept: dict[str, str] = field(default_factory=dict)


class Eviction(Protocol):
    """An action ready for one feed on one cluster, its target checked."""

    @property
    def action(self) -> str:
        """The action's name, as the retention record's `action_taken` says it."""
        ...

    def destination(self, path: str) -> str | None:
        """Where the instance at `path` goes when evicted (the archive path), None when it is deleted."""
        ...

    def apply(self, fs: FileSystem, plan: LocationPlan) -> Applied:
        """Evict the plan's instances; a run killed at any moment leaves what a rerun's plan finishes."""
        ...


@dataclass(frozen=True, kw_only=True)
class RetentionAction:
    """One value of `clusters[].retention.action` (the feed schema's enum equals the registry's names).

    `table_refusal`: for an action of files only, why a catalog table is refused, completing "The retention of feed
    'f' on cluster 'c' ..."; None when it applies to a table's partitions too (toolkit/actions/retention/tables.py drops
    them).
    `prepare(feed, cluster, root)`: the eviction for the feed's files under the cluster's root, or a UsageError
    naming the feed, the cluster and what to set; with no root (a cluster without a write endpoint, which lint
    CL001 and the run report) only the checks that need none, and None. `refused`: for an action accepted only
    so that migrated feeds load (Falcon's chown and chmod), why it is not run, completing "The retention action
    'x' of feed 'f' on cluster 'c' ..."; such an action has no `prepare`."""

    name: str
    table_refusal: str | None = None
    prepare: Callable[[Feed, Cluster, str | None], Eviction | None] | None = None
    refused: str | None = None

    def __post_init__(self) -> None:
        if (self.prepare is None) == (self.refused is None):
            raise ValueError(f"The retention action {self.name!r} must either prepare evictions or say why it is "
                             "refused, not both or neither.")

    def check(self, feed: Feed, cluster_name: str, cluster: Cluster | None, *, is_table: bool) -> Eviction | None:
        """The eviction this action makes of the feed on the cluster named `cluster_name` (`cluster`: its
        definition, None when the repo has none, which lint RP004 reports); None for a table, or where the cluster
        or its write endpoint is missing (its caller says so; what can be checked without them is). UsageError,
        one sentence, for a call it refuses."""
        if self.prepare is None:
            raise UsageError(f"The retention action '{self.name}' of feed '{feed.name}' on cluster '{cluster_name}' "
                             f"{self.refused}")
        if is_table:
            if self.table_refusal is not None:
                raise UsageError(f"The retention of feed '{feed.name}' on cluster '{cluster_name}' "
                                 f"{self.table_refusal}")
            return None
        if cluster is None:
            return None
        return self.prepare(feed, cluster, cluster.write_endpoint)
