"""The status contract of docs/exit-codes.md: one JSON object as the last line on stdout (and in
`--status-file`), and the exit code that tells the scheduler what to do."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from toolkit.statuses import Status

EXIT_CODES: dict[str, int] = {Status.SUCCEEDED: 0, Status.DRY_RUN: 0, Status.FAILED: 1, Status.TIMEDOUT: 1,
                              Status.INVALID: 2, Status.WAITING: 3, Status.SKIPPED: 4, Status.BLOCKED: 5}
STATUS_OF_EXIT = {0: Status.SUCCEEDED, 1: Status.FAILED, 2: Status.INVALID, 3: Status.WAITING, 4: Status.SKIPPED,
                  5: Status.BLOCKED}


def emit(status: dict[str, object], status_file: Path | None) -> int:
    """Print the status line, write the status file, and return the exit code for `status["status"]`."""
    line = json.dumps(status, sort_keys=False, default=str)
    print(line, flush=True)
    if status_file is not None:
        status_file.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=status_file.parent, prefix=f".{status_file.name}.")
        with os.fdopen(handle, "w") as stream:
            stream.write(line + "\n")
        os.replace(temporary, status_file)
    return EXIT_CODES[str(status["status"])]
