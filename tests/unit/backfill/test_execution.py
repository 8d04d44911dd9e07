"""The loop that runs a backfill's plan (toolkit/orchestration/backfill/execution.py), its runs stood in for by
children that end after a few looks with a given exit code (the real entrypoints: tests/integration/backfill/):
at most --parallel at once, a consumer never before its producers ended well, never held back by a slower run beside
it, an instance a failure leaves without its inputs not started, an instance another caller holds waited for."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.backfill.pipeline import make_pipeline
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.orchestration.backfill import execution
from toolkit.orchestration.backfill.execution import BackfillRun, Ended
from toolkit.orchestration.backfill.graph import Node, build_graph
from toolkit.orchestration.backfill.plan import plan_backfill
from toolkit.orchestration.backfill.standing import Ledgers
from toolkit.orchestration.backfill.steps import ProcessStep, ReplicationStep
from toolkit.statuses import Status

H0 = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)
H1, H2 = H0 + timedelta(hours=1), H0 + timedelta(hours=2)
ONE, TWO, MID = ProcessStep("stage-one", "primary"), ProcessStep("stage-two", "primary"), \
    ReplicationStep("mid", "backup")


@dataclass
class Child:
    """A run that ends after `looks` polls with `code`."""

    node: Node
    code: int
    looks: int
    pid: int = 1
    log: Path | None = None

    stopped: list[int] = field(default_factory=list)

    def poll(self) -> int | None:
        if self.stopped:
            return -self.stopped[0]
        self.looks -= 1
        return self.code if self.looks <= 0 else None

    def stop(self, sig: int = 15) -> None:
        self.stopped.append(sig)

    def wait(self) -> int:
        return -self.stopped[0]

    def reason(self) -> str | None:
        return None if self.code == 0 else f"exit {self.code} of {self.node}"


@dataclass
class Runs:
    """Starts children: `codes` and `looks` per node (0 and 1 by default); keeps the order and the overlap."""

    codes: dict[tuple[object, datetime], int] = field(default_factory=dict)
    looks: dict[tuple[object, datetime], int] = field(default_factory=dict)
    started: list[Node] = field(default_factory=list)
    children: list[Child] = field(default_factory=list)
    most_at_once: int = 0
    most_of_step: dict[object, int] = field(default_factory=dict)  # the most children of one step at once

    def start(self, node: Node) -> Child:
        running = [c for c in self.children if c.looks > 0]
        self.most_at_once = max(self.most_at_once, len(running) + 1)
        alike = sum(1 for c in running if c.node.step == node.step) + 1
        self.most_of_step[node.step] = max(self.most_of_step.get(node.step, 0), alike)
        for child in running:  # what a node waits for has ended before it starts
            assert child.node not in self.plan_after[node]
        child = Child(node, self.codes.get((node.step, node.time), 0), self.looks.get((node.step, node.time), 1))
        self.started.append(node)
        self.children.append(child)
        return child

    plan_after: dict[Node, tuple[Node, ...]] = field(default_factory=dict)


class Quiet:
    def done_meanwhile(self, *args: object) -> None: ...
    def started(self, *args: object) -> None: ...
    def held(self, *args: object) -> None: ...
    def ended(self, *args: object) -> None: ...
    def not_started(self, *args: object) -> None: ...
    def stopping(self, *args: object) -> None: ...


@pytest.fixture(autouse=True)
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(execution, "TICK_SECONDS", 0.001)
    monkeypatch.setattr(execution, "HELD_RECHECK_SECONDS", 0.01)


def _run(tmp_path: Path, runs: Runs, parallel: int, limits: dict | None = None) -> tuple[BackfillRun, Ledgers]:
    conf, _, _ = make_pipeline(tmp_path, first_consumer=H1)
    repo = ConfigRepo.load(conf)
    ledgers = Ledgers(repo, 60.0)
    plan = plan_backfill(build_graph(repo, [ONE, TWO, MID], H0, H2), ledgers, H0, H2)
    runs.plan_after = plan.graph.after
    return BackfillRun(plan, ledgers, runs.start, parallel, limits or {}, lambda: None, Quiet()), ledgers


def test_slots_are_filled_as_runs_end_and_consumers_come_after_their_producers(tmp_path: Path) -> None:
    runs = Runs(looks={(ONE, H0): 30})  # a slow first hour: the others do not wait for it where they need not
    backfill, _ = _run(tmp_path, runs, parallel=2)
    report = backfill.run()
    assert runs.most_at_once == 2
    started = [(n.step, n.time) for n in runs.started]
    assert started.index((ONE, H1)) < started.index((MID, H0))  # started beside the slow one, not after it
    assert started.index((MID, H1)) < started.index((TWO, H1))  # the free slot went on while (ONE, H0) ran
    assert [item.status for item in report.ended] == [Status.SUCCEEDED] * 8
    assert report.exit_code() == 0 and report.not_started == []


def test_a_failed_producer_leaves_its_readers_unstarted_and_the_rest_goes_on(tmp_path: Path) -> None:
    runs = Runs(codes={(ONE, H1): 1})
    backfill, _ = _run(tmp_path, runs, parallel=1)
    report = backfill.run()
    assert [(n.step, n.time) for n, _ in report.not_started] == [(TWO, H1), (MID, H1), (TWO, H2)]
    assert report.not_started[0][1] == "it waits for process stage-one on primary 2026-11-21T11:00Z, which ended FAILED"
    assert (ONE, H2) in [(n.step, n.time) for n in runs.started]  # not held back by the failure
    assert report.exit_code() == 1
    assert "1 failed" in report.summary() and "3 not started" in report.summary()


def test_a_process_never_runs_more_at_once_than_its_parallel(tmp_path: Path) -> None:
    runs = Runs(looks={(ONE, t): 5 for t in (H0, H1, H2)})
    backfill, _ = _run(tmp_path, runs, parallel=3, limits={ONE: 1})
    backfill.run()
    ones = [c for c in runs.children if c.node.step == ONE]
    assert len(ones) == 3 and runs.most_of_step[ONE] == 1


def test_a_process_runs_as_many_instances_at_once_as_its_parallel_allows(tmp_path: Path) -> None:
    """The counterpart of the test above: the same hours, with the process's own limit at 3, run side by side."""
    runs = Runs(looks={(ONE, t): 5 for t in (H0, H1, H2)})
    backfill, _ = _run(tmp_path, runs, parallel=3, limits={ONE: 3})
    backfill.run()
    assert runs.most_of_step[ONE] == 3


