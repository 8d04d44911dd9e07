"""The cluster's control switches, kept in its ledger: safemode (every action exits 5 before touching data)
and suspended entities (their actions exit 4). A switch is a file; its content says who set it and when."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.record_files import RecordFile
from toolkit.core.ledger.records import Stamp, parse_record
from toolkit.core.storage.filesystem import FileSystem


@dataclass(frozen=True)
class Switch:
    on: bool
    since: str | None = None
    by: str | None = None
    reason: str | None = None


@dataclass(frozen=True)
class SwitchSet:
    """What a switch's file says (a typed record of the record codec): who set it, when and why."""

    since: Stamp | None = None
    by: str | None = None
    reason: str | None = None


class Control:
    def __init__(self, fs: FileSystem, layout: LedgerLayout) -> None:
        self.fs, self.layout = fs, layout

    def _read(self, path: str) -> Switch:
        """Off without its file; on with it, an empty one too (a switch set by hand with `touch`)."""
        status = self.fs.status(path)
        if status is None:
            return Switch(False)
        if not status.length:
            return Switch(True)
        found: SwitchSet = parse_record(SwitchSet, self.fs.read(path), path)
        return Switch(True, found.since, found.by, found.reason)

    def _write(self, path: str, on: bool, since: str, by: str, reason: str | None) -> None:
        if on:
            RecordFile(self.fs, path, SwitchSet).write(SwitchSet(since, by, reason))
        else:
            self.fs.delete(path, recursive=False)

    def safemode(self) -> Switch:
        return self._read(self.layout.safemode())

    def set_safemode(self, on: bool, since: str, by: str, reason: str | None = None) -> None:
        self._write(self.layout.safemode(), on, since, by, reason)

    def suspension(self, kind: str, name: str) -> Switch:
        return self._read(self.layout.suspended(kind, name))

    def set_suspended(self, kind: str, name: str, on: bool, since: str, by: str, reason: str | None = None) -> None:
        self._write(self.layout.suspended(kind, name), on, since, by, reason)
