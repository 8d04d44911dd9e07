"""The record a replication call leaves on its target (services/runtime/run_record.py:
`<working>/replication/<feed>/<instant>.json`), declared once by its fields: the runner writes it, `toolkit metrics`
reads it back, and the record codec checks it where it is read. Fields that releases added later have defaults, so
that an older record still reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import Minute, Written, nothing_written


@dataclass(frozen=True)
class CopyTask:
    """One Spark task of a copy spread over the executors: where it ran, what it copied, how long it took and
    which attempt of the task it was (0 unless Spark retried it)."""

    executor: str
    host: str
    files: int
    bytes: int
    seconds: float
    attempt: int


@dataclass(frozen=True)
class SourceCopy:
    """What the call did with one source: its status and why, the paths, Falcon's job counters, whether it
    published (False: the target was up to date), the links it left, which copier copied, and its tasks."""

    KEEPS_NULLS: ClassVar[bool] = True  # `reason`, the paths and `copier` were always written, null or not

    source: str
    status: str
    reason: str | None = None
    source_path: str | None = None
    target_path: str | None = None
    files_copied: int = 0
    files_skipped: int = 0
    bytes_copied: int = 0
    copy_seconds: float = 0.0
    published: bool = False
    links_skipped: list[str] = field(default_factory=list)
    copier: str | None = None
    copy_tasks: list[CopyTask] = field(default_factory=list)


@dataclass(frozen=True)
class ReplicationRecord:
    """One replication call of `feed` into `target` at `time`: the instance it replicated, its status, whether the
    availability flag was written (last), each source's copy, and the data-quality gates the copy was checked with
    (their JSON, core/ledger/quality_results.py)."""

    feed: str
    target: str
    time: Minute
    run_id: str = ""
    action: str = "replication"
    instance: Minute | None = None
    status: str = ""
    flag_written: bool = False
    took_over: str | None = None
    sources: list[SourceCopy] = field(default_factory=list)
    quality: Written[GateResult] = field(default_factory=nothing_written(GateResult))
