"""The ledger's copy of every run's OpenLineage events: one file per run, with whether the backend took each,
written atomically through the cluster's file system (run.py says when). What `toolkit lineage resend` reads.

    <working>/ledger/lineage/<yyyyMMdd>/<HH>/<run uuid>.json       by the UTC hour the run started
    <working>/ledger/lineage/<yyyyMMdd>/<HH>/<run uuid>.<n>.sent   event n taken by the backend on a resend

Only the run writes its record; a resend marks what it sent in files of its own, created exclusively. So neither
overwrites the other's news: a resend between two saves of a running run neither loses the run's later events
nor has its sends forgotten (which would send them again).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, timezone
from typing import Any

from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.record_files import RecordFile
from toolkit.core.ledger.records import IsoInstant
from toolkit.core.storage.filesystem import FileSystem

SENT = ".sent"


@dataclass(frozen=True)
class KeptEvent:
    """One OpenLineage run event (its JSON document, as sent) and whether the backend took it."""

    sent: bool
    event: dict[str, Any]


@dataclass(frozen=True)
class LineageRecord:
    """A run's events in the order they were built. `started` is the run's start, kept to the millisecond (UTC).
    Written as one line of compact JSON (`ONE_LINE`: it is rewritten at a run's events and can hold many)."""

    ONE_LINE = True
    RECORD_NAME = "lineage record"

    run: str  # the run's uuid
    started: IsoInstant
    events: tuple[KeptEvent, ...] = ()

    def with_event(self, event: dict[str, Any], sent: bool) -> LineageRecord:
        return replace(self, events=(*self.events, KeptEvent(sent, event)))

    def marked_sent(self, indexes: set[int]) -> LineageRecord:
        return replace(self, events=tuple(KeptEvent(kept.sent or i in indexes, kept.event)
                                          for i, kept in enumerate(self.events)))

    @property
    def unsent(self) -> list[int]:
        return [i for i, kept in enumerate(self.events) if not kept.sent]


class LineageBook:
    """The lineage records of one cluster's ledger."""

    def __init__(self, fs: FileSystem, layout: LedgerLayout) -> None:
        self.fs, self.layout = fs, layout

    def path(self, record: LineageRecord) -> str:
        return self.layout.lineage_run(record.started, record.run)

    def file(self, path: str) -> RecordFile[LineageRecord]:
        return RecordFile(self.fs, path, LineageRecord)

    def save(self, record: LineageRecord) -> None:
        """Write the run's record: for the run alone (a resend calls `mark_sent`)."""
        self.file(self.path(record)).write(record)

    def mark_sent(self, record: LineageRecord, index: int) -> None:
        """Record that the backend took event `index` of the run on a resend (nothing when marked already)."""
        self.fs.create_exclusive(f"{self.path(record).removesuffix('.json')}.{index}{SENT}", b"")

    def records(self, first: datetime | None = None,
                last: datetime | None = None) -> Iterator[tuple[str, LineageRecord]]:
        """The records of runs started from `first` to `last` (either open), oldest first: only the day and hour
        folders of the window are listed, two listings in all."""
        root = self.layout.lineage_folder()
        days = [status for status in self.fs.list_many([root])[root]
                if status.is_dir and _in(status.name, "%Y%m%d", first, last, timedelta(days=1))]
        hours = self.fs.list_many(sorted(status.path for status in days))
        folders = sorted(status.path for listed in hours.values() for status in listed if status.is_dir
                         and _in(status.path.rsplit("/", 2)[-2] + status.name, "%Y%m%d%H", first, last,
                                 timedelta(hours=1)))
        files = self.fs.list_many(folders)
        for folder in folders:
            listed = sorted((status for status in files.get(folder, []) if not status.is_dir), key=lambda s: s.name)
            marks = _marks(status.name for status in listed)
            for status in listed:
                if not status.name.endswith(".json"):
                    continue
                record = self.file(status.path).read()
                if record is None:
                    continue  # gone since the listing
                if (first is None or first <= record.started) and (last is None or record.started <= last):
                    yield status.path, record.marked_sent(marks.get(record.run, set()))


# `<run uuid>.<event index>.sent`; ASCII digits only (`str.isdigit` takes a superscript two, which `int` refuses).
_MARK = re.compile(r"(?P<run>.+)\.(?P<index>[0-9]+)" + re.escape(SENT))


def _marks(names: Iterable[str]) -> dict[str, set[int]]:
    """The events marked sent by resends, by run uuid, from the names of an hour folder."""
    found: dict[str, set[int]] = {}
    for name in names:
        mark = _MARK.fullmatch(name)
        if mark:
            found.setdefault(mark["run"], set()).add(int(mark["index"]))
    return found


def _in(name: str, pattern: str, first: datetime | None, last: datetime | None, span: timedelta) -> bool:
    """Whether the folder `name` (a day or an hour) overlaps the window; a foreign name never does."""
    try:
        begins = datetime.strptime(name, pattern).replace(tzinfo=timezone.utc)
    except ValueError:
        return False
    return (first is None or begins + span > first) and (last is None or begins <= last)
