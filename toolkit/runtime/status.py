"""The status contract of docs/exit-codes.md: one JSON object as the last line on stdout (and in
`--status-file`), and the exit code that tells the scheduler what to do."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

EXIT_CODES = {"SUCCEEDED": 0, "DRY_RUN": 0, "FAILED": 1, "TIMEDOUT": 1, "INVALID": 2, "WAITING": 3, "SKIPPED": 4,
              "BLOCKED": 5}
STATUS_OF_EXIT = {0: "SUCCEEDED", 1: "FAILED", 2: "INVALID", 3: "WAITING", 4: "SKIPPED", 5: "BLOCKED"}


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
