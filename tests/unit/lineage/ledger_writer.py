"""Ledgers written with the real Ledger API for lineage tests: the template repo with temp cluster roots, process
attempts with the inputs they read (and fingerprints), and dataset events as the producers record them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

from tests.unit.retention.retention_repo import make_repo, utc
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.model import Cluster
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.records import (
    AttemptRecord,
    DatasetEvent,
    InstanceRecord,
    PublicationFacts,
    PublishedOutput,
    ReadInput,
    Written,
)
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.views.ledger_access import Now, open_ledger
from toolkit.views.lineage.graph import Lineage
from toolkit.views.lineage.ledgers import Ledgers
from toolkit.views.lineage.walk import trace_feed

__all__ = ["DAY", "LedgerWriter", "a_day_of_runs", "fingerprint", "make_repo", "utc"]

STAMP = "2026-11-22T13:00:00Z"


def fingerprint(label: str) -> Fingerprint:
    """A fingerprint whose digest says what it stands for (the same label, the same content)."""
    return Fingerprint(label.ljust(64, "0")[:64], 1, len(label))


class LedgerWriter:
    """Writes the records the process runner, replication and `toolkit publish` write, through the Ledger API."""

    def __init__(self, repo: Path) -> None:
        self.repo = ConfigRepo.load(repo)
        self.fs = LocalFileSystem()

    def ledger(self, cluster: str) -> Ledger:
        return Ledger.of(self.fs, self.repo.cluster(cluster))

    def ledgers(self) -> Ledgers:
        """What `toolkit lineage` reads: the clusters' ledgers opened as the CLI opens them (file:// only)."""
        now = Now.of(None)

        def opener(on: Cluster) -> Ledger:
            return open_ledger(on, now)
        return Ledgers(self.repo, opener)

    def publish(self, feed: str, cluster: str, t: datetime, producer: str, run_id: str,
                content: str) -> DatasetEvent | None:
        return self.ledger(cluster).record_publication(PublicationFacts(feed, cluster, t, producer=producer,
                                                                        run_id=run_id,
                                                                        location=f"/data/{feed}/{format_timestamp(t)}",
                                                                        fingerprint=fingerprint(content)))

    def run(self, process: str, t: datetime, run_id: str, reads: dict[str, tuple[str, Sequence[tuple[datetime, str]]]],
            writes: dict[str, tuple[str, datetime]], *, cluster: str = "primary", attempt: int = 1, kind: str = "RUN",
            status: str = "SUCCEEDED", content: str | None = None) -> None:
        """An attempt of `process` at `t`: `reads` per input name its feed and (time, content label) read;
        `writes` per output name its feed and time. A succeeded attempt publishes its outputs (events)."""
        inputs = Written(ReadInput, [{"name": name, "feed": feed, "optional": False, "instances": [
            {"time": format_timestamp(at), "location": f"/data/{feed}/{format_timestamp(at)}", "available": True,
             "fingerprint": fingerprint(label).to_json()} for at, label in seen]}
                                     for name, (feed, seen) in reads.items()])
        outputs = Written(PublishedOutput, [{"name": name, "feed": feed, "time": format_timestamp(at),
                                             "path": f"/data/{feed}", "files": 1, "bytes": 1, "replaced": False}
                                            for name, (feed, at) in writes.items()])
        ledger = self.ledger(cluster)
        stamp = format_timestamp(t)
        succeeded = status == "SUCCEEDED"
        ledger.write_attempt(AttemptRecord(process, cluster, stamp, attempt, run_id, kind, status, STAMP, STAMP,
                                           inputs=inputs, outputs=outputs if succeeded else Written(PublishedOutput)))
        ledger.write_instance(InstanceRecord(process, cluster, stamp, status, attempt, run_id, STAMP, STAMP, STAMP,
                                             inputs=inputs,
                                             outputs=outputs if succeeded else Written(PublishedOutput)))
        if succeeded:
            for feed, at in writes.values():
                self.publish(feed, cluster, at, f"process:{process}", run_id, content or f"{feed}@{at:%H}/{run_id}")


DAY = utc(2026, 11, 21)


def a_day_of_runs(writer: LedgerWriter) -> None:
    """What the template's processes leave after a day: the clicks of 2026-11-20T22:00Z to 2026-11-21T23:00Z
    published by an outside producer, the 24 hourly summaries of 2026-11-21 (each reading three hours of
    clicks), the daily rollup of that day (run at 2026-11-22T00:00Z, two outputs) and top-pages reading it."""
    hours = [DAY + timedelta(hours=k) for k in range(-2, 24)]
    for hour in hours:
        writer.publish("clicks", "primary", hour, "external", f"ext{hour:%d%H}", f"clicks{hour:%d%H}")
    for hour in hours[2:]:
        window = [(hour - timedelta(hours=k), f"clicks{hour - timedelta(hours=k):%d%H}") for k in (2, 1, 0)]
        writer.run("hourly-clicks-summary", hour, f"sum{hour:%H}", {"clicks": ("clicks", window)},
                   {"summary": ("clicks-hourly-summary", hour)})
    summaries = [(hour, f"clicks-hourly-summary@{hour:%H}/sum{hour:%H}") for hour in hours[2:]]
    rollup = DAY + timedelta(days=1)
    writer.run("daily-clicks-rollup", rollup, "roll1", {"hourly": ("clicks-hourly-summary", summaries)},
               {"daily": ("clicks-daily", DAY), "daily-table": ("clicks-daily-table", DAY)})
    writer.run("top-pages", rollup, "top1", {"daily": ("clicks-daily", [(DAY, "clicks-daily@00/roll1")])},
               {"top": ("top-pages", DAY)})


def replicated_with_a_late_input(tmp_path: Path) -> Lineage:
    """The lineage of clicks-hourly-summary at 10:00 on primary, two levels up and one down, after a day of runs,
    a late change of its 09:00 input and a replication of its 10:00 input to backup."""
    t = utc(2026, 11, 21, 10)
    repo, _ = make_repo(tmp_path)
    writer = LedgerWriter(repo)
    a_day_of_runs(writer)
    writer.publish("clicks", "primary", t - timedelta(hours=1), "external", "late9", "clicks2109-late")
    writer.publish("clicks", "backup", t, "replication:primary", "rep10", "clicks2110")
    return trace_feed(writer.ledgers(), "clicks-hourly-summary", "primary", t, 2, 1)
