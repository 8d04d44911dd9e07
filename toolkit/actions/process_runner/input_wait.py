"""Step 4 of a process instance: its inputs resolved and, while required ones are missing, waited for until the
process's timeout (polls from `FIRST_POLL_SECONDS` growing to `LONGEST_POLL_SECONDS`); a `toolkit kill`, a hold
and a takeover of its lease that a renewal found (LockLostError, exit 1, nothing more written) are read at each
poll. A call that does not wait, or whose `max_wait` is spent, ends WAITING (exit 3); past the timeout a waiting
call ends TIMEDOUT, retried when the process's `onTimeout` says so; a --no-wait call records no timeout."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from toolkit.actions.process_runner.attempt_facts import AttemptFacts, InstanceFacts
from toolkit.actions.process_runner.instance_records import InstanceRecords, real_now
from toolkit.actions.process_runner.process_notices import ProcessNotices
from toolkit.actions.process_runner.retry_policy import attempts_of, deadline_of, seconds_until
from toolkit.actions.process_runner.run_results import InstanceResult, RunOptions
from toolkit.clock import Clock
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Process
from toolkit.core.instances.plan import InstancePlan
from toolkit.core.ledger.locks import LeaseKeeper, LockLostError
from toolkit.core.ledger.records import InstanceRecord
from toolkit.core.ledger.store import Ledger
from toolkit.services.notifications.message import TIMEDOUT
from toolkit.services.runtime.polling import FIRST_POLL_SECONDS, LONGEST_POLL_SECONDS, poll_intervals
from toolkit.statuses import Status


@dataclass(frozen=True)
class InputWait:
    """The wait of one run of `process` for an instance's inputs: `plan` resolves them against storage,
    `check_hold` stops at a hold (exit 4), `pause_before_retry` sleeps between timed-out attempts, `clock` measures
    the wait and the timeout."""

    process: Process
    zone: ZoneInfo
    clock: Clock
    options: RunOptions
    ledger: Ledger
    records: InstanceRecords
    notices: ProcessNotices
    plan: Callable[[datetime], InstancePlan]
    check_hold: Callable[[datetime], None]
    pause_before_retry: Callable[[int], None]
    log: Callable[[str], None]

    @property
    def owner(self) -> str:
        return f"process '{self.process.name}'"

    def until_ready(self, t: datetime, record: InstanceRecord | None, result: InstanceResult,
                    keeper: LeaseKeeper) -> tuple[InstancePlan | None, int]:
        """The plan once every required input is there, or None when the run ends here (result says how); and
        the last attempt number used (timed-out waits retried by `onTimeout` are attempts)."""
        previous_attempts = record.attempts if record is not None else 0
        succeeded_before = record is not None and record.status == Status.SUCCEEDED
        deadline = deadline_of(self.process, t, self.zone)
        budget = attempts_of(self.process.retry)
        attempt = previous_attempts
        waited_since = self.clock.now()
        intervals = poll_intervals()
        told: list[str] | None = None  # what the log last said the run waits for
        while True:
            keeper.check_kill()
            if keeper.killed.is_set():  # `toolkit kill` of a run waiting for its inputs: it stops at its next poll
                reason = f"The run was {keeper.killed_reason}; it publishes nothing."
                self.records.instance(t, InstanceFacts(Status.KILLED, attempt, ended=real_now(), error=reason))
                self.ledger.clear_kill_request(self.process.name, t)
                result.status, result.reason = Status.KILLED, reason
                return None, attempt
            if keeper.lost.is_set():  # a renewal found its lease taken over (stalled past it): it stops here
                raise LockLostError(f"The lease of the instance {format_timestamp(t)} of {self.owner} was taken over "
                                    "by another run while it waited: this run stops and writes nothing more.")
            self.check_hold(t)  # held while it waits: it stops at its next poll, its record still WAITING
            began = time.perf_counter()
            plan = self.plan(t)
            result.resolve_seconds = time.perf_counter() - began
            missing = plan.missing_required
            now = self.clock.now()
            result.wait_seconds = waited = (now - waited_since).total_seconds()
            if not missing:
                return plan, attempt
            result.missing = missing
            if succeeded_before:  # a forced or late rerun must not turn a success into a wait or a timeout
                result.status = Status.TIMEDOUT if now >= deadline else Status.WAITING
                result.reason = (f"the rerun of the succeeded instance {format_timestamp(t)} of {self.owner} is "
                                 f"missing {len(missing)} input instance(s): " + _listed(missing)
                                 + "; its record stays SUCCEEDED")
                return None, attempt
            if now >= deadline and not self.options.wait:
                # A call that does not wait judges nothing final: trying the tool on a past date is not a timeout.
                self.records.instance(t, InstanceFacts(Status.WAITING, attempt, missing=missing))
                result.status = Status.WAITING
                result.reason = (f"waiting for {len(missing)} input instance(s), and its timeout passed at "
                                 f"{format_timestamp(deadline)}: a --no-wait call records no timeout (give --now with "
                                 f"a time before {format_timestamp(deadline)} to try a past instance): "
                                 + _listed(missing))
                return None, attempt
            if now >= deadline:
                attempt += 1
                reason = _timed_out(self.owner, t, deadline, missing)
                self.records.attempt(t, plan, AttemptFacts(attempt, Status.TIMEDOUT, real_now(), real_now(),
                                                           error=reason))
                on_timeout = self.process.retry is not None and self.process.retry.on_timeout
                if on_timeout and attempt - previous_attempts < budget:
                    self.pause_before_retry(attempt - previous_attempts)
                    continue
                self.records.instance(t, InstanceFacts(Status.TIMEDOUT, attempt, ended=real_now(), error=reason,
                                                       missing=missing))
                result.status, result.reason, result.attempts = Status.TIMEDOUT, reason, attempt - previous_attempts
                self.notices.notify(t, TIMEDOUT, Status.TIMEDOUT, attempt, reason)
                return None, attempt
            self.records.instance(t, InstanceFacts(Status.WAITING, attempt, missing=missing))
            if not self.options.wait or (self.options.max_wait is not None and waited >= self.options.max_wait):
                result.status = Status.WAITING
                result.reason = (f"waiting for {len(missing)} input instance(s) until {format_timestamp(deadline)}: "
                                 + _listed(missing))
                return None, attempt
            if missing != told:  # said once, and again when what it lacks changes: a waiting run's log is not mute
                self.log(f"process: {self.process.name} {format_timestamp(t)}: waiting for {len(missing)} input "
                         f"instance(s) until {format_timestamp(deadline)} (its timeout), checking every "
                         f"{FIRST_POLL_SECONDS:.0f} s to {LONGEST_POLL_SECONDS / 60:.0f} min: {_listed(missing)}")
                told = missing
            pause = min(next(intervals), seconds_until(now, deadline))
            if self.options.max_wait is not None:
                pause = min(pause, max(self.options.max_wait - waited, 0.0))
            self.clock.sleep(max(pause, 0.01))


def _listed(missing: list[str]) -> str:
    return "; ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")


def _timed_out(owner: str, t: datetime, deadline: datetime, missing: list[str]) -> str:
    return (f"the instance {format_timestamp(t)} of {owner} timed out at {format_timestamp(deadline)} waiting for "
            f"{len(missing)} input instance(s): " + _listed(missing))
