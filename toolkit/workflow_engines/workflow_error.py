"""The error of a failed workflow, raised by every engine and handled by the runner's retry policy."""

from __future__ import annotations

from toolkit.errors import ToolkitError


class WorkflowError(ToolkitError):
    """The workflow failed (exit 1 once the retries are spent); the message says where and why."""
