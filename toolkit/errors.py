"""Errors a user can act on, each carrying the exit code of the contract in docs/exit-codes.md.

Every message is one sentence naming the entity, field or path and what to do. The CLI and the
entrypoints print the message (never a traceback) and exit with `exit_code`.
"""

from __future__ import annotations


class ToolkitError(Exception):
    """A failure the user can understand and act on; `exit_code` follows docs/exit-codes.md."""

    exit_code: int = 1


class UsageError(ToolkitError):
    """A bad argument, unknown entity, invalid expression or invalid repo: fix the call (exit 2)."""

    exit_code = 2


class WaitingError(ToolkitError):
    """A required input is not there yet (a partition, an instance): call again later (exit 3)."""

    exit_code = 3


class TimedOutError(ToolkitError):
    """What the call waited for did not come by the entity's timeout (exit 1, status TIMEDOUT): given up."""


class SkippedError(ToolkitError):
    """Nothing to do: outside validity, suspended, or already succeeded (exit 4); the scheduler goes on."""

    exit_code = 4


class BlockedError(ToolkitError):
    """Safemode, an instance locked by a live run, or `parallel` reached (exit 5): call again later."""

    exit_code = 5
