"""The status contract of docs/exit-codes.md: one JSON object as the last line on stdout (and in
`--status-file`), and the exit code that tells the scheduler what to do. Its error is masked when it is rendered
(toolkit/secrets_masking.py): a password an error quotes is in no status line."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from toolkit.core.storage.local_files import replace_file
from toolkit.secrets_masking import masked
from toolkit.statuses import Status

EXIT_CODES: dict[str, int] = {Status.SUCCEEDED: 0, Status.DRY_RUN: 0, Status.FAILED: 1, Status.TIMEDOUT: 1,
                              Status.KILLED: 1,  # `toolkit kill` ended the run (process.py)
                              Status.INVALID: 2, Status.WAITING: 3, Status.SKIPPED: 4, Status.BLOCKED: 5}
STATUS_OF_EXIT = {0: Status.SUCCEEDED, 1: Status.FAILED, 2: Status.INVALID, 3: Status.WAITING, 4: Status.SKIPPED,
                  5: Status.BLOCKED}


@dataclass
class StatusLine:
    """What an entrypoint call says last. The fields every action has are typed, and the entry frame fills them
    (entry_frame.py: the entity, cluster and time of the call, the status its body returns or its error's, the
    time taken); an action's own (its counters, the path of its record) are `add`ed and rendered after them, in
    the order they were added, then `error` and `elapsed_seconds` when set."""

    action: str
    run_id: str
    status: Status = Status.INVALID
    entity: str | None = None
    time: str | None = None
    cluster: str | None = None
    error: str | None = None
    elapsed_seconds: float | None = None
    details: dict[str, object] = field(default_factory=dict)

    def add(self, **details: object) -> None:
        """Add or replace the action's own fields; a typed field's name is the caller's mistake (TypeError)."""
        typed = details.keys() & _TYPED
        if typed:
            raise TypeError(f"{', '.join(sorted(typed))}: set as attributes of the status line, not added")
        self.details.update(details)

    def add_counters(self, counters: Mapping[str, object]) -> None:
        """An action's counters; the time its run took (`elapsed_seconds`, as its record says) is the status
        line's own field."""
        elapsed = counters.get("elapsed_seconds")
        if isinstance(elapsed, (int, float)):
            self.elapsed_seconds = float(elapsed)
        self.add(**{name: value for name, value in counters.items() if name != "elapsed_seconds"})

    def document(self) -> dict[str, object]:
        """The JSON object, its keys in the order docs/exit-codes.md shows."""
        document: dict[str, object] = {"status": self.status, "action": self.action, "entity": self.entity,
                                       "time": self.time, "run_id": self.run_id}
        if self.cluster is not None:
            document["cluster"] = self.cluster
        document.update(self.details)
        if self.error is not None:
            document["error"] = masked(self.error)
        if self.elapsed_seconds is not None:
            document["elapsed_seconds"] = self.elapsed_seconds
        return document


_TYPED = frozenset(item.name for item in fields(StatusLine)) - {"details"}


def emit(status: StatusLine, status_file: Path | None) -> int:
    """Print the status line, write the status file, and return the exit code for its status."""
    line = json.dumps(status.document(), sort_keys=False, default=str)
    print(line, flush=True)
    if status_file is not None:
        try:
            status_file.parent.mkdir(parents=True, exist_ok=True)
            replace_file(status_file, (line + "\n").encode())
        except OSError as err:
            print(f"{status.action}: the run ended {status.status}, but its status file {status_file} could not be "
                  f"written ({err.strerror}): give --status-file a file this user can write.", file=sys.stderr,
                  flush=True)
            return 1
    return EXIT_CODES[str(status.status)]
