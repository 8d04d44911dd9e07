"""What a sweep remembers between calls, in the cluster's ledger (`triggers/sweep.json`):

- `position`: the newest journal entry it has read; the next sweep lists the journal from there (minus the lag
  in which a slower producer's entry can still appear with an older id), and `seen` holds the entries of that
  window it has already handled, so that none is handled twice;
- `due`: per process with a frequency, the instances some event made due and that have not succeeded since
  that event (by the newest event's publication instant), with when the sweep last started each.

It only ever makes sweeps cheaper and starts fewer duplicate runs: losing it (or a sweep killed before writing it)
makes the next sweep read the whole journal again, and what ran already is found in the ledger's instance records.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from toolkit.el.timestamps import instance_key, parse_instance_key
from toolkit.ledger.records import CorruptRecordError, check_format, parse_json, versioned

FORMAT = 1


@dataclass(frozen=True)
class DueInstance:
    """An instance made due by events, the newest published at `event_ms`; `started_ms` when a sweep started it."""

    time: datetime
    event_ms: int
    started_ms: int | None = None


@dataclass(frozen=True)
class SweepState:
    position: str | None = None
    seen: frozenset[str] = frozenset()
    due: dict[str, dict[datetime, DueInstance]] = field(default_factory=dict)

    def to_json(self) -> bytes:
        document = versioned({
            "position": self.position, "seen": sorted(self.seen),
            "due": {process: [{"time": instance_key(item.time), "event_ms": item.event_ms,
                               "started_ms": item.started_ms} for _, item in sorted(instances.items())]
                    for process, instances in sorted(self.due.items()) if instances}}, FORMAT)
        return (json.dumps(document, indent=1, sort_keys=True) + "\n").encode()

    @classmethod
    def parse(cls, data: bytes, path: str) -> SweepState:
        document: Any = parse_json(data, path)
        if not isinstance(document, dict):
            raise CorruptRecordError(path, "not a JSON object")
        check_format(document, path, FORMAT)
        try:
            due: dict[str, dict[datetime, DueInstance]] = {}
            for process, items in document["due"].items():
                instances = {}
                for item in items:
                    t = parse_instance_key(item["time"])
                    if t is None:
                        raise ValueError(f"{item['time']!r} is not an instance key")
                    instances[t] = DueInstance(t, int(item["event_ms"]),
                                               None if item["started_ms"] is None else int(item["started_ms"]))
                due[str(process)] = instances
            return cls(document["position"], frozenset(map(str, document["seen"])), due)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise CorruptRecordError(path, f"not a sweep state: {err}") from None
