"""What one process instance reads and writes on a cluster: each input's window of feed instances
and each output's instance, with their paths or partitions.

`latest(n)` and `future(n, limit)` pick among the instances that exist; pass them per feed in
`available`. Without them such an input is reported unresolved, with the reason, never guessed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.grid import require_instance
from toolkit.core.el.resolution import resolve_instance
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.grids import feed_grid, feed_grid_for_processes, process_grid
from toolkit.core.instances.inputs import ResolvedInput, describe_input


@dataclass(frozen=True)
class ResolvedOutput:
    name: str
    feed: str
    expression: str
    instance: dict[str, object] | None

    def to_json(self) -> dict[str, object]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class ProcessInstance:
    process: str
    cluster: str
    time: datetime
    inputs: tuple[ResolvedInput, ...]
    outputs: tuple[ResolvedOutput, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "cluster": self.cluster,
            "inputs": [item.describe() for item in self.inputs],
            "outputs": [item.to_json() for item in self.outputs],
        }


def resolve_process_instance(repo: ConfigRepo, process_name: str, cluster_name: str, nominal: datetime,
                             available: Mapping[str, tuple[datetime, ...]] | None = None) -> ProcessInstance:
    """Resolve the instance of `process_name` at `nominal` on `cluster_name`.

    `nominal` must be an instance of the process on that cluster (on its grid, inside its validity);
    otherwise a UsageError names the instances before and after it.
    """
    process = repo.process(process_name)
    cluster = repo.cluster(cluster_name)
    require_instance(process_grid(process, cluster.name), nominal,
                     f"process '{process.name}' on cluster '{cluster.name}'")
    available = available or {}
    inputs = []
    for item in process.inputs:
        feed = repo.feed(item.feed)
        inputs.append(describe_input(item, feed, feed_locations(feed, cluster),
                                     feed_grid_for_processes(feed, cluster.name), nominal, available.get(feed.name)))
    outputs = []
    for output in process.outputs:
        feed = repo.feed(output.feed)
        expression = output.require_instance()
        instance = resolve_instance(expression, nominal, feed_grid_for_processes(feed, cluster.name))
        described = feed_locations(feed, cluster).describe(instance) if instance is not None else None
        outputs.append(ResolvedOutput(output.name, feed.name, expression, described))
    return ProcessInstance(process.name, cluster.name, nominal, tuple(inputs), tuple(outputs))


def describe_feed_instances(repo: ConfigRepo, feed_name: str, cluster_name: str, first: datetime,
                            last: datetime) -> dict[str, object]:
    """The feed's instances on a cluster in [first, last], with paths or partitions, as JSON-ready data."""
    feed = repo.feed(feed_name)
    cluster = repo.cluster(cluster_name)
    where = feed_locations(feed, cluster)
    return {
        "feed": feed.name,
        "cluster": cluster.name,
        "from": format_timestamp(first),
        "to": format_timestamp(last),
        "instances": [where.describe(t, every_location=True)
                      for t in feed_grid(feed, cluster.name).between(first, last)],
    }
