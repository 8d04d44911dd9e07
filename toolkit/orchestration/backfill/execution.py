"""Running a backfill's plan: up to `parallel` instances at once across its entities (and no more of a process
than its `parallel`), each started as soon as what it waits for has succeeded, never held back by a slower run
started beside it; an instance whose wait ended otherwise is not started (a later call starts it). An instance
another caller holds is waited for, then judged again from the ledger (done by that caller: not run again). A stop
(SIGTERM, Ctrl-C, the backfill's locks lost) stops the runs started and starts nothing more: each stopped run ends as
a killed run does, its lease left to expire, and the next call takes it over and records it KILLED."""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.ledger.locks import LockLostError
from toolkit.orchestration.backfill.graph import Node
from toolkit.orchestration.backfill.launch import Started
from toolkit.orchestration.backfill.plan import BackfillPlan
from toolkit.orchestration.backfill.standing import Ledgers, Verdict, holder_now, standing, why_it_ended
from toolkit.orchestration.backfill.steps import Step
from toolkit.services.runtime.submit import worst
from toolkit.statuses import Status

# How often the loop looks at its runs, and how long an instance another caller holds is left before it looks again.
TICK_SECONDS = 0.5
HELD_RECHECK_SECONDS = 5.0
# How long a stopped run is given to record itself killed before its session is killed with SIGKILL.
STOP_GRACE_SECONDS = 60.0

_EXIT = {0: Status.SUCCEEDED, 1: Status.FAILED, 2: Status.INVALID, 3: Status.WAITING, 4: Status.SKIPPED,
         5: Status.BLOCKED}
_CODE = {Status.SUCCEEDED: 0, Status.SKIPPED: 4, Status.WAITING: 3, Status.BLOCKED: 5, Status.FAILED: 1,
         Status.INVALID: 2, Status.KILLED: 1}
STOPPED = "stopped with the backfill"


@dataclass(frozen=True)
class Ended:
    """A run of the backfill that ended: its status (from its exit code and the ledger) and why."""

    node: Node
    status: Status
    why: str
    log: Path | None = None


@dataclass
class BackfillReport:
    plan: BackfillPlan
    ended: list[Ended] = field(default_factory=list)
    not_started: list[tuple[Node, str]] = field(default_factory=list)
    done_meanwhile: list[Node] = field(default_factory=list)  # finished by the caller the backfill waited for
    stopped_by: str | None = None

    def count(self, status: Status) -> int:
        return sum(1 for item in self.ended if item.status is status)

    def exit_code(self) -> int:
        """The worst code of the runs (docs/exit-codes.md), 4 for instances the plan does not run (suspended, held);
        1 when the backfill was stopped."""
        if self.stopped_by is not None:
            return 1
        skipped = [4 for node in self.plan.graph.order if self.plan.standings[node].verdict is Verdict.SKIP]
        return worst([_CODE[item.status] for item in self.ended] + skipped)

    def to_json(self) -> dict[str, object]:
        """The summary as one JSON object: the counts, and each run that did not succeed or instance not started."""
        standings = [self.plan.standings[n].verdict for n in self.plan.graph.order]
        return {"status": "STOPPED" if self.stopped_by else ("SUCCEEDED" if self.exit_code() == 0 else "INCOMPLETE"),
                "from": format_timestamp(self.plan.first), "to": format_timestamp(self.plan.last),
                "instances": len(standings), "done_before": standings.count(Verdict.DONE),
                "skipped_by_plan": standings.count(Verdict.SKIP),
                "runs": {status.value: self.count(status) for status in _CODE if self.count(status)},
                "done_by_another_run": [str(node) for node in self.done_meanwhile],
                "not_started": [{"instance": str(node), "why": why} for node, why in self.not_started],
                "unsuccessful": [{"instance": str(item.node), "status": item.status.value, "why": item.why,
                                  "log": None if item.log is None else str(item.log)}
                                 for item in self.ended if item.status is not Status.SUCCEEDED],
                "stopped_by": self.stopped_by}

    def summary(self) -> str:
        """One line: the instances, then how many ended each way (the counts that are not 0)."""
        standings = [self.plan.standings[n].verdict for n in self.plan.graph.order]
        counts = [(self.count(Status.SUCCEEDED), "succeeded"), (standings.count(Verdict.DONE), "done before"),
                  (len(self.done_meanwhile), "done by another run"),
                  (self.count(Status.FAILED) + self.count(Status.INVALID), "failed"),
                  (self.count(Status.WAITING), "waiting for inputs"), (self.count(Status.BLOCKED), "blocked"),
                  (self.count(Status.SKIPPED) + standings.count(Verdict.SKIP), "not run (suspended or held)"),
                  (self.count(Status.KILLED), STOPPED),
                  (len(self.not_started), f"not started: the backfill was stopped by {self.stopped_by}"
                   if self.stopped_by else "not started (what they wait for did not succeed)")]
        said = ", ".join(f"{count} {what}" for count, what in counts if count) or "nothing to run"
        if self.stopped_by and not self.not_started:
            said += f"; the backfill was stopped by {self.stopped_by}"
        return (f"backfill: {len(standings)} instance(s) of {self.plan.graph.entities} from "
                f"{format_timestamp(self.plan.first)} to {format_timestamp(self.plan.last)}: {said}")


