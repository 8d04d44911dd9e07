"""Batches of evictions (toolkit/core/ledger/evictions.py): one file per retention run and feed, read as one `evicted`
event per instance; a reader reads only the batches whose names span the instance; names that are not batches
are ignored; a damaged batch is refused naming its path; a killed run's batch is found by its run id."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import SetClock, local_cluster
from tests.unit.ledger.test_journal import CountingFileSystem
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.evictions import EvictionBatch
from toolkit.core.ledger.records import CorruptRecordError, DatasetEvent, PublicationFacts, event_id, event_id_ms
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem

T = datetime(2026, 11, 21, 10, tzinfo=timezone.utc)


def folder_of(ledger: Ledger) -> Path:
    return Path(ledger.layout.evictions_folder("clicks").removeprefix("file://"))


@pytest.fixture
def counted(tmp_path: Path) -> tuple[Ledger, CountingFileSystem]:
    fs = CountingFileSystem()
    return Ledger.of(fs, local_cluster(tmp_path / "conf", tmp_path / "root")), fs


def test_each_instance_reads_as_the_event_its_id_names(counted: tuple[Ledger, CountingFileSystem]) -> None:
    ledger, _ = counted
    batch = ledger.record_evictions("clicks", "primary", [(T, "file:///d/10"), (T + timedelta(hours=1), "file:///d/11")],
                                    producer="retention", run_id="ret-7")
    assert batch is not None
    [first] = ledger.events("clicks", T)
    assert first.event_id == event_id(event_id_ms(batch.batch_id), "ret-7", "clicks", "2026-11-21T10:00Z", "evicted")
    assert (first.kind, first.producer, first.run_id, first.location, first.published) == (
        "evicted", "retention", "ret-7", "file:///d/10", batch.published)


def test_a_reader_reads_only_the_batches_that_span_the_instance(counted: tuple[Ledger, CountingFileSystem]) -> None:
    ledger, fs = counted
    for day in range(3):  # three runs, each evicting one day
        start = T + timedelta(days=day)
        ledger.record_evictions("clicks", "primary", [(start + timedelta(hours=h), f"x/{day}/{h}") for h in range(24)],
                                producer="retention", run_id=f"ret{day}")
    fresh = Ledger(fs, ledger.layout)
    fs.reads = 0
    assert [e.location for e in fresh.events("clicks", T + timedelta(days=1, hours=5))] == ["x/1/5"]
    assert fs.reads == 1
    assert fresh.events("clicks", T + timedelta(days=9)) == [] and fs.reads == 1  # spanned by none: no read
    assert fresh.events("clicks", T + timedelta(days=1, hours=6))[0].location == "x/1/6" and fs.reads == 1  # kept


def test_names_that_are_not_batches_are_ignored(counted: tuple[Ledger, CountingFileSystem]) -> None:
    ledger, _ = counted
    batch = ledger.record_evictions("clicks", "primary", [(T, "x")], producer="retention", run_id="ret")
    assert batch is not None
    folder = folder_of(ledger)
    for name in (".tmp-123", "notes.json", "a~b~c.json", f"{batch.batch_id}~20261121T1000Z.json",
                 f"{batch.batch_id}~x~y.json"):
        (folder / name).write_text("not a batch")
    (folder / "sub~20261121T1000Z~20261121T1000Z.json").mkdir()
    assert [e.event_id for e in ledger.events("clicks", T)] == [e.event_id for e in batch.events()]
    assert ledger.feed_event_times("clicks") == [T]


def test_a_damaged_batch_is_refused_naming_its_path(tmp_path: Path) -> None:
    ledger = Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "root"))
    batch = ledger.record_evictions("clicks", "primary", [(T, "x")], producer="retention", run_id="ret")
    assert batch is not None
    path = folder_of(ledger) / batch.file_name
    path.write_text('{"batch_id": "20261121T100000000Z-ret-00000000", "feed": "clicks"')
    with pytest.raises(CorruptRecordError, match=f"^The ledger record file://{path} is damaged"):
        Ledger(LocalFileSystem(), ledger.layout).events("clicks", T)
    other = EvictionBatch.of("clicks", "primary", [(T, "y")], producer="retention", run_id="other",
                             published_ms=1_795_000_000_000)
    written = Path(ledger.evictions.write(other).removeprefix("file://"))
    written.rename(path)  # another batch's content under this batch's name
    with pytest.raises(CorruptRecordError, match="its name and its content do not describe the same batch"):
        Ledger(LocalFileSystem(), ledger.layout).events("clicks", T)


def test_a_killed_runs_batch_is_found_by_its_exact_run_id(tmp_path: Path) -> None:
    ledger = Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "root"))
    ledger.record_evictions("clicks", "primary", [(T, "x")], producer="retention", run_id="ret-2")
    assert ledger.evictions.of_run("clicks", "ret") is None and ledger.evictions.of_run("clicks", "2") is None
    found = ledger.evictions.of_run("clicks", "ret-2")
    assert found is not None and found.run_id == "ret-2"
    assert ledger.evictions.of_run("views", "ret-2") is None


def test_a_batch_recorded_in_the_millisecond_of_its_instances_last_event_sorts_after_it(tmp_path: Path) -> None:
    """Two publications of an instance in one millisecond: the second is moved 1 ms past the clock. An eviction of
    that instance recorded next, still in that millisecond, is its last event: in its events and in the journal."""
    clock = SetClock()
    ledger = Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "root"), event_clock=clock)

    def publish(run_id: str, digest: str) -> DatasetEvent:
        event = ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="external", run_id=run_id,
                                                           location="file:///d/10",
                                                           fingerprint=Fingerprint(digest, 1, 1)))
        assert event is not None
        return event

    published, replaced = publish("z1", "d1"), publish("z2", "d2")
    now_ms = int(clock.now * 1000)
    assert (event_id_ms(published.event_id), event_id_ms(replaced.event_id)) == (now_ms, now_ms + 1)
    batch = ledger.record_evictions("clicks", "primary", [(T, "file:///d/10")], producer="retention", run_id="a3")
    assert batch is not None
    assert [e.kind for e in ledger.events("clicks", T)] == ["published", "replaced", "evicted"]
    assert [e.kind for e in ledger.journal.entries_since(None, timedelta(0))] == ["published", "replaced", "evicted"]
    assert publish("z4", "d1").kind == "published"  # the instance was gone, so it comes back published
    assert event_id_ms(batch.batch_id) == now_ms + 2  # after the newest, no further ahead than the +1 ms rule


def test_a_batch_takes_the_clock_when_it_is_past_the_newest_event_of_its_feed(tmp_path: Path) -> None:
    """Only the feed's own newest id can move a batch: another feed's, or an older one, leaves it on the clock."""
    clock = SetClock()
    ledger = Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "root"), event_clock=clock)
    for run_id in ("p1", "p2"):  # the second is moved 1 ms past the clock
        ledger.record_publication(PublicationFacts("views", "primary", T, producer="external", run_id=run_id,
                                                   location="file:///v", fingerprint=Fingerprint(run_id, 1, 1)))
    now_ms = int(clock.now * 1000)
    other = ledger.record_evictions("clicks", "primary", [(T, "file:///d/10")], producer="retention", run_id="r1")
    clock.advance(1)
    later = ledger.record_evictions("views", "primary", [(T, "file:///v")], producer="retention", run_id="r2")
    assert other is not None and later is not None
    assert (event_id_ms(other.batch_id), event_id_ms(later.batch_id)) == (now_ms, now_ms + 1000)


def test_a_plan_of_evictions_as_the_toolkit_wrote_it_before_reads_the_same(tmp_path: Path) -> None:
    ledger = Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "root"))
    plan = Path(ledger.layout.pending_evictions("clicks").removeprefix("file://"))
    plan.parent.mkdir(parents=True)
    plan.write_text('{"feed": "clicks", "run_id": "killed-run", "instances": [{"time": "2025-12-31T20:00Z", '
                    '"location": "file:///d/2025/12/31/20"}, {"time": "2025-12-31T21:00Z", '
                    '"location": "file:///archive/2025/12/31/21"}], "format_version": 1}')
    assert ledger.pending_evictions("clicks") == ("killed-run", [
        (datetime(2025, 12, 31, 20, tzinfo=timezone.utc), "file:///d/2025/12/31/20"),
        (datetime(2025, 12, 31, 21, tzinfo=timezone.utc), "file:///archive/2025/12/31/21")])
    ledger.plan_evictions("clicks", "r2", [(datetime(2026, 1, 1, tzinfo=timezone.utc), "file:///d/2026/01/01/00")])
    assert plan.read_text().count("\n") == 0  # one line, however many instances
    assert ledger.pending_evictions("clicks") == ("r2", [(datetime(2026, 1, 1, tzinfo=timezone.utc),
                                                          "file:///d/2026/01/01/00")])


@pytest.mark.parametrize(("instances", "problem"), [
    ('[{"time": "2025-12-31T20:00Z"}]', "item 0 of the field 'instances': the field 'location' is missing"),
    ('[{"time": "20:00", "location": "x"}]', "item 0 of the field 'instances': the field 'time' is '20:00', not an "
                                             "instance time"),
    ('{"time": "2025-12-31T20:00Z"}', "the field 'instances' is"),
])
def test_a_damaged_plan_of_evictions_is_refused_naming_item_and_field(tmp_path: Path, instances: str,
                                                                      problem: str) -> None:
    ledger = Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "root"))
    plan = Path(ledger.layout.pending_evictions("clicks").removeprefix("file://"))
    plan.parent.mkdir(parents=True)
    plan.write_text(f'{{"feed": "clicks", "run_id": "killed-run", "instances": {instances}}}')
    with pytest.raises(CorruptRecordError, match=problem):
        ledger.pending_evictions("clicks")
