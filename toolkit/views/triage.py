"""`toolkit triage`: from one process or feed instance on a cluster, up through what it needs, to the first
instances that are failed, waiting or missing, each with why (Falcon's `instance -triage`,
AbstractInstanceManager.triage).

The walk is Falcon's, breadth first from the instance asked about:
- a feed instance that is available ends its branch; one that is not leads to the process instances of the repo that
  write it on the cluster (the output's instance expression inverted onto the process's grid);
- a process instance that succeeded ends its branch; any other leads to its required input instances that are
  missing now (optional inputs are left out, as Falcon leaves them out).
Statuses are read as `toolkit status` reads them (a dead run's RUNNING is KILLED) and availability as process.py
resolves it, on the cluster's file system. The causes are the instances that are not fine and lead to nothing that
is not fine: where the trouble starts. No Spark; table feeds are not checked (the metastore is not opened).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster, Feed, FeedClusterType, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.availability import probe_instance
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.instances.grids import feed_grid, process_grid
from toolkit.core.instances.plan import plan_instance
from toolkit.core.instances.window_inverse import readers_of
from toolkit.core.ledger.records import EVICTED
from toolkit.core.ledger.store import Ledger
from toolkit.errors import ToolkitError
from toolkit.statuses import Status
from toolkit.views.ledger_access import Now
from toolkit.views.status.instance_rows import SUSPENDED, TableInputNotChecked, instance_rows, no_catalog

# The walk stops after this many instances (a daily process reading a month of hourly instances of a chain).
MAX_NODES = 500
AVAILABLE, MISSING, NOT_CHECKED = "AVAILABLE", "MISSING", "NOT_CHECKED"
NOT_RUN, NOT_DUE = "NOT_RUN", "NOT_DUE"
FINE = (Status.SUCCEEDED.value, AVAILABLE)


@dataclass
class Node:
    kind: str  # process or feed
    name: str
    time: datetime
    status: str = ""
    why: str = ""
    location: str | None = None  # a feed instance's path
    upstream: list[str] = field(default_factory=list)  # the keys of the instances this one leads to

    @property
    def key(self) -> str:
        return f"{self.kind} {self.name} {format_timestamp(self.time)}"

    @property
    def fine(self) -> bool:
        return self.status in FINE

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "name": self.name, "time": format_timestamp(self.time), "status": self.status,
                "why": self.why, "location": self.location, "upstream": list(self.upstream)}


@dataclass(frozen=True)
class Triage:
    cluster: str
    start: str
    nodes: dict[str, Node]
    truncated: bool

    @property
    def causes(self) -> list[Node]:
        """The instances that are not fine and lead to nothing that is not fine, in the order walked."""
        return [node for node in self.nodes.values() if not node.fine
                and not any(key in self.nodes and not self.nodes[key].fine for key in node.upstream)]

    def to_json(self) -> dict[str, object]:
        return {"cluster": self.cluster, "instance": self.start, "causes": [node.key for node in self.causes],
                "instances": [node.to_json() for node in self.nodes.values()], "truncated": self.truncated}


class Walk:
    def __init__(self, repo: ConfigRepo, cluster: Cluster, ledger: Ledger, now: Now) -> None:
        self.repo, self.cluster, self.ledger, self.now = repo, cluster, ledger, now

    def run(self, start: Node) -> Triage:
        nodes: dict[str, Node] = {}
        queue = deque([start])
        truncated = False
        while queue:
            node = queue.popleft()
            if node.key in nodes:
                continue
            if len(nodes) >= MAX_NODES:
                truncated = True
                break
            nodes[node.key] = node
            for upstream in self._process(node) if node.kind == "process" else self._feed(node):
                node.upstream.append(upstream.key)
                queue.append(upstream)
        return Triage(self.cluster.name, start.key, nodes, truncated)

    # Processes

    def _process(self, node: Node) -> Iterator[Node]:
        process = self.repo.process(node.name)
        suspension = self.ledger.control.suspension("process", process.name)
        suspended = f"; the process is suspended on cluster '{self.cluster.name}' since {suspension.since}" + (
            f" ({suspension.reason})" if suspension.reason else "") if suspension.on else ""
        row = instance_rows(self.repo, process, self.cluster, self.ledger, [node.time], self.now.seconds,
                            with_missing=False)[0] if node.time <= self.now.time else None
        if row is None:
            node.status = NOT_DUE
        elif row.recorded is None:
            node.status = NOT_RUN
        else:
            node.status = row.status
        if node.status == Status.SUCCEEDED:
            node.why = f"run {row.run_id}" if row is not None else ""
            return
        missing, unknown = self._missing_inputs(process, node.time)
        recorded = self._recorded_why(node.status, row.error if row is not None else None, row.run_id if row else None)
        if row is not None and row.hold is not None:
            node.status = SUSPENDED
            recorded = (f"suspended, {row.hold}: it does not start until `toolkit resume --process {process.name} "
                        f"--cluster {self.cluster.name} --time {format_timestamp(node.time)}`")
        if unknown is not None:
            node.why = f"{recorded}; its inputs are {unknown}{suspended}"
        elif missing:
            count = sum(len(times) for _, times in missing)
            node.why = f"{recorded}; {count} required input instance(s) missing{suspended}"
        else:
            ready = "its inputs are all available" + (
                ": process.py has not been called for it" if node.status in (NOT_RUN, Status.WAITING) else "")
            node.why = f"{recorded}; {ready}{suspended}"
        for feed, times in missing:
            for t in times:
                yield Node("feed", feed, t)

    def _recorded_why(self, status: str, error: str | None, run_id: str | None) -> str:
        if status == NOT_DUE:
            return f"its time has not come (now is {format_timestamp(self.now.time)})"
        if status == NOT_RUN:
            return "no run recorded"
        if status == Status.KILLED and not error:
            return f"its run {run_id} died (its lease expired without a result)"
        if status == Status.RUNNING:
            return f"running (run {run_id}, its lease live)"
        if error:
            return f"{status.lower()}: {' '.join(error.split()).rstrip('.')}"
        if status == Status.TIMEDOUT:
            return "timed out waiting for its inputs"
        return status.lower()

    def _missing_inputs(self, process: Process, t: datetime) -> tuple[list[tuple[str, list[datetime]]], str | None]:
        """The required input instances missing now, by feed; or why they are not known."""
        try:
            plan = plan_instance(self.repo, process, self.cluster, t, self.ledger.fs, no_catalog)
        except TableInputNotChecked:
            return [], "not checked (a table input: the metastore is not opened)"
        except ToolkitError as err:
            return [], f"not known: {err}"
        unresolved = [f"{item.feed.name} {item.unresolved}" for item in plan.inputs
                      if not item.optional and item.unresolved]
        if unresolved:
            return [], "not known: " + "; ".join(unresolved)
        return [(item.feed.name, [state.time for state in item.missing]) for item in plan.inputs
                if not item.optional and item.missing], None

    # Feeds

    def _feed(self, node: Node) -> Iterator[Node]:
        feed = self.repo.feed(node.name)
        where = feed_locations(feed, self.cluster)
        if where.is_table:
            node.status, node.why = NOT_CHECKED, "a table feed: the metastore is not opened"
            return
        state = probe_instance(self.ledger.fs, where, feed.availability_flag, no_catalog, node.time)
        if state.available:
            node.status, node.location, node.why = AVAILABLE, state.location, state.location
            return
        node.status, node.location = MISSING, state.location
        writers = list(self._writers(feed, node.time))
        events = self.ledger.events(feed.name, node.time)
        there = self.ledger.fs.exists(state.location)
        absent = (f"its folder is there without {feed.availability_flag}" if there and feed.availability_flag
                  else "its folder is empty" if there else "no folder")
        if events and events[-1].kind == EVICTED:
            node.why = f"evicted by {events[-1].producer} at {events[-1].published}"
        elif events:
            node.why = f"{absent}, though {events[-1].producer} recorded it {events[-1].kind} at {events[-1].published}"
        elif writers:
            node.why = f"{absent}; written by " + ", ".join(
                f"process {name} {format_timestamp(t)}" for name, t in writers)
        else:
            node.why = f"{absent}; {self._no_writer(feed)}"
        for name, t in writers:
            yield Node("process", name, t)

    def _writers(self, feed: Feed, t: datetime) -> Iterator[tuple[str, datetime]]:
        """The process instances of the repo that write the feed instance on this cluster."""
        on_feed = feed_grid(feed, self.cluster.name)
        for name, process in sorted(self.repo.processes.items()):
            if process.cluster(self.cluster.name) is None or process.frequency is None:
                continue  # a batch consumer writes what its batches hold, not an instance of a grid
            for output in process.outputs:
                if output.feed == feed.name:
                    expression = output.require_instance()
                    for when in readers_of(expression, expression, on_feed, process_grid(process, self.cluster.name),
                                           t):
                        yield name, when

    def _no_writer(self, feed: Feed) -> str:
        on = feed.cluster(self.cluster.name)
        sources = [c.name for c in feed.clusters if c.type == FeedClusterType.SOURCE and c.name != self.cluster.name]
        if on is not None and on.type == FeedClusterType.TARGET and sources:
            return (f"replication.py copies it here from {', '.join(sources)}: triage it there "
                    f"(--cluster {sources[0]}) and see the replication's record on this cluster")
        return (f"no process of the repo writes it on cluster '{self.cluster.name}': its outside producer "
                "publishes it (`toolkit publish` once the data is complete)")
