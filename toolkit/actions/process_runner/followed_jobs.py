"""The jobs of another server that attempts run as (an Oozie workflow job of the `oozie` and `pig` engines), as the
ledger keeps them: each attempt's record (an instance's `AttemptRecord`, a batch's `BatchRecord`) holds its job's
id (`job`) from before the job runs, so that a run killed with the job running (kill -9: nothing could be said)
leaves it findable. The next attempt of the instance (the next run's, which records that attempt KILLED when it
takes the lock over, or the retry after a job that ran past the timeout and could not be killed), or the replay
of the batch, follows the same job with that attempt's staging instead of submitting the workflow a
second time; a job it follows is recorded in its own attempt too, so a run killed while following leaves it
findable as well."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from toolkit.core.ledger.records import AttemptJob
from toolkit.statuses import Status


class Attempted(Protocol):
    """An attempt's record: an instance's (`AttemptRecord`) or a batch's (`BatchRecord`)."""

    @property
    def attempt(self) -> int: ...

    @property
    def status(self) -> Status: ...

    @property
    def job(self) -> AttemptJob | None: ...


@dataclass(frozen=True)
class FollowedJob:
    """A job a killed attempt left running: its id, and the run and attempt whose staging it writes."""

    id: str
    run_id: str
    attempt: int

    def recorded(self, status: str | None = None) -> AttemptJob:
        """The job as an attempt's record holds it, with the end status the attempt saw (None: not seen)."""
        return AttemptJob(self.id, self.run_id, self.attempt, status)


def job_to_follow(attempts: Iterable[Attempted]) -> FollowedJob | None:
    """The job of the instance's last attempt when that attempt failed before it saw the job end (its run was
    killed, or the job ran past the timeout and Oozie refused to kill it): the job may still run and write that
    attempt's staging. None when the last attempt succeeded, or saw its job end (`status` in its record)."""
    last = max(attempts, key=lambda record: record.attempt, default=None)
    if last is None or last.status == Status.SUCCEEDED or last.job is None or last.job.status is not None:
        return None  # a damaged job is read as none (AttemptJob)
    return FollowedJob(last.job.id, last.job.run_id, last.job.attempt)


class AttemptJobs:
    """The `JobJournal` of one attempt: the job it follows (or None: it submits one, whose staging is `run_id`'s
    `attempt`), `write` to record the job's id in the attempt's record at once, `held` to read the instance's hold
    (`toolkit suspend --time`; a batch has none), and the job's end status, which the attempt's last record carries
    (`recorded`)."""

    def __init__(self, follows: FollowedJob | None, run_id: str, attempt: int,
                 write: Callable[[AttemptJob], None], held: Callable[[], str | None] = lambda: None) -> None:
        self.follows, self.job = follows, follows
        self.run_id, self.attempt, self.write, self._held = run_id, attempt, write, held
        self.status: str | None = None

    def held(self) -> str | None:
        return self._held()

    def followed(self) -> str | None:
        return self.follows.id if self.follows is not None else None

    def record(self, job: str) -> None:
        self.job = FollowedJob(job, self.run_id, self.attempt)
        self.write(self.job.recorded())

    def ended(self, status: str) -> None:
        self.status = status

    @property
    def left_running(self) -> bool:
        """A job was submitted or followed and its end not seen: it may still write its staging, which a failed
        attempt must then keep for the attempt that follows the job."""
        return self.job is not None and self.status is None

    def recorded(self) -> AttemptJob | None:
        """The job as the attempt's record holds it, with its end status once seen (None: no job)."""
        if self.job is None:
            return None
        return self.job.recorded(self.status or None)
