"""The process instance an operator's command names (`kill`, `logs`, `suspend|resume --time`): the process on the
cluster given (or its only one) and a `--time` on its grid, each refused in one sentence naming what to give."""

from __future__ import annotations

from datetime import datetime

from toolkit.core.el.grid import InstanceGrid
from toolkit.core.el.timestamps import format_timestamp, parse_timestamp
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import process_grid, require_on_cluster
from toolkit.errors import UsageError


def process_on_cluster(config: ConfigRepo, name: str, cluster: str | None) -> tuple[Process, Cluster, InstanceGrid]:
    """Process `name`, the cluster `cluster` (None: the process's only cluster) and its instance grid there."""
    entity = config.process(name)
    names = [c.name for c in entity.clusters]
    if cluster is None and len(names) != 1:
        raise UsageError(f"Give --cluster: the process '{entity.name}' is on clusters {', '.join(names)}.")
    on = config.cluster(cluster if cluster is not None else names[0])
    require_on_cluster(entity, on.name)
    return entity, on, process_grid(entity, on.name)


def instance_at(grid: InstanceGrid, text: str, process: str, cluster: str) -> datetime:
    """`--time text` as an instance of the grid; UsageError naming the instance before it otherwise."""
    t = parse_timestamp(text, "--time")
    if not grid.contains(t):
        before = grid.at_or_before(t)
        hint = f"; the one before is {format_timestamp(before)}" if before is not None else ""
        raise UsageError(f"--time {text} is no instance of process '{process}' on cluster '{cluster}'{hint}.")
    return t