def test_an_instance_another_caller_holds_is_waited_for_then_judged_from_the_ledger(tmp_path: Path) -> None:
    runs = Runs(codes={(ONE, H0): 5})
    backfill, ledgers = _run(tmp_path, runs, parallel=1)
    lock = ledgers.of("primary").instance_lock("stage-one", H0)
    assert lock.try_acquire("cron-run", LeaseDetails()).taken  # a scheduled call runs the hour meanwhile
    held: list[str] = []
    backfill.progress.held = lambda node, holder: (held.append(holder), lock.release())  # type: ignore[method-assign]
    runs.codes.clear()
    report = backfill.run()
    assert len(held) == 1 and "cron-run" in held[0]
    started = [(n.step, n.time) for n in runs.started]
    assert started.count((ONE, H0)) == 1 and started[0] == (ONE, H1)  # the next went on; it, once its holder let go
    assert all(isinstance(item, Ended) and item.status is Status.SUCCEEDED for item in report.ended)


def test_an_instance_its_holder_finished_is_done_without_a_run_of_the_backfills(tmp_path: Path) -> None:
    """Found by an attack: once the holder ended, a spark-submit started only to find the instance done."""
    from toolkit.core.ledger.records import InstanceRecord

    runs = Runs()
    backfill, ledgers = _run(tmp_path, runs, parallel=1)
    primary = ledgers.of("primary")
    lock = primary.instance_lock("stage-one", H0)
    assert lock.try_acquire("cron-run", LeaseDetails()).taken

    def finished(node: Node, holder: str) -> None:
        primary.write_instance(InstanceRecord(process="stage-one", cluster="primary", time="2026-11-21T10:00Z",
                                              status="SUCCEEDED", attempts=1, run_id="cron-run",
                                              updated="2026-11-21T12:00:00Z", started="2026-11-21T11:59:00Z"))
        lock.release()

    backfill.progress.held = finished  # type: ignore[method-assign]
    report = backfill.run()
    assert (ONE, H0) not in [(n.step, n.time) for n in runs.started]
    assert [(n.step, n.time) for n in report.done_meanwhile] == [(ONE, H0)]
    assert len(report.ended) == 7 and report.exit_code() == 0
    assert "7 succeeded, 1 done by another run" in report.summary()


def test_a_stopped_backfill_stops_its_runs_and_says_so(tmp_path: Path) -> None:
    """Found by an attack: the summary did not say the backfill was stopped when nothing was left unstarted."""
    runs = Runs(looks={(ONE, t): 10**6 for t in (H0, H1, H2)})
    backfill, _ = _run(tmp_path, runs, parallel=3, limits={})

    def stop_once_two_run(node: Node, started: object, done: int, total: int) -> None:
        if len(runs.started) == 2:
            backfill.stop_signal = "SIGTERM"

    backfill.progress.started = stop_once_two_run  # type: ignore[method-assign]
    report = backfill.run()
    assert [child.stopped for child in runs.children] == [[15], [15]]
    assert [(item.status, item.why) for item in report.ended] == [(Status.KILLED, "stopped with the backfill")] * 2
    assert report.exit_code() == 1
    assert report.summary().endswith("2 stopped with the backfill, 6 not started: the backfill was stopped by SIGTERM")


def test_a_backfill_that_lost_its_locks_stops_its_runs_and_still_says_what_it_did(tmp_path: Path) -> None:
    """Found by an attack: a backfill whose locks another took over left its runs unwatched and stdout empty."""
    from toolkit.core.ledger.locks import LockLostError

    runs = Runs(looks={(ONE, H0): 10**6})
    backfill, _ = _run(tmp_path, runs, parallel=2)
    calls = []

    def guard() -> None:
        calls.append(1)
        if len(calls) > 2:
            raise LockLostError("A lock of this run was taken over by another run.")

    backfill.guard = guard
    report = backfill.run()
    assert report.stopped_by == "losing its locks (A lock of this run was taken over by another run.)"
    assert [child.stopped for child in runs.children] == [[15], []]  # the one still running is stopped
    assert [(item.node.step, item.node.time, item.status) for item in report.ended] == [
        (ONE, H1, Status.SUCCEEDED), (ONE, H0, Status.KILLED)]
    assert report.exit_code() == 1 and "the backfill was stopped by losing its locks" in report.summary()
