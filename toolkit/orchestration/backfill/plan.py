"""A backfill's plan: each instance's standing (standing.py), with what the graph adds to it: a replication whose
source instance the backfill makes runs again (a rerun copies only what changed), and an instance waiting for one
that is not run (suspended, held) is not run either. Printed by `--dry-run` per entity in text or JSON, and
followed by the run."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp
from toolkit.orchestration.backfill.graph import BackfillGraph, Node
from toolkit.orchestration.backfill.standing import Ledgers, Standing, Verdict, standing
from toolkit.orchestration.backfill.steps import Step, step_cluster

_COUNTED = {Verdict.RUN: "to run", Verdict.DONE: "done", Verdict.SKIP: "not run", Verdict.RUNNING: "running now"}


@dataclass(frozen=True)
class BackfillPlan:
    graph: BackfillGraph
    standings: dict[Node, Standing]
    first: datetime
    last: datetime

    def to_start(self) -> list[Node]:
        """The instances to start, in the order they may start (what each waits for before it)."""
        return [node for node in self.graph.order if self.standings[node].verdict in (Verdict.RUN, Verdict.RUNNING)]

    def to_json(self, parallel: int) -> dict[str, object]:
        position = {node: k for k, node in enumerate(self.to_start(), 1)}
        entities = []
        for step in self.graph.steps:
            nodes = self.graph.of(step)
            entities.append({
                **_entity(step), "to_run": sum(1 for n in nodes if n in position),
                "instances": [{"time": format_timestamp(n.time), "verdict": str(self.standings[n].verdict),
                               "why": self.standings[n].why, "order": position.get(n),
                               "after": [str(wait) for wait in self.graph.after[n]]}
                              for n in sorted(nodes, key=lambda n: n.time)]})
        return {"from": format_timestamp(self.first), "to": format_timestamp(self.last), "parallel": parallel,
                "instances": len(self.graph.order), "to_run": len(position), "entities": entities}

    def text_lines(self, parallel: int) -> list[str]:
        position = {node: k for k, node in enumerate(self.to_start(), 1)}
        lines = []
        for step in self.graph.steps:
            nodes = sorted(self.graph.of(step), key=lambda n: n.time)
            counts = {verdict: sum(1 for n in nodes if self.standings[n].verdict is verdict) for verdict in Verdict}
            said = ", ".join(f"{count} {_COUNTED[verdict]}" for verdict, count in counts.items() if count)
            lines.append(f"{step.label}: {said or 'no instance in the window'}")
            for n in nodes:
                where = position.get(n)
                after = [wait for wait in self.graph.after[n] if wait in position]
                lines.append(f"  {'-' if where is None else where:>4}  {self.standings[n].verdict:<7} "
                             f"{format_timestamp(n.time)}  {self.standings[n].why}"
                             + (f"; after {', '.join(str(wait) for wait in after)}" if after else ""))
        lines.append(f"backfill plan: {len(position)} of {len(self.graph.order)} instance(s) of "
                     f"{self.graph.entities} to run from {format_timestamp(self.first)} to "
                     f"{format_timestamp(self.last)}, {parallel} at a time, in the order numbered")
        return lines


def plan_backfill(graph: BackfillGraph, ledgers: Ledgers, first: datetime, last: datetime) -> BackfillPlan:
    standings: dict[Node, Standing] = {}
    ledgers.switches.clear()  # each plan reads each entity's suspension once, as it is now
    for node in graph.order:  # what a node waits for is decided before it
        found = standing(node.step, ledgers, node.time)
        waits = graph.after[node]
        not_run = [wait for wait in waits if standings[wait].verdict is Verdict.SKIP]
        remade = [wait for wait in waits if standings[wait].verdict in (Verdict.RUN, Verdict.RUNNING)]
        if found.verdict in (Verdict.RUN, Verdict.RUNNING) and not_run:
            found = Standing(Verdict.SKIP, f"waits for {not_run[0]}, which this backfill does not run")
        elif found.verdict is Verdict.DONE and remade and node.step.REMADE_WITH_ITS_INPUTS:
            found = Standing(Verdict.RUN, f"its source instance is made again by this backfill ({remade[0]}): "
                                          "copy what changed")
        standings[node] = found
    return BackfillPlan(graph, standings, first, last)


def _entity(step: Step) -> dict[str, object]:
    return {"kind": step.KIND, "name": step.name, "cluster": step_cluster(step)}
