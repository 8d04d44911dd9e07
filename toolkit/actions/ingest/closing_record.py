"""The ledger record of a streamed instance's last closing under its data-quality gates,
`ingest/<feed>/closings/<yyyyMMddTHHmmZ>.json`, rewritten at each closing of the instance (a feed without gates
writes none: its dataset events say all there is).

`state` is `closed` (every gate passed, or only `warn` gates failed: published), `blocked` (a `block` gate failed:
held back, nothing published) or `accepted` (held back, then published by hand: ingest found a dataset event that
records the content it had refused, and let it go without checking it again). `fingerprint` is the content that
was checked and `gates` a digest of the suites and their `on-failure`: a blocked instance is checked again only
once either changes, so that an ingest run every few minutes does not validate (and notify about) the same bad
data each time. `quality` holds the gates' results (toolkit/core/ledger/quality_results.py, JSON form)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Annotated

from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.record_files import InstanceRecords
from toolkit.core.ledger.records import Minute, Stamp, Written, nothing_written
from toolkit.core.storage.filesystem import FileSystem

CLOSED, BLOCKED, ACCEPTED = "closed", "blocked", "accepted"


@dataclass(frozen=True)
class ClosingRecord:
    feed: str
    cluster: str
    time: Minute
    run_id: str
    state: Annotated[str, (CLOSED, BLOCKED, ACCEPTED)]
    written: Stamp
    location: str
    fingerprint: Fingerprint | None = None  # the content checked (toolkit/core/instances/fingerprints.py)
    gates: str = ""  # the digest of the suites and their on-failure it was checked against
    quality: Written[GateResult] = field(default_factory=nothing_written(GateResult))

    def holds(self, fingerprint: Fingerprint | None, gates: str) -> bool:
        """Whether this is a refusal of the same content under the same gates (nothing to check again)."""
        return self.state == BLOCKED and self.gates == gates and _digest(self.fingerprint) == _digest(fingerprint)


def _digest(fingerprint: Fingerprint | None) -> str | None:
    return None if fingerprint is None else fingerprint.digest


def same_content(a: Fingerprint | None, b: Fingerprint | None) -> bool:
    """Whether two fingerprints are of the same files (a missing one matches nothing)."""
    return a is not None and b is not None and _digest(a) == _digest(b)


class ClosingBook(InstanceRecords[ClosingRecord]):
    """The closing records of one streamed feed in one cluster's ledger."""

    def __init__(self, fs: FileSystem, layout: LedgerLayout, feed: str) -> None:
        super().__init__(fs, f"{layout.ingest_folder(feed)}/closings", ClosingRecord)
