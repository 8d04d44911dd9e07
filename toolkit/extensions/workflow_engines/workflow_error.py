"""The error of a failed workflow, raised by every engine and handled by the runner's retry policy."""

from __future__ import annotations

from toolkit.errors import ToolkitError
from toolkit.statuses import Status


class WorkflowError(ToolkitError):
    """The workflow failed (exit 1 once the retries are spent); the message says where and why. `status` is what
    the attempt's record says: FAILED, or TIMEDOUT for a job of another server that ran past the process's timeout
    (an Oozie workflow job, killed then)."""

    def __init__(self, message: str, status: Status = Status.FAILED) -> None:
        super().__init__(message)
        self.status = status
