"""What a process's run tells people: each outcome of an instance or a batch to the process's `notification`, and a
`warn` gate's failure to the feeds' too; a failure outside the attempts once, never after the outcome was told."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from toolkit.core.entities.model import Cluster, Process
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.quality_results import GateResult
from toolkit.services.notifications.message import FAILED, QUALITY_WARNING, SUCCEEDED, TIMEDOUT, Notice, rerun_command
from toolkit.services.notifications.notifier import Notifier
from toolkit.services.quality.gate import warnings_of
from toolkit.statuses import Status


class ProcessNotices:
    """The notices of one run (`run_id`) of `process` on `cluster`, sent through `notifier`; `log` (the runner's,
    masked) says a warning to people."""

    def __init__(self, notifier: Notifier, repo: ConfigRepo, process: Process, cluster: Cluster, run_id: str,
                 log: Callable[[str], None]) -> None:
        self.notifier, self.repo, self.process, self.cluster = notifier, repo, process, cluster
        self.run_id, self.log = run_id, log
        self._concluded: set[datetime] = set()  # instances whose outcome this run told
        self._concluded_batches: set[int] = set()  # and batches

    def notify(self, t: datetime, event: str, status: Status, attempt: int | None = None, error: str | None = None,
               batch: int | None = None) -> None:
        """Tell the process's `notification` about instance `t` (or a batch, `t` its newest input); the run's
        outcome stays what it is whether the message goes out or not."""
        if event in (SUCCEEDED, FAILED, TIMEDOUT):
            if batch is None:
                self._concluded.add(t)
            else:
                self._concluded_batches.add(batch)
        if self.process.notification is None:
            return
        rerun = None if event == SUCCEEDED else rerun_command(  # a batch consumer's is its next batch: --batch
            "process", str(self.repo.root), "process", self.process.name, self.cluster.name,
            None if self.process.is_batch_consumer else t)
        self.notifier.notify(self.process.notification, Notice(
            event, "process", self.process.name, self.cluster.name, t, "process", status, run_id=self.run_id,
            attempt=attempt, error=error, rerun=rerun, batch=batch))

    def failed_outside_attempts(self, t: datetime, error: str, timed_out: bool) -> None:
        """A failure outside the attempts (process_lifecycle), unless the run told the instance's outcome already:
        an error after its SUCCEEDED, FAILED or TIMEDOUT (a release the storage refused) is no second outcome."""
        if t not in self._concluded:
            self.notify(t, TIMEDOUT if timed_out else FAILED, Status.TIMEDOUT if timed_out else Status.FAILED,
                        error=error)

    def failed_outside_batch(self, t: datetime, batch: int | None, error: str, timed_out: bool) -> None:
        """A failure of a batch consumer's run outside its attempts (batch_lifecycle): of the batch `batch` whose
        newest input is `t`, or, before a batch was claimed, of the run at `t` (None); never after the batch's
        outcome was told."""
        if batch is None or batch not in self._concluded_batches:
            self.notify(t, TIMEDOUT if timed_out else FAILED, Status.TIMEDOUT if timed_out else Status.FAILED,
                        error=error, batch=batch)

    def warn_quality(self, t: datetime, attempt: int, quality: Sequence[GateResult], batch: int | None = None) -> None:
        """Outputs published although a `warn` gate failed: said in the log and told to the process's and the
        feed's `notification`."""
        warnings = warnings_of(quality)
        if not warnings:
            return
        told = "; ".join(warning.describe_failures() for warning in warnings) + " (on-failure: warn)"
        self.log(f"process: published although {told}")
        self.notify(t, QUALITY_WARNING, Status.SUCCEEDED, attempt, told, batch=batch)
        for warning in warnings:
            feed = self.repo.feed(warning.feed)
            if feed.notification is not None:
                self.notifier.notify(feed.notification, Notice(
                    QUALITY_WARNING, "feed", feed.name, self.cluster.name, t, "process", Status.SUCCEEDED,
                    run_id=self.run_id, attempt=attempt, error=warning.describe_failures()))
