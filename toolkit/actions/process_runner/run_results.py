"""What a call of the process runner asks (`RunOptions`) and what it ends with (`InstanceResult`, the status line's
fields and counters)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from toolkit.core.ledger.quality_results import GateResult, summary
from toolkit.core.ledger.records import PublishedOutput
from toolkit.statuses import Status


@dataclass(frozen=True)
class RunOptions:
    force: bool = False
    # Run a succeeded instance again only when its last attempt started before this instant (the data-trigger
    # sweep gives the newest input event's publication: a second start for the same event then does nothing).
    force_if_started_before: datetime | None = None
    wait: bool = True
    max_wait: float | None = None  # seconds a waiting call polls before it exits 3
    max_retry_delay: float | None = None  # caps each wait between attempts (a rerun by hand, a test)
    kind: str = "RUN"  # or LATE_RERUN
    workflow_path: str | None = None  # a late input's own workflow


@dataclass
class InstanceResult:
    time: datetime
    status: Status  # SUCCEEDED FAILED TIMEDOUT WAITING SKIPPED BLOCKED
    reason: str | None = None
    attempts: int = 0
    missing: list[str] = field(default_factory=list)
    outputs: list[PublishedOutput] = field(default_factory=list)
    record: str | None = None
    wait_seconds: float = 0.0
    workflow_seconds: float = 0.0
    resolve_seconds: float = 0.0  # the last resolution of inputs and outputs against storage
    quality: list[GateResult] = field(default_factory=list)  # the last attempt's data-quality gates

    def counters(self) -> dict[str, object]:
        checked = summary(self.quality)
        return {"attempts": self.attempts, **({"quality": checked} if checked else {}),
                "files_written": sum(o.files for o in self.outputs),
                "bytes_written": sum(o.bytes for o in self.outputs),
                "wait_seconds": round(self.wait_seconds, 3), "workflow_seconds": round(self.workflow_seconds, 3),
                "resolve_seconds": round(self.resolve_seconds, 3)}
