"""The walk: from a feed instance (or a process instance) up through the runs that produced what it is made of,
and down through the runs that read it, level by level, each node expanded once.

A level is one run: `up` 1 is the producing run and the instances it read, `up` 2 adds their producers and their
inputs; a replication counts as a run, so crossing to the source cluster is one level. `down` 1 is the runs that
read the instance and what they wrote. A process instance as the start shows its inputs and outputs at level 0.
An instance reached by two paths (overlapping windows) is one node and is expanded once: the walk costs the
distinct instances within the depth, never a listing of the ledger.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime

from toolkit.core.el.grid import require_instance
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.instances.grids import feed_grid, process_grid
from toolkit.core.ledger.records import record_time
from toolkit.core.ledger.store import Ledger
from toolkit.errors import UsageError
from toolkit.statuses import Status
from toolkit.views.lineage.graph import READ, WROTE, Edge, InstanceNode, Lineage, LineageBuilder, RunNode
from toolkit.views.lineage.ledgers import Ledgers
from toolkit.views.lineage.producers import producing_step
from toolkit.views.lineage.readers import reading_steps
from toolkit.views.lineage.steps import PROCESS, Step, attempt_step, record_step


def trace_feed(ledgers: Ledgers, feed: str, cluster: str, t: datetime, up: int, down: int) -> Lineage:
    """The lineage of instance `t` of `feed` on `cluster`; UsageError for an unknown feed or cluster, a time off
    the feed's grid there, or a cluster whose ledger cannot be read."""
    entity = ledgers.repo.feed(feed)
    require_instance(feed_grid(entity, ledgers.repo.cluster(cluster).name), t,
                     f"feed '{entity.name}' on cluster '{cluster}'")
    _require_ledger(ledgers, cluster)
    root = ledgers.instance(feed, cluster, t)
    builder = LineageBuilder(root.key)
    builder.add(root)
    _walk(ledgers, builder, [root], up, down)
    return builder.build(up, down)


def trace_process(ledgers: Ledgers, process: str, cluster: str, t: datetime, up: int, down: int) -> Lineage:
    """The lineage of instance `t` of `process` on `cluster`: its newest succeeded attempt (else its newest, else
    its instance record), what it read and wrote, and from there up and down."""
    entity = ledgers.repo.process(process)
    require_instance(process_grid(entity, ledgers.repo.cluster(cluster).name), t,
                     f"process '{entity.name}' on cluster '{cluster}'")
    ledger = _require_ledger(ledgers, cluster)
    step = _instance_step(ledgers, ledger, entity.name, cluster, t)
    builder = LineageBuilder(step.run.key)
    _add(builder, step)
    _walk(ledgers, builder, [read.instance for read in step.reads], up, 0)
    _walk(ledgers, builder, [write.instance for write in step.writes], 0, down)
    return builder.build(up, down)


def _require_ledger(ledgers: Ledgers, cluster: str) -> Ledger:
    ledger = ledgers.ledger(cluster)
    if isinstance(ledger, str):
        raise UsageError(ledger)
    return ledger


def _instance_step(ledgers: Ledgers, ledger: Ledger, process: str, cluster: str, t: datetime) -> Step:
    record = ledger.instance(process, t)
    if record is None:
        return Step(RunNode(PROCESS, cluster, None, format_timestamp(t), process=process,
                            notes=("no record in the ledger: not run yet",)), (), ())
    attempts = ledger.attempts(process, t)
    succeeded = [a for a in attempts if a.status == Status.SUCCEEDED]
    chosen = succeeded or attempts
    return attempt_step(ledgers, chosen[-1]) if chosen else record_step(record, "no attempt recorded")


def _walk(ledgers: Ledgers, builder: LineageBuilder, start: list[InstanceNode], up: int, down: int) -> None:
    def upward(node: InstanceNode) -> Iterable[InstanceNode]:
        found = producing_step(ledgers, node.feed, node.cluster, record_time(node.time))
        if isinstance(found, str):
            builder.note(node.key, found)
            return ()
        _add(builder, found)
        return [read.instance for read in found.reads]

    def downward(node: InstanceNode) -> Iterable[InstanceNode]:
        readers = reading_steps(ledgers, node.feed, node.cluster, record_time(node.time))
        for note in readers.notes:
            builder.note(node.key, note)
        for step in readers.steps:
            _add(builder, step)
        return [write.instance for step in readers.steps for write in step.writes]

    _levels(start, up, upward)
    _levels(start, down, downward)


def _levels(start: list[InstanceNode], levels: int, step: Callable[[InstanceNode], Iterable[InstanceNode]]) -> None:
    """Expand `levels` times from `start`, each instance once."""
    done: set[str] = set()
    frontier = start
    for _ in range(levels):
        following: list[InstanceNode] = []
        for node in frontier:
            if node.key not in done:
                done.add(node.key)
                following += step(node)
        frontier = following


def _add(builder: LineageBuilder, step: Step) -> None:
    run = builder.add(step.run)
    for read in step.reads:
        builder.connect(Edge(builder.add(read.instance), run, READ, read.name, read.fingerprint, read.since_read))
    for write in step.writes:
        builder.connect(Edge(run, builder.add(write.instance), WROTE, write.name))
