"""The journal (toolkit/core/ledger/journal.py) attacked on real files with real processes: a repair killed with
SIGKILL between its late copy and its entry, two repairs of one entry at once, and hostile layouts (a link where
the journal folder belongs, a folder named like an entry, a root spelled otherwise), each followed by the consumer
that reads the journal: every event planned exactly once."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.unit.ledger.ledger_support import cluster_yaml, load_clusters
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.consumption import ConsumerQueue
from toolkit.core.ledger.journal import JournalEntry
from toolkit.core.ledger.records import DatasetEvent, PublicationFacts
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.filesystem import StorageError
from toolkit.core.storage.local import LocalFileSystem

UTC = timezone.utc
T = datetime(2026, 11, 21, 10, tzinfo=UTC)
PRINT = Fingerprint("d1", 1, 10)
TIMEOUT = 60


def open_ledger(tmp: Path, endpoint: str | None = None) -> Ledger:
    """The ledger of the cluster rooted in `tmp/root` (each caller, a child process too, loads its own config)."""
    folder = tmp / f"conf-{os.getpid()}-{time.monotonic_ns()}"
    repo = load_clusters(folder, {"primary": cluster_yaml("primary", endpoint or f"file://{tmp / 'root'}",
                                                          {"working": "/feed-toolkit/working"})})
    return Ledger.of(LocalFileSystem(), repo.cluster("primary"))


def record(ledger: Ledger, run_id: str, unless_recorded: bool = False, t: datetime = T) -> DatasetEvent | None:
    return ledger.record_publication(PublicationFacts("clicks", "primary", t, producer="external", run_id=run_id,
                                                      location=f"file:///d/{t:%H}",
                                                      fingerprint=PRINT), unless_recorded=unless_recorded)


def local(uri: str) -> Path:
    return Path(uri.removeprefix("file://"))


def entries_on_disk(ledger: Ledger) -> list[str]:
    root = local(ledger.layout.journal_folder())
    return sorted(p.name for p in root.rglob("*") if p.is_file()) if root.exists() else []


def late_on_disk(ledger: Ledger) -> list[str]:
    folder = local(ledger.layout.journal_late_folder())
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def unjournaled_event(tmp: Path) -> DatasetEvent:
    """An event whose producer was killed after its event file, before its entry (a journal otherwise whole)."""
    ledger = open_ledger(tmp)
    ledger.journal.ensure_rebuilt()
    event = record(ledger, "killed")
    assert event is not None
    local(ledger.journal.path(JournalEntry.of(event))).unlink()
    return event


# -- kill -9 in the repair, then the consumer and the next repair ------------------------------------------------

def _repair_and_die(tmp: str, fatal: int) -> None:
    """The producer's next run, repairing the entry, killed with SIGKILL before its `fatal`-th exclusive create
    (1: the late copy, 2: the entry)."""
    creates = [0]
    real = LocalFileSystem.create_exclusive

    def create(self: LocalFileSystem, path: str, data: bytes) -> bool:
        creates[0] += 1
        if creates[0] == fatal:
            os.kill(os.getpid(), signal.SIGKILL)
        return real(self, path, data)

    LocalFileSystem.create_exclusive = create  # type: ignore[method-assign]
    record(open_ledger(Path(tmp)), "next", unless_recorded=True)
    os._exit(0)


@pytest.mark.parametrize("fatal", [1, 2], ids=["before-the-late-copy", "between-the-late-copy-and-the-entry"])
def test_a_repair_killed_at_either_write_is_finished_by_the_next_and_the_event_is_planned_once(
        tmp_path: Path, fatal: int) -> None:
    event = unjournaled_event(tmp_path)
    ledger = open_ledger(tmp_path)
    queue = ConsumerQueue(ledger, "loader", ["clicks"], lag=timedelta(seconds=1))
    child = multiprocessing.get_context("fork").Process(target=_repair_and_die, args=(str(tmp_path), fatal))
    child.start()
    child.join(TIMEOUT)
    assert child.exitcode == -signal.SIGKILL
    name = JournalEntry.of(event).name
    assert entries_on_disk(ledger) == [] and late_on_disk(ledger) == ([] if fatal == 1 else [name])
    # a consumer between the kill and the next repair plans what the late copy shows, once
    early = queue.create_plan("sweep-1")
    assert (early.plan.event_ids if early else frozenset()) == ({event.event_id} if fatal == 2 else frozenset())
    assert record(ledger, "after", unless_recorded=True) is None  # the repair again: no new event
    assert entries_on_disk(ledger) == [name] and late_on_disk(ledger) == [name]
    while queue.create_plan("sweep-2") is not None:
        pass
    assert sorted(i for plan in queue.plans() for i in plan.event_ids) == [event.event_id]  # exactly once
    assert [e.event_id for e in ledger.events("clicks", T)] == [event.event_id]


# -- two repairs at once ---------------------------------------------------------------------------------------

def _repair_at(tmp: str, barrier) -> None:  # noqa: ANN001
    ledger = open_ledger(Path(tmp))
    barrier.wait(TIMEOUT)
    assert record(ledger, f"repair-{os.getpid()}", unless_recorded=True) is None
    os._exit(0)


def test_two_repairs_of_one_entry_at_once_leave_one_entry_one_late_copy_and_no_new_event(tmp_path: Path) -> None:
    event = unjournaled_event(tmp_path)
    context = multiprocessing.get_context("fork")
    barrier = context.Barrier(2)
    children = [context.Process(target=_repair_at, args=(str(tmp_path), barrier)) for _ in range(2)]
    for child in children:
        child.start()
    for child in children:
        child.join(TIMEOUT)
    assert [child.exitcode for child in children] == [0, 0]
    ledger = open_ledger(tmp_path)
    name = JournalEntry.of(event).name
    assert entries_on_disk(ledger) == [name] and late_on_disk(ledger) == [name]
    assert [e.event_id for e in ledger.events("clicks", T)] == [event.event_id]
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    made = queue.create_plan("s")
    assert made is not None and made.plan.event_ids == {event.event_id} and queue.create_plan("s") is None


# -- hostile layouts -------------------------------------------------------------------------------------------

def test_a_link_where_the_journal_folder_belongs_is_refused_and_nothing_is_written_outside(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    journal = local(ledger.layout.journal_folder())
    journal.parent.mkdir(parents=True)
    journal.symlink_to(outside)
    with pytest.raises(StorageError, match="symbolic link"):
        record(ledger, "r1")
    assert list(outside.iterdir()) == []
    assert not local(ledger.layout.events_folder()).exists()  # refused before its event was written


def test_a_reader_refuses_a_link_where_the_journal_folder_belongs_in_one_sentence(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path)
    outside = tmp_path / "outside"
    (outside / "20261121" / "10").mkdir(parents=True)
    planted = outside / "20261121" / "10" / "20261121T100000000Z-x-0000abcd~clicks~20261121T1000Z~published"
    planted.write_bytes(b"")
    journal = local(ledger.layout.journal_folder())
    journal.parent.mkdir(parents=True)
    journal.symlink_to(outside)
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    with pytest.raises(StorageError, match=r"^Cannot list file://.*/ledger/journal: it is a symbolic link, which the "
                                           r"toolkit never follows\.$"):
        queue.create_plan("s")
    assert [p.name for p in outside.rglob("*")] == ["20261121", "10", planted.name]
    assert not local(ledger.layout.consumer_folder("loader")).exists()  # nothing planned from it


def test_a_folder_named_like_an_entry_is_no_entry(tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path)
    ledger.journal.ensure_rebuilt()
    real = record(ledger, "r1")
    assert real is not None
    bucket = local(ledger.journal.path(JournalEntry.of(real))).parent
    (bucket / f"{real.event_id[:-8]}0000abcd~clicks~20261121T0900Z~published").mkdir()
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    made = queue.create_plan("s")
    assert made is not None and made.plan.event_ids == {real.event_id}
    assert [e.event_id for e in queue.events(made.plan)] == [real.event_id]


def test_a_folder_where_an_entry_belongs_keeps_its_event_journaled_once(tmp_path: Path) -> None:
    """A folder at the very name of an entry (made by hand): the exclusive create finds it taken, writing the
    entry twice changes nothing, and the event is planned once."""
    ledger = open_ledger(tmp_path)
    ledger.journal.ensure_rebuilt()
    first = record(ledger, "r1")
    assert first is not None
    entry = local(ledger.journal.path(JournalEntry.of(first)))
    entry.unlink()
    entry.mkdir()
    (entry / "keep").write_text("mine")
    assert record(ledger, "r2", unless_recorded=True) is None
    assert (entry / "keep").read_text() == "mine"
    queue = ConsumerQueue(ledger, "loader", ["clicks"])
    made = queue.create_plan("s")
    assert made is not None and made.plan.event_ids == {first.event_id} and queue.create_plan("s") is None


def test_a_file_where_an_hour_folder_belongs_fails_the_publication_in_one_sentence_and_the_next_repairs_it(
        tmp_path: Path) -> None:
    ledger = open_ledger(tmp_path)
    ledger.journal.ensure_rebuilt()
    hour = datetime.now(UTC)
    stray = local(ledger.layout.journal_folder()) / f"{hour:%Y%m%d}" / f"{hour:%H}"
    stray.parent.mkdir(parents=True)
    stray.write_text("mine")
    if datetime.now(UTC).hour != hour.hour:  # the hour turned meanwhile: the stray lies in the past
        pytest.skip("the hour turned while the test set up")
    with pytest.raises(StorageError, match=rf"^Cannot create file://{stray}/\S+~clicks~20261121T1000Z~published: "
                                           r"(File exists|Not a directory)\.$"):
        record(ledger, "r1")
    assert stray.read_text() == "mine"
    stray.unlink()
    assert record(ledger, "r2", unless_recorded=True) is None  # recorded already: the entry is repaired
    [event] = ledger.events("clicks", T)
    assert [e.event_id for e in ledger.journal.entries_since(None, timedelta(0))] == [event.event_id]


def test_every_spelling_of_the_root_journals_into_one_folder(tmp_path: Path) -> None:
    root = tmp_path / "root"
    parts = str(root).strip("/").split("/")
    spellings = [f"file://{root}", "file:///" + parts[0] + "//" + "/".join(parts[1:]) + "/", f"file:{root}",
                 f"file://{root}/"]
    ids = []
    for k, spelling in enumerate(spellings):
        event = record(open_ledger(tmp_path, spelling), f"r{k}", t=T + timedelta(hours=k))
        assert event is not None
        ids.append(event.event_id)
    for spelling in spellings:
        found = open_ledger(tmp_path, spelling).journal.entries_since(None, timedelta(0))
        assert [e.event_id for e in found] == sorted(ids)
    assert len(entries_on_disk(open_ledger(tmp_path))) == 4
    assert [p.name for p in root.iterdir()] == ["feed-toolkit"]
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith("conf-")) == ["root"]
