"""`Ledger.events_of` (toolkit/core/ledger/store.py): the events of many instances of a feed in one pass, each
instance's list exactly what `events` reads for it, with one listing of the feed's event folders and each batch of
evictions that spans the instances read once (what `toolkit instances --listing` reads over a year of instances)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import SetClock, local_cluster
from tests.unit.ledger.test_journal import CountingFileSystem
from toolkit.core.ledger.records import CorruptRecordError, PublicationFacts
from toolkit.core.ledger.store import Ledger

T = datetime(2026, 11, 21, 0, tzinfo=timezone.utc)


def hour(k: int) -> datetime:
    return T + timedelta(hours=k)


def published(ledger: Ledger, k: int, run_id: str, feed: str = "clicks") -> None:
    ledger.record_publication(PublicationFacts(feed, "primary", hour(k), producer="process:p", run_id=run_id,
                                               location=f"file:///d/{k}", fingerprint=None))


@pytest.fixture
def counted(tmp_path: Path) -> tuple[Ledger, CountingFileSystem]:
    """A day of clicks: 00-05 published (02 twice), 00-03 and 20 evicted by one run, 10-11 by another and 22-23 by a
    third, 20 published again after its eviction; another feed's event at 04."""
    fs = CountingFileSystem()
    clock = SetClock()
    ledger = Ledger.of(fs, local_cluster(tmp_path / "conf", tmp_path / "root"), event_clock=clock)
    for k in range(6):
        published(ledger, k, f"run-{k}")
        clock.advance(1)
    published(ledger, 2, "run-2-again")
    published(ledger, 20, "run-20")
    published(ledger, 4, "other", feed="views")
    clock.advance(60)
    ledger.record_evictions("clicks", "primary", [(hour(k), f"file:///d/{k}") for k in (0, 1, 2, 3, 20)],
                            producer="retention", run_id="ret-1")
    ledger.record_evictions("clicks", "primary", [(hour(k), f"file:///a/{k}") for k in (10, 11)],
                            producer="retention", run_id="ret-2")
    ledger.record_evictions("clicks", "primary", [(hour(k), f"file:///d/{k}") for k in (22, 23)],
                            producer="retention", run_id="ret-3")
    clock.advance(60)
    published(ledger, 20, "run-20-again")
    return ledger, fs


def test_each_instance_has_what_events_reads_for_it(counted: tuple[Ledger, CountingFileSystem]) -> None:
    ledger, _ = counted
    times = [hour(k) for k in range(24)]
    found = ledger.events_of("clicks", times)
    assert found == {t: ledger.events("clicks", t) for t in times if ledger.events("clicks", t)}
    assert sorted(found) == [hour(k) for k in (0, 1, 2, 3, 4, 5, 10, 11, 20, 22, 23)]
    assert [(e.kind, e.run_id) for e in found[hour(2)]] == [
        ("published", "run-2"), ("replaced", "run-2-again"), ("evicted", "ret-1")]
    assert [(e.kind, e.run_id) for e in found[hour(20)]] == [
        ("published", "run-20"), ("evicted", "ret-1"), ("published", "run-20-again")]
    assert [(e.kind, e.run_id, e.location) for e in found[hour(4)]] == [("published", "run-4", "file:///d/4")]


def test_only_the_asked_instances_and_only_the_batches_that_span_them_are_read(
        counted: tuple[Ledger, CountingFileSystem]) -> None:
    ledger, fs = counted
    fresh = Ledger(fs, ledger.layout)
    fs.reads, fs.listed = 0, []
    found = fresh.events_of("clicks", [hour(k) for k in range(4, 12)])
    assert sorted(found) == [hour(k) for k in (4, 5, 10, 11)]
    # the events of 04 and 05, and two batches: 10-11's, and 00-20's, whose name spans the window (none of its
    # instances is asked); not 22-23's
    assert fs.reads == 2 + 2
    instance_folders = [path for path in fs.listed if "/events/clicks/" in path]
    assert sorted(path.rsplit("/", 1)[-1] for path in instance_folders) == ["20261121T0400Z", "20261121T0500Z"]


def test_no_instance_asked_reads_nothing(counted: tuple[Ledger, CountingFileSystem]) -> None:
    ledger, fs = counted
    fs.reads, fs.listed = 0, []
    assert ledger.events_of("clicks", []) == {} and (fs.reads, fs.listed) == (0, [])


def test_a_damaged_event_is_refused_naming_its_file(counted: tuple[Ledger, CountingFileSystem]) -> None:
    ledger, _ = counted
    [record] = Path(ledger.layout.event_folder("clicks", hour(5)).removeprefix("file://")).glob("*.json")
    record.write_text("{")
    with pytest.raises(CorruptRecordError, match=str(record)):
        ledger.events_of("clicks", [hour(4), hour(5)])
