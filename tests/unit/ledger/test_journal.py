"""The journal of dataset events (toolkit/core/ledger/journal.py): an entry from every path that records an event,
repaired after a producer killed between its event file and its entry, read by hour bucket and by name only,
and rebuilt once for a ledger older than it."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import local_cluster
from toolkit.core.el.timestamps import instance_key
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.journal import Journal, JournalEntry
from toolkit.core.ledger.records import DatasetEvent, PublicationFacts, event_id, to_json
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import FileStatus
from toolkit.core.storage.local import LocalFileSystem

UTC = timezone.utc
T = datetime(2026, 11, 21, 10, tzinfo=UTC)
PRINT = Fingerprint("d1", 1, 10)


class CountingFileSystem(LocalFileSystem):
    """The real local file system, counting the folders listed and the files read."""

    def __init__(self) -> None:
        self.listed: list[str] = []
        self.reads = 0

    def list(self, path: str) -> list[FileStatus]:
        self.listed.append(path)
        return super().list(path)

    def read(self, path: str) -> bytes:
        self.reads += 1
        return super().read(path)


@pytest.fixture
def ledger(tmp_path: Path) -> Ledger:
    return Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "root"))


def journal_names(ledger: Ledger) -> list[str]:
    root = Path(ledger.layout.journal_folder().removeprefix("file://"))
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


def late_names(ledger: Ledger) -> list[str]:
    folder = Path(ledger.layout.journal_late_folder().removeprefix("file://"))
    return sorted(path.name for path in folder.iterdir()) if folder.exists() else []


def bucket_of(identifier: str) -> str:
    return f"{identifier[:8]}/{identifier[9:11]}"


def test_every_record_path_writes_the_entry_named_after_its_event(ledger: Ledger) -> None:
    published = ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="external", run_id="r1",
                                                           location="file:///d/10", fingerprint=PRINT))
    replaced = ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="external", run_id="r2",
                                                          location="file:///d/10",
                                                          fingerprint=replace(PRINT, digest="d2")))
    batch = ledger.record_evictions("clicks", "primary", [(T, "file:///d/10")], producer="retention", run_id="r3")
    assert published is not None and replaced is not None and batch is not None
    [evicted] = batch.events()
    assert journal_names(ledger) == sorted(
        [*(f"{bucket_of(e.event_id)}/{e.event_id}~clicks~20261121T1000Z~{e.kind}" for e in (published, replaced)),
         f"{bucket_of(batch.batch_id)}/{batch.batch_id}~clicks~20261121T1000Z~evictions"])
    assert [e.kind for e in (published, replaced, evicted)] == ["published", "replaced", "evicted"]
    assert late_names(ledger) == []  # nothing was repaired
    # the name alone gives the entry back; the batch's entry is read as its eviction's
    [entry] = [JournalEntry.parse(name.rsplit("/", 1)[1]) for name in journal_names(ledger) if "published" in name]
    assert entry == JournalEntry(published.event_id, "clicks", T, "published")
    assert ledger.journal.entries_since(None, timedelta(0))[-1] == JournalEntry(evicted.event_id, "clicks", T,
                                                                                "evicted")


def test_a_batch_of_evictions_is_one_entry_read_as_the_entry_of_each_eviction(tmp_path: Path) -> None:
    fs = CountingFileSystem()
    ledger = Ledger.of(fs, local_cluster(tmp_path / "conf", tmp_path / "root"))
    times = [T + timedelta(hours=h) for h in range(1000)]
    batch = ledger.record_evictions("clicks", "primary", [(t, f"file:///d/{k}") for k, t in enumerate(times)],
                                    producer="retention", run_id="ret")
    assert batch is not None and len(journal_names(ledger)) == 1
    fresh = Ledger(fs, ledger.layout)  # a reader that has not parsed the batch yet
    fs.reads = 0
    entries = fresh.journal.entries_since(None, timedelta(0))
    assert [(e.event_id, e.time, e.kind) for e in entries] == sorted((e.event_id, e.nominal, "evicted")
                                                                     for e in batch.events())
    assert len({e.event_id for e in entries}) == 1000 and fs.reads == 1  # the batch, once
    # a batch entry whose batch was deleted by hand stands for nothing
    Path(ledger.layout.evictions_folder("clicks").removeprefix("file://"), batch.file_name).unlink()
    assert Ledger(LocalFileSystem(), ledger.layout).journal.entries_since(None, timedelta(0)) == []


def test_a_repair_writes_the_missing_entry_and_its_late_copy(ledger: Ledger) -> None:
    """`unless_recorded` finding the event recorded (a producer killed after its event file) writes the entry."""
    def record(run_id: str, unless: bool) -> DatasetEvent | None:
        return ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="external", run_id=run_id,
                                                          location="file:///d/10",
                                                          fingerprint=PRINT), unless_recorded=unless)

    event = record("r1", False)
    assert event is not None
    [name] = journal_names(ledger)
    Path(ledger.journal.path(JournalEntry.of(event)).removeprefix("file://")).unlink()
    assert record("r2", True) is None  # recorded already: no new event
    assert journal_names(ledger) == [name]
    assert late_names(ledger) == [name.rsplit("/", 1)[1]]
    assert record("r3", True) is None and late_names(ledger) == [name.rsplit("/", 1)[1]]


def test_a_batch_without_its_entry_gets_it_late_from_the_next_publication_of_one_of_its_instances(
        ledger: Ledger) -> None:
    batch = ledger.record_evictions("clicks", "primary", [(T, "file:///d/10")], producer="retention", run_id="r1")
    assert batch is not None
    [name] = journal_names(ledger)
    Path(ledger.journal.path(JournalEntry.of_batch(batch)).removeprefix("file://")).unlink()
    back = ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="external", run_id="r2",
                                                      location="file:///d/10", fingerprint=PRINT))
    assert back is not None and back.kind == "published"
    assert name in journal_names(ledger) and late_names(ledger) == [name.rsplit("/", 1)[1]]
    assert [e.kind for e in ledger.journal.late_entries()] == ["evicted"]  # expanded, as in the journal


def _record_and_die(root: str) -> None:
    """A producer killed with SIGKILL right after its event file, before its journal entry."""
    ledger = Ledger.of(LocalFileSystem(), local_cluster(Path(root) / "conf", Path(root) / "root"))

    def die(_: Journal, __: DatasetEvent) -> None:
        os.kill(os.getpid(), signal.SIGKILL)

    Journal.write = die  # type: ignore[method-assign]
    ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="external", run_id="killed",
                                               location="file:///d", fingerprint=PRINT))


def test_a_producer_killed_before_its_entry_is_repaired_by_its_next_run(tmp_path: Path) -> None:
    child = multiprocessing.get_context("fork").Process(target=_record_and_die, args=(str(tmp_path / "k"),))
    child.start()
    child.join(30)
    assert child.exitcode == -signal.SIGKILL
    ledger = Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", tmp_path / "k" / "root"))
    [event] = ledger.events("clicks", T)
    assert event.run_id == "killed" and journal_names(ledger) == []
    # its next run finds the content recorded: the event keeps its id, the journal gets it
    assert ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="external", run_id="next",
                                                      location="file:///d",
                                                      fingerprint=PRINT), unless_recorded=True) is None
    assert [e.event_id for e in ledger.journal.entries_since(None, timedelta(0))] == [event.event_id]
    assert [e.event_id for e in ledger.journal.late_entries()] == [event.event_id]


def test_another_producer_repairs_the_entry_of_the_event_before_its_own(ledger: Ledger) -> None:
    first = ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="external", run_id="r1",
                                                       location="file:///d/10", fingerprint=PRINT))
    assert first is not None
    Path(ledger.journal.path(JournalEntry.of(first)).removeprefix("file://")).unlink()
    second = ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="process:p", run_id="r2",
                                                        location="file:///d/10",
                                                        fingerprint=replace(PRINT, digest="d2")))
    assert second is not None
    assert [e.event_id for e in ledger.journal.entries_since(None, timedelta(0))] == [first.event_id, second.event_id]


def _plant(ledger: Ledger, ms: int, hour: int) -> DatasetEvent:
    time = f"2026-11-21T{hour:02d}:00Z"
    event = DatasetEvent(feed="clicks", cluster="primary", time=time, run_id="r", producer="external",
                         location="x", published="2026-11-22T10:00:00Z",
                         event_id=event_id(ms, "r", "clicks", time, "published"))
    ledger.journal.write(event)
    return event


def test_entries_since_lists_only_the_buckets_from_the_position_minus_the_lag(tmp_path: Path) -> None:
    fs = CountingFileSystem()
    ledger = Ledger.of(fs, local_cluster(tmp_path / "conf", tmp_path / "root"))
    base = int(datetime(2026, 11, 20, tzinfo=UTC).timestamp() * 1000)
    hour = 3_600_000
    events = [_plant(ledger, base + k * hour + 5, k % 24) for k in range(48)]  # one an hour over two days
    fs.listed.clear()
    position = events[40].event_id  # 2026-11-21T16:00:00.005
    found = ledger.journal.entries_since(position, timedelta(minutes=90))
    # from 14:30 on: the entries of 15:00 and later; buckets read: 14 (for its half hour) to 23 of the 21st
    assert [e.event_id for e in found] == [e.event_id for e in events[39:]]
    root = ledger.layout.journal_folder()
    assert sorted(fs.listed) == sorted([root, f"{root}/20261121", *(f"{root}/20261121/{h:02d}" for h in range(14, 24))])
    assert fs.reads == 0  # parsed from the names alone
    assert len(ledger.journal.entries_since(None, timedelta(0))) == 48


def test_names_that_are_not_entries_are_ignored() -> None:
    assert JournalEntry.parse(".x.tmp") is None
    assert JournalEntry.parse("a~b~c~d") is None
    assert JournalEntry.parse("20261121T100000000Z-r-0000abcd~clicks~20261121T1000Z") is None
    entry = JournalEntry.parse("20261121T100000000Z-r-0000abcd~clicks~20261121T1000Z~published")
    assert entry is not None and entry.time == T and entry.ms == int(datetime(2026, 11, 21, 10, tzinfo=UTC)
                                                                      .timestamp() * 1000)


def test_rebuild_lists_the_events_written_before_the_journal(ledger: Ledger) -> None:
    legacy = DatasetEvent(feed="clicks", cluster="primary", time="2026-11-21T10:00Z", run_id="r0", producer="p",
                          location="x", published="2026-11-21T11:00:00Z")  # format 1: no id, named by its run
    path = f"{ledger.layout.event_folder('clicks', T)}/r0.json"
    ledger.fs.write_atomically(path, to_json(legacy).replace(b'"format_version": 2', b'"format_version": 1'))
    newer = DatasetEvent(feed="views", cluster="primary", time="2026-11-21T09:00Z", run_id="r1", producer="p",
                         location="y", published="2026-11-21T11:00:00Z",
                         event_id=event_id(1_795_000_000_123, "r1", "views", "2026-11-21T09:00Z", "published"))
    ledger.fs.write_atomically(ledger.layout.event_record("views", datetime(2026, 11, 21, 9, tzinfo=UTC),
                                                          newer.event_id), to_json(newer))
    assert ledger.journal.entries_since(None, timedelta(0)) == []
    ledger.journal.ensure_rebuilt()
    [old] = ledger.events("clicks", T)
    entries = ledger.journal.entries_since(None, timedelta(0))
    assert sorted((e.event_id, e.feed, instance_key(e.time)) for e in entries) == sorted(
        [(old.event_id, "clicks", "20261121T1000Z"), (newer.event_id, "views", "20261121T0900Z")])
    assert Path(ledger.layout.journal_rebuilt().removeprefix("file://")).is_file()
    Path(ledger.journal.path(entries[0]).removeprefix("file://")).unlink()
    ledger.journal.ensure_rebuilt()  # once only: the marker is there
    assert len(ledger.journal.entries_since(None, timedelta(0))) == 1


def _half_journaled(root: Path) -> tuple[Ledger, list[str]]:
    """Six events, of which only the first two have their journal entry (the others as a ledger older than the
    journal, or a producer killed in between, leaves them); no rebuild has run."""
    ledger = Ledger.of(LocalFileSystem(), local_cluster(root / "conf", root / "root"))
    events = [ledger.record_publication(PublicationFacts("clicks", "primary", T + timedelta(hours=k),
                                                         producer="external", run_id=f"r{k}", location=f"file:///d/{k}",
                                                         fingerprint=PRINT))
              for k in range(6)]
    for event in events[2:]:
        assert event is not None
        Path(ledger.journal.path(JournalEntry.of(event)).removeprefix("file://")).unlink()
    return ledger, sorted(event.event_id for event in events if event is not None)


def _opened(root: str) -> Ledger:
    """The ledger of `_half_journaled(root)`, opened by another process (a config folder of its own)."""
    return Ledger.of(LocalFileSystem(), local_cluster(Path(root) / f"conf-{os.getpid()}", Path(root) / "root"))


def _rebuild_and_die(root: str, fatal: int) -> None:
    """A rebuild killed with SIGKILL at its `fatal`-th write (its entries' exclusive creates, then the marker)."""
    ledger = _opened(root)
    writes = [0]

    def counted(real):  # type: ignore[no-untyped-def]
        def write(self: LocalFileSystem, path: str, data: bytes) -> object:
            writes[0] += 1
            if writes[0] == fatal:
                os.kill(os.getpid(), signal.SIGKILL)
            return real(self, path, data)
        return write

    LocalFileSystem.create_exclusive = counted(LocalFileSystem.create_exclusive)  # type: ignore[method-assign]
    LocalFileSystem.write_atomically = counted(LocalFileSystem.write_atomically)  # type: ignore[method-assign]
    ledger.journal.ensure_rebuilt()
    os._exit(0)


@pytest.mark.parametrize("fatal", [1, 2, 4, 5])  # the first, second and last entry; the marker
def test_a_rebuild_killed_at_any_write_is_finished_by_the_next_and_each_event_has_one_entry(
        tmp_path: Path, fatal: int) -> None:
    ledger, ids = _half_journaled(tmp_path / "k")
    child = multiprocessing.get_context("fork").Process(target=_rebuild_and_die, args=(str(tmp_path / "k"), fatal))
    child.start()
    child.join(30)
    assert child.exitcode == -signal.SIGKILL
    assert not Path(ledger.layout.journal_rebuilt().removeprefix("file://")).exists()  # written last
    ledger.journal.ensure_rebuilt()
    assert sorted(e.event_id for e in ledger.journal.entries_since(None, timedelta(0))) == ids
    assert len(journal_names(ledger)) == 6  # one entry each, nothing half-written beside them
    marker = json.loads(Path(ledger.layout.journal_rebuilt().removeprefix("file://")).read_text())
    assert marker["events"] == 6


def _rebuild(root: str) -> None:
    _opened(root).journal.ensure_rebuilt()


def test_two_rebuilds_at_once_leave_one_entry_per_event(tmp_path: Path) -> None:
    ledger, ids = _half_journaled(tmp_path / "k")
    context = multiprocessing.get_context("fork")
    children = [context.Process(target=_rebuild, args=(str(tmp_path / "k"),)) for _ in range(2)]
    for child in children:
        child.start()
    for child in children:
        child.join(30)
    assert [child.exitcode for child in children] == [0, 0]
    assert sorted(e.event_id for e in ledger.journal.entries_since(None, timedelta(0))) == ids
    assert len(journal_names(ledger)) == 6
    assert Path(ledger.layout.journal_rebuilt().removeprefix("file://")).is_file()


def test_a_rebuild_passes_over_what_is_neither_an_entry_nor_an_event(ledger: Ledger) -> None:
    """Temporary files of a killed writer and stray files in the journal's buckets and the event folders are no
    entries and no events: the rebuild neither counts nor moves nor deletes them."""
    events = [ledger.record_publication(PublicationFacts("clicks", "primary", T + timedelta(hours=k),
                                                         producer="external", run_id=f"r{k}", location=f"file:///d/{k}",
                                                         fingerprint=PRINT))
              for k in range(2)]
    assert events[0] is not None and events[1] is not None
    entry = Path(ledger.journal.path(JournalEntry.of(events[1])).removeprefix("file://"))
    entry.unlink()
    strays = [entry.parent / ".half-written.tmp", entry.parent / "README",
              Path(ledger.layout.event_folder("clicks", T).removeprefix("file://")) / ".e.json.tmp",
              Path(ledger.layout.event_folder("clicks", T).removeprefix("file://")) / "notes.txt"]
    for stray in strays:
        stray.write_text("x")
    assert ledger.journal.rebuild() == 2
    assert sorted(e.event_id for e in ledger.journal.entries_since(None, timedelta(0))) == sorted(
        e.event_id for e in events)
    assert [stray.read_text() for stray in strays] == ["x"] * 4
