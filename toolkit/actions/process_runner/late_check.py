"""Late data: re-check the late inputs of succeeded instances and rerun those whose inputs changed.

For each succeeded instance whose late window is open at `now` (late_policy.py: the checks the process's
`late-process` policy schedules up to the cut-off), and whose scheduled check is due (the ledger's record of
checks says it was not done yet), the late inputs are fingerprinted again and compared with the fingerprints
the last successful attempt recorded. A difference (a file added, removed, rewritten, even with the same size;
a partition recreated) reruns the instance with the late input's `workflow-path` as a LATE_RERUN attempt,
which records the new fingerprints; no difference records an UNCHANGED check. Instances are walked from the
newest back to the first whose late window has closed, so a sweep every few minutes does only the due work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from toolkit.actions.process_runner.instance_records import inputs_written
from toolkit.actions.process_runner.late_policy import LateSchedule, late_input_names, late_schedule
from toolkit.actions.process_runner.run_results import InstanceResult, RunOptions
from toolkit.actions.process_runner.runner import ProcessRunner
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.grids import process_grid
from toolkit.core.instances.plan import InstancePlan
from toolkit.core.ledger.records import InstanceRecord, LateCheck, ReadInput, inputs_read, record_time
from toolkit.core.ledger.store import Ledger
from toolkit.errors import BlockedError, SkippedError
from toolkit.extensions.workflow_engines.registry import engine_of
from toolkit.statuses import Status


@dataclass
class CheckOutcome:
    time: datetime
    result: str  # UNCHANGED, CHANGED (rerun), NOT_DUE
    changed: list[str] = field(default_factory=list)
    rerun: InstanceResult | None = None


@dataclass
class LateCheckResult:
    outcomes: list[CheckOutcome] = field(default_factory=list)

    @property
    def status(self) -> Status:
        reruns = [o.rerun for o in self.outcomes if o.rerun is not None]
        if any(r.status == Status.FAILED for r in reruns):
            return Status.FAILED
        if any(r.status == Status.BLOCKED for r in reruns):
            return Status.BLOCKED
        if any(r.status in (Status.WAITING, Status.TIMEDOUT) for r in reruns):
            return Status.WAITING  # a changed input is missing now: the rerun is tried again at the next call
        return Status.SUCCEEDED

    def counters(self) -> dict[str, int]:
        checked = [o for o in self.outcomes if o.result != "NOT_DUE"]
        return {"checked": len(checked), "unchanged": sum(o.result == "UNCHANGED" for o in checked),
                "reruns": sum(o.rerun is not None for o in checked),
                "reruns_failed": sum(o.rerun is not None and o.rerun.status != Status.SUCCEEDED for o in checked)}


def fingerprints_of(inputs: Sequence[ReadInput], names: tuple[str, ...]) -> dict[str, dict[str, object]]:
    """Input name -> {instance time -> fingerprint digest, or None when it was not available}."""
    return {item.name: {i.time: i.digest for i in item.instances} for item in inputs if item.name in names}


def changed_inputs(record: InstanceRecord, plan: InstancePlan, names: tuple[str, ...]) -> list[str]:
    before = fingerprints_of(record.inputs_read(), names)
    now = fingerprints_of(inputs_read(inputs_written(plan), f"the plan of {record.process}"), names)
    return [name for name in names if before.get(name) != now.get(name)]


class LateChecker:
    """`runner_for(workflow_path)` builds the runner of a late rerun (the late input's workflow, or the
    process's when it names none)."""

    def __init__(self, repo: ConfigRepo, process: str, cluster: str, ledger: Ledger,
                 runner_for: Callable[[str | None], ProcessRunner]) -> None:
        self.repo, self.ledger = repo, ledger
        self.process = repo.process(process)
        self.cluster = repo.cluster(cluster)
        self.runner_for = runner_for
        self.names = late_input_names(self.process)
        self.checker = runner_for(None)

    def candidates(self, now: datetime) -> Iterator[tuple[datetime, LateSchedule]]:
        """Instances from the newest at or before `now` back to the first whose late window has closed."""
        grid = process_grid(self.process, self.cluster.name)
        newest = grid.at_or_before(now)
        k = grid.floor_index(newest) if newest is not None else -1
        while k >= 0:
            t = grid.time_of(k)
            schedule = late_schedule(self.repo, self.process, self.cluster.name, t)
            if schedule is None or schedule.closed(now):
                return  # older instances closed earlier still: their windows end earlier
            yield t, schedule
            k -= 1

    def sweep(self, now: datetime, only: datetime | None = None) -> LateCheckResult:
        result = LateCheckResult()
        if not self.names:
            return result
        self.checker.check_switches()
        for t, schedule in self.candidates(now):
            if only is not None and t != only:
                continue
            record = self.ledger.instance(self.process.name, t)
            if record is None or record.status != Status.SUCCEEDED:
                continue
            done = [record_time(check.at) for check in self.ledger.late_checks(self.process.name, t)]
            if not schedule.is_due(now, done):
                result.outcomes.append(CheckOutcome(t, "NOT_DUE"))
                continue
            result.outcomes.append(self.check(t, record, now))
        return result

    def check(self, t: datetime, record: InstanceRecord, now: datetime) -> CheckOutcome:
        plan = self.checker.plan(t)
        changed = changed_inputs(record, plan, self.names)
        if not changed:
            self.ledger.add_late_check(self.process.name, t, LateCheck(format_timestamp(now), "UNCHANGED"))
            return CheckOutcome(t, "UNCHANGED")
        workflow = next((late.workflow_path for late in self.process.late_process.late_inputs  # type: ignore[union-attr]
                         if late.input == changed[0] and late.workflow_path), None) \
            if engine_of(self.process).late_workflows else None  # Falcon's engines rerun the process's workflow
        runner = self.runner_for(workflow)
        try:
            rerun = runner.run(t)
        except (BlockedError, SkippedError) as err:
            rerun = InstanceResult(t, Status.BLOCKED if isinstance(err, BlockedError) else Status.SKIPPED, str(err))
        # blocked, or its inputs are missing: tried again at the next call
        if rerun.status in (Status.SUCCEEDED, Status.FAILED):
            self.ledger.add_late_check(self.process.name, t, LateCheck(format_timestamp(now), "CHANGED", changed,
                                                                       runner.run_id))
        return CheckOutcome(t, "CHANGED", changed, rerun)


def late_options(base: RunOptions, workflow_path: str | None) -> RunOptions:
    return RunOptions(force=True, wait=False, max_wait=base.max_wait, max_retry_delay=base.max_retry_delay,
                      kind="LATE_RERUN", workflow_path=workflow_path)
