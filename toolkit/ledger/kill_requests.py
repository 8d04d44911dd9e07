"""A request to end a running process instance (`toolkit kill`), kept in the instance's ledger folder beside its lock
(`<instance folder>/kill`): it names the run it is for, when, by whom and why. The run reads it whenever it renews
its lease and before every publication (LeaseKeeper's `stop_when`); a request that names another run is stale (its
run ended) and is ignored, and a run that takes the instance removes it first."""

from __future__ import annotations

import json
from dataclasses import dataclass

from toolkit.errors import ToolkitError
from toolkit.ledger.records import CorruptRecordError, check_format, parse_json, versioned


class RunKilledError(ToolkitError):
    """The run was asked to end (`toolkit kill`): it stops, publishes nothing and records KILLED (exit 1)."""


@dataclass(frozen=True)
class KillRequest:
    run_id: str
    since: str
    by: str
    reason: str | None = None

    def to_bytes(self) -> bytes:
        document = versioned({"run_id": self.run_id, "since": self.since, "by": self.by, "reason": self.reason})
        return (json.dumps(document, sort_keys=True) + "\n").encode()

    @classmethod
    def parse(cls, data: bytes, path: str) -> KillRequest:
        document = parse_json(data, path)
        if not isinstance(document, dict):
            raise CorruptRecordError(path, "not a kill request")
        check_format(document, path)
        try:
            return cls(str(document["run_id"]), str(document["since"]), str(document["by"]), document.get("reason"))
        except KeyError as err:
            raise CorruptRecordError(path, f"a kill request without {err}") from None

    def sentence(self) -> str:
        return f"killed by {self.by} at {self.since}" + (f": {self.reason}" if self.reason else "")
