"""What one process instance reads and writes, resolved against storage: each input's window with every
instance's availability and fingerprint, and each output's instance. The explain output is this plan."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.resolution import resolve_instance
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.availability import probe_files, probe_table
from toolkit.core.instances.feed_locations import FeedLocations, feed_locations
from toolkit.core.instances.grids import feed_grid_for_processes
from toolkit.core.instances.inputs import Probe, ResolvedInput, resolve_input
from toolkit.core.instances.output_targets import FileOutput, TableOutputTarget, file_output, staging_key, table_output
from toolkit.core.storage.catalog import PartitionListing
from toolkit.core.storage.filesystem import FileSystem
from toolkit.errors import UsageError


@dataclass(frozen=True)
class InstancePlan:
    process: str
    cluster: str
    time: datetime
    inputs: tuple[ResolvedInput, ...]
    outputs: tuple[FileOutput | TableOutputTarget, ...]

    @property
    def file_outputs(self) -> tuple[FileOutput, ...]:
        return tuple(output for output in self.outputs if isinstance(output, FileOutput))

    @property
    def table_outputs(self) -> tuple[TableOutputTarget, ...]:
        return tuple(output for output in self.outputs if isinstance(output, TableOutputTarget))

    @property
    def missing_required(self) -> list[str]:
        """The required input instances that are not available (and the windows that could not resolve)."""
        return [text for item in self.inputs if not item.optional for text in item.describe_missing()]

    def to_json(self) -> dict[str, object]:
        return {"process": self.process, "cluster": self.cluster, "time": format_timestamp(self.time),
                "inputs": [item.to_json() for item in self.inputs],
                "outputs": [output.to_json() for output in self.outputs],
                "missing": self.missing_required}


def _prober(fs: FileSystem, where: FeedLocations, flag: str | None, catalog: Callable[[], PartitionListing]) -> Probe:
    if where.is_table:
        return lambda times: probe_table(catalog(), fs, where, times)
    return lambda times: probe_files(fs, where, flag, times)


def plan_instance(repo: ConfigRepo, process: Process, cluster: Cluster, t: datetime, fs: FileSystem,
                  catalog: Callable[[], PartitionListing]) -> InstancePlan:
    """`catalog` is asked for only when an input is a table feed."""
    inputs = []
    for item in process.inputs:
        feed = repo.feed(item.feed)
        where = feed_locations(feed, cluster)
        probe = _prober(fs, where, feed.availability_flag, catalog)
        inputs.append(resolve_input(item, feed, where, feed_grid_for_processes(feed, cluster.name), t, probe))
    outputs = []
    for output in process.outputs:
        feed = repo.feed(output.feed)
        where = feed_locations(feed, cluster)
        instance = resolve_instance(output.require_instance(), t, feed_grid_for_processes(feed, cluster.name))
        if instance is None:
            raise UsageError(f"The output '{output.name}' of process '{process.name}' ({output.instance}) names no "
                             f"instance of feed '{feed.name}' at {format_timestamp(t)}: it lies outside the feed's "
                             "validity on this cluster.")
        key = staging_key(process.name, t)
        outputs.append(table_output(output.name, feed, where, instance, key) if where.is_table
                       else file_output(output.name, feed, where, instance, key))
    return InstancePlan(process.name, cluster.name, t, tuple(inputs), tuple(outputs))
