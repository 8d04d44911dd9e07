"""A request to end a running process instance (`toolkit kill`), kept in the instance's ledger folder beside its lock
(`<instance folder>/kill`): it names the run it is for, when, by whom and why. The run reads it whenever it renews
its lease and before every publication (LeaseKeeper's `stop_when`); a request that names another run is stale (its
run ended) and is ignored, and a run that takes the instance removes it first."""

from __future__ import annotations

from dataclasses import dataclass

from toolkit.core.ledger.records import Stamp
from toolkit.errors import ToolkitError


class RunKilledError(ToolkitError):
    """The run was asked to end (`toolkit kill`): it stops, publishes nothing and records KILLED (exit 1)."""


@dataclass(frozen=True)
class KillRequest:
    """The run to end (`run_id`), who asked (`by`), when (`since`) and why; read and written by the record codec
    (records.py)."""

    run_id: str
    since: Stamp
    by: str
    reason: str | None = None

    def sentence(self) -> str:
        return f"killed by {self.by} at {self.since}" + (f": {self.reason}" if self.reason else "")
