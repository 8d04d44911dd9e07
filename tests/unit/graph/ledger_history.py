"""A ledger for the template repo's primary cluster, written with the ledger's own API: what the graph's
statuses are read from in the unit tests and the browser test."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import InstanceRecord, PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem

SUMMARY = "hourly-clicks-summary"
ROLLUP = "daily-clicks-rollup"


def primary_ledger(conf: Path) -> Ledger:
    return Ledger.of(LocalFileSystem(), ConfigRepo.load(conf).cluster("primary"))


def record(process: str, hour: int, status: str, day: int = 21) -> InstanceRecord:
    stamp = f"2026-11-{day:02d}T{hour:02d}"
    return InstanceRecord(process=process, cluster="primary", time=f"{stamp}:00Z", status=status, attempts=1,
                          run_id=f"run-{process}-{day}-{hour:02d}", updated=f"{stamp}:59:00Z")


def at(hour: int, day: int = 21) -> datetime:
    return datetime(2026, 11, day, hour, tzinfo=timezone.utc)


def write_history(conf: Path) -> Ledger:
    """The summary: 12 hours SUCCEEDED (00:00 to 11:00), then 12:00 FAILED (its newest); the rollup: the day
    of the 20th SUCCEEDED, the 21st WAITING. Clicks published for 09:00 to 11:00 and 08:00 evicted, the
    summaries' outputs published for 10:00 and 11:00 (11:00 replaced); nothing about the rollup's outputs."""
    ledger = primary_ledger(conf)
    for hour in range(12):
        ledger.write_instance(record(SUMMARY, hour, "SUCCEEDED"))
    ledger.write_instance(record(SUMMARY, 12, "FAILED"))
    ledger.write_instance(record(ROLLUP, 0, "SUCCEEDED", day=20))
    ledger.write_instance(record(ROLLUP, 0, "WAITING", day=21))
    for hour in (9, 10, 11):
        ledger.record_publication(PublicationFacts("clicks", "primary", at(hour), producer="external",
                                                   run_id=f"publish-{hour}", location=f"/data/clicks/{hour}",
                                                   fingerprint=Fingerprint("d", 1, 1)))
    ledger.record_evictions("clicks", "primary", [(at(8), "/data/clicks/08")], producer="retention",
                            run_id="retention-1")
    for hour in (10, 11, 11):
        ledger.record_publication(PublicationFacts("clicks-hourly-summary", "primary", at(hour), producer=SUMMARY,
                                                   run_id=f"run-{SUMMARY}-21-{hour:02d}",
                                                   location=f"/data/summary/{hour}",
                                                   fingerprint=Fingerprint(f"{hour}", 1, 1)))
    return ledger
