"""What a backfill runs: a process on a cluster, or the replication of a feed into a target cluster. One record per
kind, and one function per kind and question (singledispatch): its instances in a window, the feed instances it
reads and writes, its entrypoint's arguments. Pure: no storage, no ledger."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from functools import singledispatch
from typing import ClassVar

from toolkit.core.el.resolution import resolve_instance
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import FeedClusterType
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.grids import feed_grid, feed_grid_for_processes, process_grid
from toolkit.core.instances.inputs import describe_input


@dataclass(frozen=True)
class ProcessStep:
    """The instances of a process on a cluster (`entrypoints/process.py`). A succeeded instance is done: made again
    only by `toolkit rerun` or the late-data check (`late_check.py`), never by a backfill."""

    KIND: ClassVar[str] = "process"
    REMADE_WITH_ITS_INPUTS: ClassVar[bool] = False

    process: str
    cluster: str

    @property
    def name(self) -> str:
        return self.process

    @property
    def label(self) -> str:
        return f"process {self.process} on {self.cluster}"


@dataclass(frozen=True)
class ReplicationStep:
    """The replication of a feed's instances into one of its target clusters (`entrypoints/replication.py`). A copy
    whose source instance the backfill makes again is made again (a rerun copies only what changed)."""

    KIND: ClassVar[str] = "replication"
    REMADE_WITH_ITS_INPUTS: ClassVar[bool] = True

    feed: str
    target: str

    @property
    def name(self) -> str:
        return self.feed

    @property
    def label(self) -> str:
        return f"replication of feed {self.feed} into {self.target}"


Step = ProcessStep | ReplicationStep


@dataclass(frozen=True)
class FeedInstance:
    """A feed's instance on a cluster; `time` None stands for every instance (a window picked at run time)."""

    feed: str
    cluster: str
    time: datetime | None

    def __str__(self) -> str:
        return f"feed {self.feed} {'(any instance)' if self.time is None else format_timestamp(self.time)} " \
               f"on {self.cluster}"


@singledispatch
def step_cluster(step: Step) -> str:
    """The cluster whose ledger records the step's runs, whose submit arguments they get."""
    raise TypeError(step)


@step_cluster.register
def _(step: ProcessStep) -> str:
    return step.cluster


@step_cluster.register
def _(step: ReplicationStep) -> str:
    return step.target


@singledispatch
def instances(step: Step, repo: ConfigRepo, first: datetime, last: datetime) -> list[datetime]:
    """The step's instances from `first` to `last`, both included, inside its validity."""
    raise TypeError(step)


@instances.register
def _(step: ProcessStep, repo: ConfigRepo, first: datetime, last: datetime) -> list[datetime]:
    return list(process_grid(repo.process(step.process), step.cluster).between(first, last))


@instances.register
def _(step: ReplicationStep, repo: ConfigRepo, first: datetime, last: datetime) -> list[datetime]:
    feed = repo.feed(step.feed)
    sources = [c.name for c in feed.clusters if c.type is FeedClusterType.SOURCE]
    inside_a_source = [feed_grid(feed, name) for name in sources]
    return [t for t in feed_grid(feed, step.target).between(first, last)
            if any(grid.contains(t) for grid in inside_a_source)]


@singledispatch
def grid_count(step: Step, repo: ConfigRepo, first: datetime, last: datetime) -> int:
    """How many instances the step's grid has from `first` to `last`, counted without listing them (at least as
    many as `instances` lists)."""
    raise TypeError(step)


@grid_count.register
def _(step: ProcessStep, repo: ConfigRepo, first: datetime, last: datetime) -> int:
    return process_grid(repo.process(step.process), step.cluster).count_between(first, last)


@grid_count.register
def _(step: ReplicationStep, repo: ConfigRepo, first: datetime, last: datetime) -> int:
    return feed_grid(repo.feed(step.feed), step.target).count_between(first, last)


@singledispatch
def reads(step: Step, repo: ConfigRepo, t: datetime) -> list[FeedInstance]:
    """The feed instances the step's instance `t` reads (optional inputs included: a backfill that makes one runs
    its readers after it)."""
    raise TypeError(step)


@reads.register
def _(step: ProcessStep, repo: ConfigRepo, t: datetime) -> list[FeedInstance]:
    cluster = repo.cluster(step.cluster)
    read = []
    for item in repo.process(step.process).inputs:
        feed = repo.feed(item.feed)
        resolved = describe_input(item, feed, feed_locations(feed, cluster),
                                  feed_grid_for_processes(feed, cluster.name), t, None)
        read.extend([FeedInstance(feed.name, cluster.name, None)] if resolved.times is None
                    else [FeedInstance(feed.name, cluster.name, u) for u in resolved.times])
    return read


@reads.register
def _(step: ReplicationStep, repo: ConfigRepo, t: datetime) -> list[FeedInstance]:
    feed = repo.feed(step.feed)
    return [FeedInstance(feed.name, c.name, t) for c in feed.clusters if c.type is FeedClusterType.SOURCE]


@singledispatch
def writes(step: Step, repo: ConfigRepo, t: datetime) -> list[FeedInstance]:
    """The feed instances the step's instance `t` publishes."""
    raise TypeError(step)


@writes.register
def _(step: ProcessStep, repo: ConfigRepo, t: datetime) -> list[FeedInstance]:
    written = []
    for output in repo.process(step.process).outputs:
        feed = repo.feed(output.feed)
        u = resolve_instance(output.require_instance(), t, feed_grid_for_processes(feed, step.cluster))
        if u is not None:
            written.append(FeedInstance(feed.name, step.cluster, u))
    return written


@writes.register
def _(step: ReplicationStep, repo: ConfigRepo, t: datetime) -> list[FeedInstance]:
    return [FeedInstance(step.feed, step.target, t)]


@singledispatch
def entrypoint_call(step: Step, repo: ConfigRepo, t: datetime) -> tuple[str, list[str]]:
    """The entrypoint (a file of entrypoints/) and its arguments after `--repo`, for the step's instance `t`."""
    raise TypeError(step)


@entrypoint_call.register
def _(step: ProcessStep, repo: ConfigRepo, t: datetime) -> tuple[str, list[str]]:
    # --no-wait: an input the backfill does not make and that is missing is told (exit 3), not waited for
    return "process.py", ["--process", step.process, "--cluster", step.cluster, "--time", format_timestamp(t),
                          "--no-wait"]


@entrypoint_call.register
def _(step: ReplicationStep, repo: ConfigRepo, t: datetime) -> tuple[str, list[str]]:
    # a window of the one instance: `--time` names the instance at or before it minus the target's delay, which a
    # delay in months or days across a change of the clocks does not give back for every instance
    stamp = format_timestamp(t)
    return "replication.py", ["--feed", step.feed, "--target", step.target, "--from", stamp, "--to", stamp]


@singledispatch
def at_once(step: Step, repo: ConfigRepo) -> int | None:
    """The most instances of the step to run at once, or None for no limit of its own."""
    raise TypeError(step)


@at_once.register
def _(step: ProcessStep, repo: ConfigRepo) -> int | None:
    return repo.process(step.process).parallel  # more would be refused by the runs themselves (exit 5)


@at_once.register
def _(step: ReplicationStep, repo: ConfigRepo) -> int | None:
    return None
