"""A streamed feed's data-quality gates, checked when ingest closes an instance: the same suites the process
runner and replication check before they publish, so that a feed's suite holds wherever its instances land.

Why at the closing, and not at each micro-batch: a suite states facts about a whole instance (its row count,
its unique keys, the share of nulls), and a batch holds a few minutes of it; an hour of 60 batches is only whole
once the watermark has passed its end. And the closing is where ingest publishes: records are renamed into the
instance's folder batch by batch (a table feed's partition is in the metastore from its first batch), but nothing
announces the instance until it is closed: no dataset event (so no data-triggered consumer, batch consumer or
compaction takes it) and, for a file feed with an `availabilityFlag`, no flag (so no process waiting for it and
no replication takes it either). A table feed's partition, and the folder of a file feed without a flag, are
available to readers that look for data rather than events from their first batch: such feeds should be
triggered by data (`trigger: data`) when a gate must hold them back. So the gate reads the instance back whole (every
batch file, with the feed's `format`: `Targets.instance`) right before its flag and event are written, in the
run's SparkSession (Great Expectations is imported only for a feed that declares a suite).

- Every gate passes: closed as before; the results are kept in its closing record (closing_record.py) and said
  in the status line.
- A `warn` gate fails: closed and published all the same; recorded, and the feed's `notification` is told
  (`quality-warning`).
- A `block` gate fails: the instance stays open in the ingest book, without flag or event; its closing record
  says `blocked` with the content it refused; the feed's `notification` is told (`failed`) and the call ends
  FAILED (exit 1) once it has ingested what it found. A later call does not check the same content under the
  same suites again: it says the instance is held (`instances_held` in the status line) and goes on. The
  instance is checked again, and closed once it passes, when its content changes (an operator rewrote or removed
  its bad files, or `late-records: write` added records) or its gates do (the suite file, or `on-failure`). An
  operator who accepts the data as it is publishes it by hand (`toolkit publish`, after writing the flag): the
  next ingest call finds an event that records this very content and closes it without checking (`accepted`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from toolkit.actions.ingest.closing_record import ACCEPTED, BLOCKED, CLOSED, ClosingBook, ClosingRecord, same_content
from toolkit.core.el.timestamps import format_timestamp
from toolkit.core.entities.file_hashing import file_sha256
from toolkit.core.entities.model import Feed, quality_gates
from toolkit.core.entities.quality_suites import suite_file
from toolkit.core.instances.availability import probe_instance
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import EVICTED, Written, gate_results, wall_clock_stamp
from toolkit.services.notifications.message import QUALITY_WARNING, Notice
from toolkit.services.quality.gate import QualityGate, warnings_of
from toolkit.services.runtime.feed_notices import FeedFailure, notify_feed_failure
from toolkit.statuses import Status

if TYPE_CHECKING:
    from toolkit.actions.ingest.call import IngestCall

HELD = "held"  # a verdict: blocked by an earlier call, content and gates unchanged, not checked again


def gates_digest(root: Path | str, feed: Feed) -> str:
    """What a refusal was made under: each gate's suite path, its on-failure and the suite file's bytes."""
    digest = hashlib.sha256()
    for gate in quality_gates(feed):
        path = suite_file(root, gate.suite)
        content = file_sha256(path) if path.is_file() else hashlib.sha256(b"").hexdigest()
        digest.update(f"{gate.suite}\t{gate.on_failure.value}\t{content}\n".encode())
    return digest.hexdigest()


class QualityClosing:
    """The `InstanceGate` (closing.py) of a feed with gates, for one ingest call. `verdicts` holds each instance's
    last verdict of the call (closed, accepted, blocked or held) and `results` every gate result it produced."""

    def __init__(self, call: IngestCall, log: Callable[[str], None] = print) -> None:
        self.spark, self.fs, self.repo, self.feed, self.where = call.spark, call.fs, call.repo, call.feed, call.where
        self.targets, self.ledger, self.catalog, self.run_id = call.targets, call.ledger, call.catalog, call.run_id
        self.lease_check, self.notifier, self.log, self.clock = call.lease.check, call.notifier, log, call.clock
        repo, feed = call.repo, call.feed
        self.gates = quality_gates(feed)
        self.checker = QualityGate(repo.root, log)
        for gate in self.gates:
            self.checker.suite(gate.suite)  # a missing or bad suite is exit 2 before anything is ingested
        self.digest = gates_digest(repo.root, feed)
        self.book = ClosingBook(call.fs, call.ledger.layout, feed.name)
        self.verdicts: dict[str, str] = {}
        self.results: list[GateResult] = []
        self._passed: dict[datetime, ClosingRecord] = {}

    def allows(self, t: datetime) -> bool:
        location = self.where.event_location(t)
        state = probe_instance(self.fs, self.where, None, self.catalog, t)  # the content, flag or not
        content = state.fingerprint
        prior = self.book.read(t)
        if prior is not None and prior.holds(content, self.digest):
            if self._published_by_hand(t, content):
                self._passed[t] = self._record(t, ACCEPTED, location, content, prior.quality)
                return True
            if self.verdicts.get(format_timestamp(t)) not in (BLOCKED, HELD):
                self.log(f"quality: feed '{self.feed.name}' {format_timestamp(t)} is held back: run {prior.run_id} "
                         "found it failing a blocking suite and neither its data nor its suites changed since; "
                         "not checked again.")
            self.verdicts.setdefault(format_timestamp(t), HELD)
            return False
        results = self._check(t, location)
        self.lease_check()  # validation can be long: a run that lost its lease meanwhile publishes nothing
        self.results += results
        blocked = any(result.blocks for result in results)
        record = self._record(t, BLOCKED if blocked else CLOSED, location, content, Written.of(GateResult, results))
        if blocked:
            self.book.write(record, t)
            self.verdicts[format_timestamp(t)] = BLOCKED
            self._tell_blocked(t, results)
            return False
        self._passed[t] = record  # written once the instance is published (`closed`)
        return True

    def _check(self, t: datetime, location: str) -> list[GateResult]:
        """The gates' results for the instance as its files are now (the gate caches no frame: a fixed instance is
        read again as it is)."""
        return self.checker.check(self.feed, t, self.gates, location,
                                  partial(self.targets.instance, self.spark, self.fs, t))

    def closed(self, t: datetime) -> None:
        record = self._passed.pop(t)
        self.book.write(record, t)
        self.verdicts[format_timestamp(t)] = record.state
        if record.state != CLOSED or self.notifier is None:
            return
        for result in warnings_of(gate_results(record.quality, f"feed '{self.feed.name}' closed at {record.time}")):
            self.notifier.notify(self.feed.notification, Notice(
                QUALITY_WARNING, "feed", self.feed.name, self.where.cluster, t, "ingest", Status.SUCCEEDED,
                run_id=self.run_id, error=result.describe_failures() + " (its on-failure is warn: published all the "
                "same)"))

    def of_state(self, verdict: str) -> list[str]:
        """The instances (yyyy-MM-ddTHH:mmZ) whose last verdict of the call is `verdict`, oldest first."""
        return sorted(instance for instance, found in self.verdicts.items() if found == verdict)

    def _published_by_hand(self, t: datetime, content: Fingerprint | None) -> bool:
        """Whether the newest dataset event records `content` (an operator published what the gate refused)."""
        events = self.ledger.events(self.feed.name, t)
        return bool(events) and events[-1].kind != EVICTED and same_content(events[-1].fingerprint, content)

    def _record(self, t: datetime, state: str, location: str, content: Fingerprint | None,
                quality: Written[GateResult]) -> ClosingRecord:
        return ClosingRecord(self.feed.name, self.where.cluster, format_timestamp(t), self.run_id, state,
                             wall_clock_stamp(self.clock.time()), location, content, self.digest, quality)

    def _tell_blocked(self, t: datetime, results: list[GateResult]) -> None:
        failed = "; ".join(result.describe_failures() for result in results if result.blocks)
        if self.notifier is not None:
            notify_feed_failure(self.notifier, FeedFailure(
                self.repo, self.feed, "ingest", t, self.run_id,
                f"Not published: {failed} (its on-failure is block); fix its data or its suite, then call ingest "
                "again."))
