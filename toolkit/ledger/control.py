"""The cluster's control switches, kept in its ledger: safemode (every action exits 5 before touching data)
and suspended entities (their actions exit 4). A switch is a file; its content says who set it and when."""

from __future__ import annotations

import json
from dataclasses import dataclass

from toolkit.ledger.layout import LedgerLayout
from toolkit.ledger.records import check_format, parse_json, versioned
from toolkit.storage.filesystem import FileSystem


@dataclass(frozen=True)
class Switch:
    on: bool
    since: str | None = None
    by: str | None = None
    reason: str | None = None


class Control:
    def __init__(self, fs: FileSystem, layout: LedgerLayout) -> None:
        self.fs, self.layout = fs, layout

    def _read(self, path: str) -> Switch:
        status = self.fs.status(path)
        if status is None:
            return Switch(False)
        document = parse_json(self.fs.read(path), path) if status.length else {}
        document = document if isinstance(document, dict) else {}
        check_format(document, path)
        return Switch(True, document.get("since"), document.get("by"), document.get("reason"))

    def _write(self, path: str, on: bool, since: str, by: str, reason: str | None) -> None:
        if on:
            data = json.dumps(versioned({"since": since, "by": by, "reason": reason}), sort_keys=True) + "\n"
            self.fs.write_atomically(path, data.encode())
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
