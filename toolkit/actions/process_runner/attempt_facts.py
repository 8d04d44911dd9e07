"""What one attempt of a process's run says about itself when its record is written (an instance's attempt or a
batch's: the runner and the batch runner fill it in), and what the runner says of its instance: typed records filled
in as the run goes, where each writer took nine to eleven loose parameters."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import AttemptJob, Counters, PublishedOutput, Written, wall_clock_stamp
from toolkit.statuses import Status


@dataclass(frozen=True)
class AttemptFacts:
    """Attempt `attempt` with `status`, started (and ended) at real instants; its error, the outputs it published,
    how long its workflow ran, the quality gates its outputs were checked against, and the job of another server
    it runs as (`FollowedJob.recorded`, or an `AttemptJobs` journal's)."""

    attempt: int
    status: Status
    started: datetime
    ended: datetime | None = None
    error: str | None = None
    outputs: Sequence[PublishedOutput] = ()
    workflow_seconds: float | None = None
    quality: Sequence[GateResult] = ()
    job: AttemptJob | None = None

    @property
    def started_stamp(self) -> str:
        return wall_clock_stamp(self.started.timestamp())

    @property
    def ended_stamp(self) -> str | None:
        return wall_clock_stamp(self.ended.timestamp()) if self.ended is not None else None

    def outputs_written(self) -> Written[PublishedOutput]:
        return Written.of(PublishedOutput, self.outputs)

    def counters(self) -> Counters:
        return {} if self.workflow_seconds is None else {"workflow_seconds": round(self.workflow_seconds, 3)}

    def quality_written(self) -> Written[GateResult]:
        return Written.of(GateResult, self.quality)


@dataclass(frozen=True)
class InstanceFacts:
    """The instance's state as a run writes it: `status` after `attempts` attempts, started or ended at real
    instants when the run says so, the error it ended with, the input instances it waits for, and the outputs a
    success published."""

    status: Status
    attempts: int
    started: datetime | None = None
    ended: datetime | None = None
    error: str | None = None
    missing: Sequence[str] = ()
    outputs: Sequence[PublishedOutput] = ()
