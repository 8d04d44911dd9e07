"""A ledger of the template repo's primary cluster with one instance in each state the status page shows, written
with the ledger's own API (records, attempts, holds, switches, publications): what the report's unit tests and its
browser test read."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from tests.unit.graph.ledger_history import SUMMARY, at, record, write_history
from toolkit.core.entities.model import OnFailure
from toolkit.core.entities.provenance import Provenance
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.holds import Hold
from toolkit.core.ledger.quality_results import ExpectationOutcome, GateResult
from toolkit.core.ledger.records import AttemptRecord, PublicationFacts, Written
from toolkit.core.ledger.store import Ledger
from toolkit.statuses import Status

NOW = "2026-11-21T13:30Z"
COMMIT = "0123456789abcdef0123456789abcdef01234567"
ERROR = "quality gate quality/clicks_summary.json blocked the publication"
GATE = GateResult("clicks-hourly-summary", "2026-11-21T12:00Z", "quality/clicks_summary.json", "clicks_summary",
                  OnFailure.BLOCK, "/staged/12", (
                      ExpectationOutcome("expect_column_values_to_not_be_null", False, ("page",), None, 3, 10),
                      ExpectationOutcome("expect_table_row_count_to_be_between", True, (), 10)))
# The states of the summary's instances of the 21st (hours 0 to 13) and of the clicks' events.
SUMMARY_STATES = {**{hour: "succeeded" for hour in range(8)}, 8: "succeeded", 9: "timed-out", 10: "suspended",
                  11: "late-rerun", 12: "quality-blocked", 13: "waiting"}
CLICKS_STATES = {7: "replicated", 8: "evicted", 9: "published", 10: "published", 11: "published"}


def attempt(hour: int, number: int, kind: str, status: str, **fields: object) -> AttemptRecord:
    stamp = f"2026-11-21T{hour:02d}"
    return AttemptRecord(process=SUMMARY, cluster="primary", time=f"{stamp}:00Z", attempt=number,
                         run_id=f"run-{hour}-{number}", kind=kind, status=Status(status),
                         started=f"{stamp}:0{number}:00Z", ended=f"{stamp}:0{number}:30Z",
                         **fields)  # type: ignore[arg-type]


def write_states(conf: Path) -> Ledger:
    """write_history's ledger (the summary succeeded 00:00 to 11:00, failed at 12:00), then: 08:00 recorded with its
    commit, 09:00 timed out, 10:00 held, 11:00 rerun for late data, 12:00 blocked by its quality gate; clicks 07:00
    replicated from backup; the feed page-views suspended."""
    ledger = write_history(conf)
    ledger.write_instance(replace(record(SUMMARY, 8, "SUCCEEDED"),
                                  definition=Provenance("v1:" + "0" * 64, COMMIT)))
    ledger.write_instance(replace(record(SUMMARY, 9, "TIMEDOUT"), error="inputs did not come in time"))
    ledger.set_hold(SUMMARY, at(10), Hold.placed("2026-11-21T10:05:00Z", "ops@host", "bad upstream data"))
    ledger.write_instance(replace(record(SUMMARY, 11, "SUCCEEDED"), attempts=2))
    ledger.write_attempt(attempt(11, 1, "RUN", "SUCCEEDED"))
    ledger.write_attempt(attempt(11, 2, "LATE_RERUN", "SUCCEEDED"))
    ledger.write_instance(replace(record(SUMMARY, 12, "FAILED"), error=ERROR))
    ledger.write_attempt(attempt(12, 1, "RUN", "FAILED", error=ERROR, quality=Written.of(GateResult, [GATE])))
    ledger.record_publication(PublicationFacts("clicks", "primary", at(7), producer="replication:backup",
                                               run_id="replicate-7", location="/data/clicks/07",
                                               fingerprint=Fingerprint("d", 1, 1)))
    ledger.control.set_suspended("feed", "page-views", True, "2026-11-21T09:00:00Z", "ops@host", "source is down")
    return ledger