class Progress(Protocol):
    """What the loop tells as it goes (progress.py writes it to stderr)."""

    def started(self, node: Node, started: Started, done: int, total: int) -> None: ...
    def held(self, node: Node, holder: str) -> None: ...
    def ended(self, ended: Ended, done: int, total: int) -> None: ...
    def not_started(self, node: Node, why: str) -> None: ...
    def done_meanwhile(self, node: Node) -> None: ...
    def stopping(self, by: str, running: int) -> None: ...


@dataclass
class BackfillRun:
    """One call's run of the plan. `start` starts an instance's entrypoint; `guard`, called before each start,
    raises once the backfill's locks are lost (another backfill took them over): nothing more is started then."""

    plan: BackfillPlan
    ledgers: Ledgers
    start: Callable[[Node], Started]
    parallel: int
    limits: dict[Step, int]  # the most instances of a step at once (a process's `parallel`)
    guard: Callable[[], None]
    progress: Progress
    report: BackfillReport = field(init=False)
    stop_signal: str | None = None
    _running: dict[Node, Started] = field(default_factory=dict)
    _pending: dict[Node, float] = field(default_factory=dict)  # when each may be looked at again
    _said_held: set[Node] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.report = BackfillReport(self.plan)

    def run(self) -> BackfillReport:
        """Run the plan; a stop signal or the loss of the backfill's locks stops the runs started (they end as
        killed runs do: the next call takes them over once their lease ends) and is said in the report; any other
        error stops them too, then goes on up."""
        order = self.plan.to_start()
        self._pending = dict.fromkeys(order, 0.0)
        previous = {sig: signal.signal(sig, self._stop) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            while (self._pending or self._running) and self.stop_signal is None:
                if self._collect():  # only an ending changes what can no longer start
                    self._leave_out_what_cannot_start(order)
                self._start_ready(order)
                if self._pending or self._running:
                    time.sleep(TICK_SECONDS)
        except LockLostError as err:
            self.stop_signal = f"losing its locks ({err})"
        except BaseException:
            self._stop_runs()
            raise
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        if self.stop_signal is not None:
            self._stop_runs()
            self.report.stopped_by = self.stop_signal
            for node in list(self._pending):
                self._not_started(node, f"the backfill was stopped by {self.stop_signal}")
        return self.report

    def _stop(self, signum: int, frame: object) -> None:
        self.stop_signal = signal.Signals(signum).name

    def _total(self) -> int:
        return len(self._pending) + len(self._running) + len(self.report.ended) + len(self.report.not_started)

    def _done(self) -> int:
        return len(self.report.ended) + len(self.report.not_started)

    def _collect(self) -> bool:
        """Take in the runs that ended; whether any did."""
        ended_any = False
        for node, started in list(self._running.items()):
            code = started.poll()
            if code is None:
                continue
            ended_any = True
            del self._running[node]
            ended = self._judged(node, code, started)
            if ended is None:  # another caller holds it: looked at again once its holder is done
                self._pending[node] = time.monotonic() + HELD_RECHECK_SECONDS
                continue
            self.report.ended.append(ended)
            self.progress.ended(ended, self._done(), self._total())
        return ended_any

    def _judged(self, node: Node, code: int, started: Started) -> Ended | None:
        status = _EXIT.get(code, Status.FAILED)
        if self.stop_signal is not None and code not in _EXIT:  # ended by the stop it was sent
            return Ended(node, Status.KILLED, STOPPED, started.log)
        why = started.reason() or (why_it_ended(node.step, self.ledgers, node.time) if status is not Status.SUCCEEDED
                                   else None) or ("" if code in _EXIT else f"it ended with exit {code}")
        if status is Status.SKIPPED and standing(node.step, self.ledgers, node.time).verdict is Verdict.DONE:
            return Ended(node, Status.SUCCEEDED, why or "done already", started.log)
        if status is Status.BLOCKED and holder_now(node.step, self.ledgers, node.time) is not None:
            return None
        return Ended(node, status, why, started.log)

    def _leave_out_what_cannot_start(self, order: list[Node]) -> None:
        """An instance whose wait ended other than succeeded, or was not started itself, is not started."""
        failed = {item.node: item.status for item in self.report.ended if item.status is not Status.SUCCEEDED}
        gone = {node for node, _ in self.report.not_started}
        for node in order:
            if node not in self._pending:
                continue
            blocked = [wait for wait in self.plan.graph.after[node] if wait in failed or wait in gone]
            if blocked:
                wait = blocked[0]
                self._not_started(node, f"it waits for {wait}, which "
                                  + (f"ended {failed[wait]}" if wait in failed else "was not started"))
                gone.add(node)

    def _not_started(self, node: Node, why: str) -> None:
        del self._pending[node]
        self.report.not_started.append((node, why))
        self.progress.not_started(node, why)

    def _start_ready(self, order: list[Node]) -> None:
        now = time.monotonic()
        for node in order:
            if len(self._running) >= self.parallel or self.stop_signal is not None:
                return
            if node not in self._pending or self._pending[node] > now:
                continue
            if any(wait in self._pending or wait in self._running for wait in self.plan.graph.after[node]):
                continue
            limit = self.limits.get(node.step)
            if limit is not None and sum(1 for n in self._running if n.step == node.step) >= limit:
                continue
            holder = holder_now(node.step, self.ledgers, node.time)
            if holder is not None:
                self._pending[node] = now + HELD_RECHECK_SECONDS
                if node not in self._said_held:
                    self._said_held.add(node)
                    self.progress.held(node, holder)
                continue
            if (node in self._said_held or self.plan.standings[node].verdict is Verdict.RUNNING) \
                    and standing(node.step, self.ledgers, node.time).verdict is Verdict.DONE:
                del self._pending[node]  # the caller it waited for finished it
                self.report.done_meanwhile.append(node)
                self.progress.done_meanwhile(node)
                continue
            self.guard()
            del self._pending[node]
            self._running[node] = started = self.start(node)
            self.progress.started(node, started, self._done(), self._total())

    def _stop_runs(self) -> None:
        if not self._running:
            return
        self.progress.stopping(self.stop_signal or "an error", len(self._running))
        for started in self._running.values():
            started.stop(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        while self._running and time.monotonic() < deadline:
            self._collect()
            time.sleep(TICK_SECONDS)
        for started in self._running.values():
            started.stop(signal.SIGKILL)
            started.wait()
            self.report.ended.append(Ended(started.node, Status.KILLED, STOPPED, started.log))
        self._running.clear()
