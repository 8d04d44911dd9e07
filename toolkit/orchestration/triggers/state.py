"""What a sweep remembers between calls, in the cluster's ledger (`triggers/sweep.json`), per data-triggered
process with a frequency (batch consumers keep theirs in their queue, core/ledger/consumption.py):

- `position`: the newest journal entry it has read for the process; the next sweep lists the journal from there
  (minus the lag in which a slower producer's entry can still appear with an older id), and `seen` holds the
  entries of that window already handled, so that none is handled twice;
- `due`: the instances some event made due and that have not succeeded since that event (by the newest event's
  publication instant), with when the sweep last started each.

Per process, so that a process added later, a process suspended for a while and the processes of another config
repo sweeping the same cluster each read every event once. It only ever makes sweeps cheaper and starts fewer
duplicate runs: losing it (or a sweep killed before writing it) makes the next sweep read the whole journal again,
and what ran already is found in the ledger's instance records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from toolkit.core.el.timestamps import instance_key, parse_instance_key
from toolkit.core.ledger.records import CorruptRecordError, check_format, is_event_id, parse_json, versioned

FORMAT = 1


@dataclass(frozen=True)
class DueInstance:
    """An instance made due by events, the newest published at `event_ms`; `started_ms` when a sweep started it."""

    time: datetime
    event_ms: int
    started_ms: int | None = None


@dataclass(frozen=True)
class ProcessState:
    position: str | None = None
    seen: frozenset[str] = frozenset()
    due: dict[datetime, DueInstance] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"position": self.position, "seen": sorted(self.seen),
                "due": [{"time": instance_key(item.time), "event_ms": item.event_ms, "started_ms": item.started_ms}
                        for _, item in sorted(self.due.items())]}

    @classmethod
    def parse(cls, document: Any) -> ProcessState:
        due = {}
        for item in document["due"]:
            t = parse_instance_key(item["time"])
            if t is None:
                raise ValueError(f"{item['time']!r} is not an instance key")
            due[t] = DueInstance(t, int(item["event_ms"]),
                                 None if item["started_ms"] is None else int(item["started_ms"]))
        return cls(_position(document["position"]), frozenset(map(str, document["seen"])), due)


def _position(value: object) -> str | None:
    """An event id, or None; ValueError for anything else: the sweep reads the journal from its stamp, so a
    damaged position must be a damaged record (refused with its path), not a traceback later."""
    if value is None or is_event_id(value):
        return None if value is None else str(value)
    raise ValueError(f"'position' {value!r} is not an event id")


@dataclass(frozen=True)
class SweepState:
    processes: dict[str, ProcessState] = field(default_factory=dict)

    def of(self, process: str) -> ProcessState:
        return self.processes.get(process, ProcessState())

    def to_json(self) -> bytes:
        document = versioned({"processes": {name: state.to_json() for name, state in sorted(self.processes.items())}},
                             FORMAT)
        return (json.dumps(document, indent=1, sort_keys=True) + "\n").encode()

    @classmethod
    def parse(cls, data: bytes, path: str) -> SweepState:
        document: Any = parse_json(data, path)
        if not isinstance(document, dict):
            raise CorruptRecordError(path, "not a JSON object")
        check_format(document, path, FORMAT)
        try:
            return cls({str(name): ProcessState.parse(item) for name, item in document["processes"].items()})
        except (KeyError, TypeError, ValueError, AttributeError, OverflowError) as err:
            raise CorruptRecordError(path, f"not a sweep state: {err}") from None
