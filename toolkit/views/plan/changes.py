"""What `toolkit plan` says of one change: the entity, the cluster, what changed, whether it loses data, and the
instances it touches (counted always, listed up to a limit). Its JSON form is a versioned contract
(docs/plan.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from toolkit.core.el.timestamps import format_timestamp

FORMAT_VERSION = 1


@dataclass(frozen=True)
class PlannedInstance:
    """An instance a change touches: its nominal time, where it is, its size."""

    time: datetime
    path: str
    bytes: int

    def to_json(self) -> dict[str, object]:
        return {"time": format_timestamp(self.time), "path": self.path, "bytes": self.bytes}


@dataclass(frozen=True)
class Change:
    """One change of one entity (on one cluster, when it is about a cluster's data). `destructive`: data is
    deleted, archived, orphaned or made unreachable that the base definition keeps; `warning`: not destructive,
    but the data is managed differently (strict mode fails on it); neither: a definition change alone."""

    entity: str
    kind: str
    change: str
    cluster: str | None = None
    destructive: bool = False
    warning: bool = False
    instances: tuple[PlannedInstance, ...] = ()
    read_storage: bool = False  # the instances were read from the cluster's storage
    command: str | None = None
    file: str | None = None  # the entity's definition file (the head's, else the base's), as the caller reaches it

    @property
    def count(self) -> int:
        return len(self.instances)

    @property
    def bytes(self) -> int:
        return sum(instance.bytes for instance in self.instances)

    def to_json(self, limit: int) -> dict[str, object]:
        times = [instance.time for instance in self.instances]
        return {
            "entity": self.entity, "kind": self.kind, "cluster": self.cluster, "change": self.change,
            "destructive": self.destructive, "warning": self.warning, "read_storage": self.read_storage,
            "count": self.count, "bytes": self.bytes,
            "first": format_timestamp(min(times)) if times else None,
            "last": format_timestamp(max(times)) if times else None,
            "instances": [instance.to_json() for instance in self.instances[:limit]],
            "command": self.command, "file": self.file,
        }


@dataclass(frozen=True)
class Plan:
    """Every change from `base` to `head` (a commit, or "working tree"), at `now`; `offline`: the definitions
    alone were compared, no storage or ledger read."""

    base: str
    head: str
    now: datetime
    changes: tuple[Change, ...]
    offline: bool = False

    @property
    def destructive(self) -> Sequence[Change]:
        return [change for change in self.changes if change.destructive]

    @property
    def warnings(self) -> Sequence[Change]:
        return [change for change in self.changes if change.warning and not change.destructive]

    def to_json(self, limit: int) -> dict[str, object]:
        return {"format_version": FORMAT_VERSION, "base": self.base, "head": self.head,
                "now": format_timestamp(self.now), "offline": self.offline,
                "changes": [change.to_json(limit) for change in self.changes]}
