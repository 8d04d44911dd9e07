"""A hold on one process instance (`toolkit suspend --process P --time T`, Falcon's `instance -suspend`), kept in the
process's ledger folder (`holds/<yyyyMMddTHHmmZ>`): who held it, when and why. A run of a held instance does not
start it (exit 4, SKIPPED); a run already following the instance's Oozie job suspends the job at its next poll and
resumes it when `toolkit resume --time` removes the hold. The holds sit apart from the instance folders so that
`toolkit ledger-rollup`, which moves closed instance folders into a month's roll-up, never takes one along, and so
that `toolkit status` finds them all in one listing.

A hold carries the token of the call that wrote it: what tells one `toolkit suspend`'s hold from another's that reads
the same (one operator, one second, one reason), so that a call withdraws only its own. A hold written before tokens
has none, and is no call's own."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from toolkit.core.ledger.records import Stamp


@dataclass(frozen=True)
class Hold:
    """Who held the instance (`by`), when (`since`) and why; read and written by the record codec (records.py)."""

    since: Stamp
    by: str
    reason: str | None = None
    token: str = ""  # the writing call's own, random; "" in a hold written before tokens

    @classmethod
    def placed(cls, since: str, by: str, reason: str | None) -> Hold:
        """A new call's hold, with a token of its own."""
        return cls(since, by, reason, secrets.token_hex(8))

    def sentence(self) -> str:
        """`held by alice at 2026-11-25T18:00:00Z: bad upstream data`."""
        return f"held by {self.by} at {self.since}" + (f": {self.reason}" if self.reason else "")
