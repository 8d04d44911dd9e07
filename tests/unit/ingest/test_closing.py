"""Closing streamed instances (toolkit/actions/ingest/closing.py): when the watermark passes the instance's time plus
its delay (ingest.delay, else the late-arrival cut-off, else the frequency), its flag is written and a dataset event
recorded (producer ingest), once; a record written into it later opens it again and the next close records
`replaced`."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from tests.clocks import StoppedClock
from tests.unit.ingest.ingest_repo import DELIMITED, make_repo
from toolkit.actions.ingest.call import IngestCall
from toolkit.actions.ingest.closing import close_due, closes_at
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.feed_locations import feed_locations
from toolkit.core.ledger.ingest_book import IngestBook
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.catalog import Catalog
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.openlineage.run import Lineage

FS = LocalFileSystem()
TEN = datetime(2026, 1, 1, 10, tzinfo=timezone.utc)


def no_catalog() -> Catalog:
    raise AssertionError("a file feed needs no catalog")


def ingest_call(repo: ConfigRepo, ledger: Ledger, book: IngestBook) -> IngestCall:
    """Run r1's ingest call of feed events on cluster primary as closing reads it; what closing does not read
    (Spark, the targets, the lease...) left out."""
    feed, cluster = repo.feed("events"), repo.cluster("primary")
    return IngestCall(spark=None, fs=FS, repo=repo, feed=feed, cluster=cluster, where=feed_locations(feed, cluster),
                      targets=None, catalog=no_catalog, landing="", settings=None, ledger=ledger, book=book,
                      lease=None, run_id="r1", clock=StoppedClock(0.0), lineage=Lineage.off(), notifier=None,
                      definition=None)


def test_an_instance_closes_once_the_watermark_passes_its_end(tmp_path: Path) -> None:
    repo, root = make_repo(tmp_path)
    ledger = Ledger.of(FS, repo.cluster("primary"))
    book = IngestBook(FS, ledger.layout, "events", "primary")
    (root / "data/events/2026/01/01/10").mkdir(parents=True)
    (root / "data/events/2026/01/01/10/part-e1-0000000000.parquet").write_bytes(b"x" * 10)
    book.write_instances(replace(book.instances(), watermark="2026-01-01T10:59:59Z", open={"2026-01-01T10:00Z": 3}))
    call = ingest_call(repo, ledger, book)
    assert close_due(call) == []
    assert not (root / "data/events/2026/01/01/10/_SUCCESS").exists() and ledger.events("events", TEN) == []
    book.write_instances(book.instances().advanced("2026-01-01T11:00:00Z"))
    assert close_due(call) == [TEN]
    assert (root / "data/events/2026/01/01/10/_SUCCESS").is_file()
    [event] = ledger.events("events", TEN)
    assert (event.kind, event.producer, event.run_id, event.fingerprint and event.fingerprint.files) == (
        "published", "ingest", "r1", 1)  # its data file (the flag is not data)
    assert book.instances().open == {}
    assert close_due(replace(call, run_id="r2")) == []  # nothing open: nothing again
    # a late record written into the closed hour opens it again: the next close records the new content
    (root / "data/events/2026/01/01/10/part-e1-0000000009.parquet").write_bytes(b"late")
    book.write_instances(replace(book.instances(), open={"2026-01-01T10:00Z": 1}))
    assert close_due(replace(call, run_id="r3")) == [TEN]
    assert [e.kind for e in ledger.events("events", TEN)] == ["published", "replaced"]


def test_the_delay_is_ingest_delay_else_the_late_cut_off_else_the_frequency(tmp_path: Path) -> None:
    plain, _ = make_repo(tmp_path / "a")
    assert closes_at(plain.feed("events"), TEN) == datetime(2026, 1, 1, 11, tzinfo=timezone.utc)
    late, _ = make_repo(tmp_path / "b", extra="late-arrival: {cut-off: hours(6)}\n")
    assert closes_at(late.feed("events"), TEN) == datetime(2026, 1, 1, 16, tzinfo=timezone.utc)
    delayed, _ = make_repo(tmp_path / "c", DELIMITED + "\n  delay: minutes(15)", "late-arrival: {cut-off: hours(6)}\n")
    assert closes_at(delayed.feed("events"), TEN) == datetime(2026, 1, 1, 10, 15, tzinfo=timezone.utc)
