"""The status page of a cluster read from its ledger with the CLI's own readers: process instances as `toolkit
status` lists them (`toolkit/views/status/instance_rows.py`: the window, the rows, dead runs, holds, what a waiting
instance waits for), their attempts and feed instances' dataset events through the ledger's API (roll-ups included), SLA
misses as `toolkit sla` finds them, and the order of the graph (`toolkit graph`). The page itself is
toolkit/views/report/'s."""

from __future__ import annotations

import shlex
from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from toolkit.core.entities.kinds import EntityRef, Kind
from toolkit.core.entities.model import Cluster, Feed, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import feed_grid, process_grid
from toolkit.core.ledger.control import Switch
from toolkit.core.ledger.store import Ledger
from toolkit.orchestration.schedule.sla.check import check_slas
from toolkit.views.graph.build import build_graph
from toolkit.views.ledger_access import Now, open_present_ledger
from toolkit.views.report.cells import feed_cell, needs_attempts, plain_successes, process_cell, trimmed
from toolkit.views.report.model import Cell, Details, Grid, Report
from toolkit.views.report.order import dependency_order
from toolkit.views.report.states import State
from toolkit.views.status.instance_rows import InstanceRow, instance_rows, window_times

# The SLA findings of each entity, by its node id (`feed/clicks`): per instance time, its sentence.
Misses = dict[str, dict[datetime, str]]


def read_report(repo: Path, config: ConfigRepo, cluster: Cluster, now: Now, from_: str | None, to: str | None,
                graph_page: str) -> Report:
    """Every feed and process of `cluster`, in the graph's dependency order, over the window."""
    graph = build_graph(config, cluster.name)
    ledger = open_present_ledger(cluster, now)
    windows = {node: _times(config, node, cluster.name, now, from_, to) for node in dependency_order(graph)}
    misses = _sla_misses(config, cluster.name, ledger, now, windows)
    no_misses: dict[datetime, str] = {}
    grids = []
    for node, times in windows.items():
        kind, name = node.split("/", 1)
        options = shlex.join(["--repo", str(repo), f"--{kind}", name, "--cluster", cluster.name])
        window = _Window(times, misses.get(node, no_misses), options)
        if kind == "process":
            grids.append(_process_grid(config, config.processes[name], cluster, ledger, now, window))
        else:
            grids.append(_feed_grid(config.feeds[name], ledger, window))
    return Report(graph.title, cluster.name, now.time, tuple(grids), graph_page)


def _times(config: ConfigRepo, node: str, cluster: str, now: Now, from_: str | None, to: str | None) \
        -> list[datetime]:
    """The instances of the window, as `toolkit status` takes them (a batch consumer has none)."""
    kind, name = node.split("/", 1)
    if kind == "process":
        process = config.processes[name]
        if process.is_batch_consumer:
            return []
        return window_times(process_grid(process, cluster), now.time, from_, to, f"process '{name}'")
    return window_times(feed_grid(config.feeds[name], cluster), now.time, from_, to, f"feed '{name}'")


def _sla_misses(config: ConfigRepo, cluster: str, ledger: Ledger, now: Now, windows: dict[str, list[datetime]]) \
        -> Misses:
    """The misses (missed, late) of each entity's instances in its window, as `toolkit sla` judges them now: one
    check per window (entities of one frequency share theirs), of its entities only, so that an hourly feed is
    not judged over the two years a monthly entity's window spans."""
    by_window: dict[tuple[datetime, datetime], set[EntityRef]] = {}
    for node, times in windows.items():
        if times:
            kind, name = node.split("/", 1)
            by_window.setdefault((times[0], times[-1]), set()).add(EntityRef(Kind(kind), name))
    misses: Misses = {}
    for (first, last), entities in by_window.items():
        report = check_slas(config, cluster, ledger, now.time, first, last, only=entities)
        for finding in report.misses:
            misses.setdefault(f"{finding.kind}/{finding.entity}", {})[finding.time] = finding.sentence()
    return misses


@dataclass(frozen=True)
class _Window:
    """One grid's instances, the SLA misses among them (by time, their sentences) and the options that name its
    entity in a command."""

    times: list[datetime]
    misses: dict[datetime, str]
    options: str


def _process_grid(config: ConfigRepo, process: Process, cluster: Cluster, ledger: Ledger, now: Now,
                  window: _Window) -> Grid:
    times = window.times
    plain = plain_successes(times, ledger.instance_outlines(process.name, times), ledger.holds(process.name))
    rest = [index for index, t in enumerate(times) if t not in plain]  # a plain success is its state alone
    rows = instance_rows(config, process, cluster, ledger, [times[index] for index in rest], now.seconds,
                         with_missing=True)
    read = {index: process_cell(row.time, row.status, _details(row), ledger.attempts(process.name, row.time)
                                if needs_attempts(row.recorded, row.attempts) else [], None)
            for index, row in zip(rest, rows, strict=True)}
    frequency = str(process.frequency) if process.frequency is not None else "batches (no instance grid)"
    states, details = _cells(len(times), State.SUCCEEDED, read)
    return Grid("process", process.name, frequency, tuple(sorted(process.tags.items())), process.pipelines,
                tuple(times), tuple(states), sla=_by_index(times, window.misses), details=trimmed(states, details),
                suspended=_suspended(ledger.control.suspension("process", process.name)), options=window.options)


def _cells(count: int, others: State, read: dict[int, Cell]) -> tuple[list[State], dict[int, Details]]:
    """The states of `count` cells, those of `read` at its indexes and `others` elsewhere, and the details that
    the cells read carry, by index."""
    states = [others] * count
    details = {}
    for index, cell in read.items():
        states[index] = cell.state
        if cell.details is not None:
            details[index] = cell.details
    return states, details


def _by_index(times: list[datetime], found: dict[datetime, str]) -> dict[int, str]:
    """What was found of some of `times`, by their index."""
    return {index: said for t, said in found.items() if (index := _index_of(times, t)) is not None}


def _index_of(times: list[datetime], t: datetime) -> int | None:
    """The index of `t` in `times` (sorted), None when it is not one of them."""
    index = bisect_left(times, t)
    return index if index < len(times) and times[index] == t else None


def _details(row: InstanceRow) -> Details:
    known = row.definition
    return Details(run_id=row.run_id, started=row.started, ended=row.ended, attempts=row.attempts, error=row.error,
                   waits_for=row.missing, waits_note=row.missing_note, hold=row.hold,
                   commit=known.commit if known else None)


def _feed_grid(feed: Feed, ledger: Ledger, window: _Window) -> Grid:
    times = window.times
    published = {index for t in ledger.feed_event_times(feed.name) if (index := _index_of(times, t)) is not None}
    read = {index: feed_cell(times[index], ledger.events(feed.name, times[index]), None) for index in published}
    states, details = _cells(len(times), State.WAITING, read)  # the others: nothing published yet
    return Grid("feed", feed.name, str(feed.frequency), tuple(sorted(feed.tags.items())), (), tuple(times),
                tuple(states), sla=_by_index(times, window.misses), details=trimmed(states, details),
                suspended=_suspended(ledger.control.suspension("feed", feed.name)), options=window.options)


def _suspended(switch: Switch) -> str | None:
    """`since 2026-11-21T10:00:05Z by ops@host: backfill` for a suspended entity, None for one that is not."""
    if not switch.on:
        return None
    said = " ".join(part for part in (f"since {switch.since}" if switch.since else "",
                                      f"by {switch.by}" if switch.by else "") if part)
    return f"{said}: {switch.reason}" if switch.reason else said or "suspended"
