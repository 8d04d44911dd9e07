"""What ingest remembers of a closing under quality gates, without Spark (toolkit/actions/ingest/closing_record.py,
toolkit/actions/ingest/closing_gate.py): the record reads back as written; a refusal holds only the same content under
the same gates (a changed suite file, on-failure or content is checked again); compaction waits for a held-back
instance and names its closing record."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pytest

from tests.unit.ingest.ingest_repo import make_repo
from toolkit.actions.ingest.closing_gate import gates_digest
from toolkit.actions.ingest.closing_record import BLOCKED, CLOSED, ClosingBook, ClosingRecord
from toolkit.actions.ingest.compaction import compact_instance, compaction_call
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.ingest_book import IngestBook
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.quality_results import GateResult
from toolkit.core.ledger.records import CorruptRecordError, PublicationFacts, Written
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import WaitingError
from toolkit.services.runtime.run_context import RunContext

FS = LocalFileSystem()
TEN = datetime(2026, 1, 1, 10, tzinfo=timezone.utc)
CONTENT = Fingerprint("ab12", 2, 900)
SUITE = ('{"name": "events", "expectations": [{"type": "expect_column_values_to_not_be_null", '
         '"kwargs": {"column": "user"}}]}')


def gated(tmp_path: Path, on_failure: str = "block") -> ConfigRepo:
    repo, _ = make_repo(tmp_path, extra=f"quality: {{suite: quality/events.json, on-failure: {on_failure}}}\n")
    (repo.root / "quality").mkdir(exist_ok=True)
    (repo.root / "quality" / "events.json").write_text(SUITE)
    return ConfigRepo.load(repo.root)


def refusal(digest: str) -> ClosingRecord:
    return ClosingRecord("events", "primary", "2026-01-01T10:00Z", "r1", BLOCKED, "2026-01-01T11:00:05Z",
                         "file:///root/data/events/2026/01/01/10", CONTENT, digest,
                         Written(GateResult, [{"suite": "quality/events.json", "success": False}]))


def test_a_closing_record_reads_back_as_written_and_a_damaged_one_is_named(tmp_path: Path) -> None:
    repo = gated(tmp_path)
    book = ClosingBook(FS, LedgerLayout.of(repo.cluster("primary")), "events")
    assert book.read(TEN) is None
    book.write(refusal("d1"), TEN)
    assert book.read(TEN) == refusal("d1")
    assert book.path(TEN).endswith("/ledger/ingest/events/closings/20260101T1000Z.json")
    FS.write_atomically(book.path(TEN), b'{"feed": "events", "state": "maybe"}')
    with pytest.raises(CorruptRecordError, match="closings/20260101T1000Z.json is damaged"):
        book.read(TEN)


def test_a_refusal_holds_the_same_content_under_the_same_gates_only(tmp_path: Path) -> None:
    blocked = refusal("d1")
    assert blocked.holds(Fingerprint("ab12", 2, 900), "d1")
    assert not blocked.holds(replace(CONTENT, digest="cd34"), "d1")  # its files changed: check again
    assert not blocked.holds(CONTENT, "d2")  # its suites changed: check again
    assert not replace(blocked, state=CLOSED).holds(CONTENT, "d1")  # a closed one is checked when it reopens


def test_the_gates_digest_follows_the_suite_file_and_on_failure(tmp_path: Path) -> None:
    repo = gated(tmp_path / "a")
    first = gates_digest(repo.root, repo.feed("events"))
    assert gates_digest(repo.root, repo.feed("events")) == first
    (repo.root / "quality" / "events.json").write_text(SUITE.replace('"user"', '"page"'))
    assert gates_digest(repo.root, repo.feed("events")) != first
    warned = gated(tmp_path / "b", "warn")
    assert gates_digest(warned.root, warned.feed("events")) != first
    assert gates_digest(repo.root, make_repo(tmp_path / "c")[0].feed("events")) == gates_digest(
        warned.root, make_repo(tmp_path / "d")[0].feed("events"))  # no gates: the digest of nothing


def test_compaction_waits_for_an_instance_its_gate_held_back_or_late_records_reopened(tmp_path: Path) -> None:
    repo, root = gated(tmp_path), tmp_path / "root"
    layout = LedgerLayout.of(repo.cluster("primary"))
    book = IngestBook(FS, layout, "events", "primary")
    book.write_instances(replace(book.instances(), watermark="2026-01-01T12:00:00Z", open={"2026-01-01T10:00Z": 2}))
    ClosingBook(FS, layout, "events").write(refusal("d1"), TEN)
    with pytest.raises(WaitingError, match=r"^The instance 2026-01-01T10:00Z of feed 'events' on cluster 'primary' "
                                           r"failed a blocking quality suite when ingest run r1 closed it \(its "
                                           r"closing record .*/closings/20260101T1000Z.json\)"):
        compact_instance(None, compaction_call(repo, "events", "primary", TEN),
                         RunContext(FS, run_id="c1"))  # type: ignore[arg-type]
    # published once, then reopened by late records (its closing record says closed): the reopening is named
    ClosingBook(FS, layout, "events").write(replace(refusal("d1"), state=CLOSED), TEN)
    (root / "data/events/2026/01/01/10").mkdir(parents=True)
    (root / "data/events/2026/01/01/10/_SUCCESS").write_bytes(b"")
    Ledger.of(FS, repo.cluster("primary")).record_publication(PublicationFacts("events", "primary", TEN,
                                                                               producer="ingest", run_id="r1",
                                                                               location="x", fingerprint=CONTENT))
    with pytest.raises(WaitingError, match="was written to again after it closed"):
        compact_instance(None, compaction_call(repo, "events", "primary", TEN),
                         RunContext(FS, run_id="c2"))  # type: ignore[arg-type]
