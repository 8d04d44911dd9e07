"""One cluster's ledger on the local file system: where each record goes (the layout), instance and attempt
records, late checks, dataset events, and the `parallel` slots."""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from tests.unit.ledger.ledger_support import SetClock, cluster_yaml, load_clusters, local_cluster
from toolkit.core.el.timestamps import instance_key, parse_instance_key
from toolkit.core.entities.model import Cluster, Interface
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.instances.fingerprints import Fingerprint
from toolkit.core.ledger.layout import DEFAULT_WORKING, LedgerLayout, partition_key, working_root
from toolkit.core.ledger.locks import LeaseDetails
from toolkit.core.ledger.records import (
    AttemptRecord,
    DatasetEvent,
    InstanceRecord,
    LateCheck,
    PublicationFacts,
    to_json,
)
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem, to_uri
from toolkit.errors import UsageError

UTC = timezone.utc
T = datetime(2026, 11, 21, 10, tzinfo=UTC)
LEASE = 60.0


def utc(*parts: int) -> datetime:
    return datetime(*parts, tzinfo=UTC)


# -- layout -------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def clusters(tmp_path_factory: pytest.TempPathFactory) -> ConfigRepo:
    return load_clusters(tmp_path_factory.mktemp("layout") / "conf", {
        "x": cluster_yaml("x", "file:///x", {"working": "/w", "staging": "/s"}),
        "staged": cluster_yaml("staged", "file:///x/", {"staging": "/s/", "temp": "/t"}),
        "bare": cluster_yaml("bare", "hdfs://nn:8020", {"temp": "/t"}),
        "nowrite": cluster_yaml("nowrite", None, {"working": "/w"}),
    })


def test_layout_paths_of_a_cluster(clusters: ConfigRepo) -> None:
    layout = LedgerLayout.of(clusters.cluster("x"))

    assert layout.root == "file:///x/w/ledger"
    assert layout.process_folder("p") == "file:///x/w/ledger/processes/p"
    assert layout.instance_folder("p", T) == "file:///x/w/ledger/processes/p/20261121T1000Z"
    assert layout.instance_record("p", T) == "file:///x/w/ledger/processes/p/20261121T1000Z/instance.json"
    assert layout.attempt_record("p", T, 3) == "file:///x/w/ledger/processes/p/20261121T1000Z/attempt-003.json"
    assert layout.attempt_record("p", T, 1234) == "file:///x/w/ledger/processes/p/20261121T1000Z/attempt-1234.json"
    assert layout.late_checks("p", T) == "file:///x/w/ledger/processes/p/20261121T1000Z/late-checks.json"
    assert layout.slots_folder("p") == "file:///x/w/ledger/processes/p/slots"
    assert layout.event_folder("clicks", T) == "file:///x/w/ledger/events/clicks/20261121T1000Z"
    assert layout.event_record("clicks", T, "0123456789ab") == \
        "file:///x/w/ledger/events/clicks/20261121T1000Z/0123456789ab.json"
    assert layout.safemode() == "file:///x/w/ledger/control/safemode"
    assert layout.suspended("process", "p") == "file:///x/w/ledger/control/suspended/process/p"


def test_run_level_locks_live_in_the_ledger_of_the_cluster(clusters: ConfigRepo) -> None:
    ledger = Ledger.of(LocalFileSystem(), clusters.cluster("x"))
    replication, retention = ledger.replication_lock("clicks", T), ledger.retention_lock("clicks")
    hive_import = ledger.import_lock("web", "visits", "ds=2026-11-21/region=eu.1")
    assert (replication.folder, replication.name) == ("file:///x/w/ledger/locks/replication/clicks/20261121T1000Z",
                                                      "lock")
    assert (retention.folder, retention.name) == ("file:///x/w/ledger/locks/retention/clicks", "lock")
    assert (hive_import.folder, hive_import.name) == (
        "file:///x/w/ledger/locks/hive-import/web.visits/ds_3d2026-11-21_2fregion_3deu_2e1", "lock")
    assert partition_key("ds=a/b") != partition_key("ds=a_2fb")  # '_' is escaped too: no two names share a folder


def test_working_falls_back_to_staging_then_the_default(clusters: ConfigRepo) -> None:
    assert working_root(clusters.cluster("staged")) == "file:///x/s"
    assert LedgerLayout.of(clusters.cluster("staged")).root == "file:///x/s/ledger"
    assert working_root(clusters.cluster("bare")) == "hdfs://nn:8020" + DEFAULT_WORKING
    assert LedgerLayout.of(clusters.cluster("bare")).root == "hdfs://nn:8020/feed-toolkit/working/ledger"


def test_a_working_root_is_one_spelling_whatever_the_endpoints_and_a_climbing_one_is_refused_every_time(
        clusters: ConfigRepo) -> None:
    """The working root is worked out once per endpoint and folder (a cache): each spelling of one root gives the same
    root, and a root with a `..` segment is refused at each call, never remembered as an answer."""
    x = clusters.cluster("x")

    def written_at(endpoint: str) -> Cluster:
        return replace(x, interfaces={**x.interfaces, "write": Interface(type="write", endpoint=endpoint)})

    assert {working_root(written_at(spelling)) for spelling in ("file:///x", "file:/x", "file:///x/", "file:/x/")} \
        == {"file:///x/w"}
    for _ in range(2):
        with pytest.raises(UsageError, match=r"The cluster root 'file:///x/\.\./y' .* has a '\.' or '\.\.' segment"):
            working_root(written_at("file:///x/../y"))


def test_a_cluster_without_write_interface_has_no_ledger(clusters: ConfigRepo) -> None:
    with pytest.raises(UsageError) as raised:
        LedgerLayout.of(clusters.cluster("nowrite"))
    assert "The cluster 'nowrite' has no write interface" in str(raised.value)
    assert "interfaces.write.endpoint" in str(raised.value)


@pytest.mark.parametrize("name", ["../x", "..", "a/b", "a/../b", "x..y", ".hidden", "", "-dash", "a b", "a\\b"])
def test_layout_refuses_unsafe_names(name: str) -> None:
    layout = LedgerLayout("file:///x/w/ledger")
    for call, what in ((lambda: layout.process_folder(name), "process"),
                       (lambda: layout.event_folder(name, T), "feed"),
                       (lambda: layout.event_record("clicks", T, name), "event id"),
                       (lambda: layout.suspended("process", name), "process"),
                       (lambda: layout.suspended(name, "p"), "entity kind")):
        with pytest.raises(UsageError) as raised:
            call()
        assert f"The {what} name {name!r} cannot name a ledger folder" in str(raised.value)


@pytest.mark.parametrize("name", ["p", "hourly-clicks-summary", "a.b_c-1", "0abc"])
def test_layout_accepts_entity_names(name: str) -> None:
    assert LedgerLayout("file:///l").process_folder(name) == f"file:///l/processes/{name}"


def test_instance_keys_are_utc_and_parse_back() -> None:
    assert instance_key(T) == "20261121T1000Z"
    assert instance_key(datetime(2026, 7, 1, 2, 30, tzinfo=ZoneInfo("Europe/Berlin"))) == "20260701T0030Z"
    assert parse_instance_key("20261121T1000Z") == T
    assert parse_instance_key(instance_key(utc(2026, 2, 28, 23, 59))) == utc(2026, 2, 28, 23, 59)
    for foreign in ("20261399T0000Z", "20260230T0000Z", "20261121T2500Z", "20261121T1000", "slots",
                    "x20261121T1000Z", "20261121T1000Z.json", ""):
        assert parse_instance_key(foreign) is None, foreign


# -- records -----------------------------------------------------------------------------------------------


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "primary"


@pytest.fixture
def clock() -> SetClock:
    return SetClock()


@pytest.fixture
def ledger(tmp_path: Path, root: Path, clock: SetClock) -> Ledger:
    return Ledger.of(LocalFileSystem(), local_cluster(tmp_path / "conf", root, working="/work"),
                     lease_seconds=LEASE, clock=clock)


def instance_record(t: datetime, status: str = "SUCCEEDED", attempts: int = 1) -> InstanceRecord:
    return InstanceRecord(process="p", cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}", status=status,
                          attempts=attempts, run_id="0123456789ab", updated="2026-11-21T10:09:00Z",
                          started="2026-11-21T10:05:00Z", ended="2026-11-21T10:08:00Z",
                          succeeded="2026-11-21T10:08:00Z" if status == "SUCCEEDED" else None)


def attempt_record(number: int, status: str = "FAILED") -> AttemptRecord:
    return AttemptRecord(process="p", cluster="primary", time="2026-11-21T10:00Z", attempt=number,
                         run_id=f"run{number}", kind="RUN", status=status, started="2026-11-21T10:05:00Z",
                         ended="2026-11-21T10:06:00Z", error=None if status == "SUCCEEDED" else f"failure {number}")


def test_ledger_root_is_under_the_working_location(ledger: Ledger, root: Path) -> None:
    assert ledger.layout.root == to_uri(str(root)) + "/work/ledger"


def test_write_instance_then_read_it(ledger: Ledger, root: Path) -> None:
    record = instance_record(T)
    assert ledger.instance("p", T) is None

    ledger.write_instance(record)

    path = root / "work/ledger/processes/p/20261121T1000Z/instance.json"
    written = json.loads(path.read_text())
    assert written["status"] == "SUCCEEDED" and written["time"] == "2026-11-21T10:00Z"
    assert written["run_id"] == "0123456789ab"
    assert ledger.instance("p", T) == record
    assert [p.name for p in path.parent.iterdir()] == ["instance.json"]  # no temporary left beside it

    ledger.write_instance(instance_record(T, status="FAILED", attempts=3))  # rewritten in place
    assert ledger.instance("p", T) == instance_record(T, status="FAILED", attempts=3)


class ReadCounting(LocalFileSystem):
    def __init__(self) -> None:
        self.reads: list[str] = []

    def read(self, path: str) -> bytes:
        self.reads.append(path)
        return super().read(path)


def test_instances_reads_only_the_recorded_times(tmp_path: Path, root: Path, clock: SetClock) -> None:
    fs = ReadCounting()
    ledger = Ledger.of(fs, local_cluster(tmp_path / "conf", root), lease_seconds=LEASE, clock=clock)
    for hour in (8, 10):
        ledger.write_instance(instance_record(utc(2026, 11, 21, hour)))
    # a recorded folder without an instance record (only a lock so far)
    ledger.instance_lock("p", utc(2026, 11, 21, 9)).try_acquire("r")
    fs.reads.clear()

    asked = [utc(2026, 11, 21, 10) - timedelta(hours=k) for k in range(48)]
    found = ledger.instances("p", asked)

    assert found == {utc(2026, 11, 21, 8): instance_record(utc(2026, 11, 21, 8)),
                     utc(2026, 11, 21, 10): instance_record(utc(2026, 11, 21, 10))}
    # the folders' records, and once the roll-up of the month asked for (the times without a folder may be there)
    assert sorted(fs.reads) == [*(ledger.layout.instance_record("p", utc(2026, 11, 21, h)) for h in (8, 9, 10)),
                                ledger.layout.rollup_record("p", "202611")]
    assert ledger.instances("unknown-process", asked) == {}


def test_recorded_times_ignore_foreign_folder_names(ledger: Ledger, root: Path) -> None:
    ledger.write_instance(instance_record(T))
    ledger.write_instance(instance_record(utc(2026, 11, 20, 23)))
    process = root / "work/ledger/processes/p"
    for foreign in ("slots", "notes", "20261399T0000Z", "20261121T1000", ".20261121T1100Z.tmp"):
        (process / foreign).mkdir()
    (process / "20261121T1200Z").write_text("a file, not an instance folder")

    assert ledger.recorded_times("p") == {T, utc(2026, 11, 20, 23)}
    assert ledger.recorded_times("never-ran") == set()


def test_attempts_are_sorted_by_number(ledger: Ledger, root: Path) -> None:
    for number in (1000, 2, 1, 999):
        path = ledger.write_attempt(attempt_record(number))
        assert path == ledger.layout.attempt_record("p", T, number)
    (root / "work/ledger/processes/p/20261121T1000Z/attempt-notes.txt").write_text("not a record")

    attempts = ledger.attempts("p", T)

    assert [a.attempt for a in attempts] == [1, 2, 999, 1000]  # by number: attempt-1000 lists before -999
    assert attempts[0] == attempt_record(1)
    assert ledger.attempts("p", utc(2026, 11, 21, 11)) == []


def test_add_late_check_appends(ledger: Ledger, root: Path) -> None:
    assert ledger.late_checks("p", T) == []
    first = LateCheck("2026-11-21T11:00Z", "UNCHANGED")
    second = LateCheck("2026-11-21T12:00Z", "CHANGED", ["clicks"], "abcdef012345")

    ledger.add_late_check("p", T, first)
    ledger.add_late_check("p", T, second)

    assert ledger.late_checks("p", T) == [first, second]
    written = json.loads((root / "work/ledger/processes/p/20261121T1000Z/late-checks.json").read_text())
    assert [check["at"] for check in written] == ["2026-11-21T11:00Z", "2026-11-21T12:00Z"]


FP1 = Fingerprint("a1", 1, 10)
FP2 = Fingerprint("b2", 2, 20)


def _publish(ledger: Ledger, run_id: str, fingerprint: Fingerprint | None = FP1,
             unless_recorded: bool = False) -> DatasetEvent | None:
    return ledger.record_publication(PublicationFacts("clicks", "primary", T, producer="process:p", run_id=run_id,
                                                      location="file:///x/data/clicks/2026/11/21/10",
                                                      fingerprint=fingerprint), unless_recorded=unless_recorded)


def test_a_publication_is_recorded_as_an_event_file_named_by_its_id(ledger: Ledger, root: Path) -> None:
    event = _publish(ledger, "aaaa")
    assert event is not None and event.kind == "published"
    folder = root / "work/ledger/events/clicks/20261121T1000Z"
    assert [p.name for p in folder.iterdir()] == [f"{event.event_id}.json"]
    written = json.loads((folder / f"{event.event_id}.json").read_text())
    assert written == {"feed": "clicks", "cluster": "primary", "time": "2026-11-21T10:00Z", "run_id": "aaaa",
                       "producer": "process:p", "location": "file:///x/data/clicks/2026/11/21/10",
                       "published": event.published, "kind": "published", "fingerprint": FP1.to_json(),
                       "event_id": event.event_id, "format_version": 2}
    assert event.event_id.endswith(f"Z-aaaa-{event.event_id[-8:]}")
    assert ledger.events("clicks", T) == [event]
    assert ledger.events("clicks", utc(2026, 11, 21, 11)) == []
    assert ledger.events("other", T) == []
    assert ledger.feed_event_times("clicks") == [T] and ledger.event_feeds() == ["clicks"]


def test_the_kind_is_replaced_after_a_publication_and_published_after_an_eviction(ledger: Ledger) -> None:
    first = _publish(ledger, "aaaa")
    again = _publish(ledger, "bbbb", FP2)
    batch = ledger.record_evictions("clicks", "primary", [(T, "file:///x/data/clicks/2026/11/21/10")],
                                    producer="retention", run_id="cccc")
    assert batch is not None
    [evicted] = batch.events()
    back = _publish(ledger, "dddd")
    assert [e.kind for e in (first, again, evicted, back) if e] == ["published", "replaced", "evicted", "published"]
    assert evicted is not None and evicted.fingerprint is None
    events = ledger.events("clicks", T)
    assert [e.run_id for e in events] == ["aaaa", "bbbb", "cccc", "dddd"]  # ids sort by publication
    assert len({e.event_id for e in events}) == 4


def test_evictions_in_batch_are_one_evicted_event_per_instance(ledger: Ledger) -> None:
    _publish(ledger, "aaaa")
    later = utc(2026, 11, 21, 11)
    batch = ledger.record_evictions("clicks", "primary", [(later, "file:///x/b"), (T, "file:///x/a")],
                                    producer="retention", run_id="bbbb")
    assert batch is not None and ledger.record_evictions("clicks", "primary", [], producer="retention",
                                                         run_id="none") is None
    written = batch.events()
    assert [(e.kind, e.time, e.location, e.run_id, e.fingerprint) for e in written] == [
        ("evicted", "2026-11-21T10:00Z", "file:///x/a", "bbbb", None),
        ("evicted", "2026-11-21T11:00Z", "file:///x/b", "bbbb", None)]
    assert [e.kind for e in ledger.events("clicks", T)] == ["published", "evicted"]
    assert ledger.events("clicks", later) == [written[1]]
    assert _publish(ledger, "cccc") is not None and ledger.events("clicks", T)[-1].kind == "published"
    # one file however many instances: named by its id and the instances it spans
    folder = Path(ledger.layout.evictions_folder("clicks").removeprefix("file://"))
    assert [p.name for p in folder.iterdir()] == [f"{batch.batch_id}~20261121T1000Z~20261121T1100Z.json"]
    assert ledger.feed_event_times("clicks") == [T, later] and ledger.event_feeds() == ["clicks"]


def test_unless_recorded_writes_only_what_the_last_event_does_not_say(ledger: Ledger) -> None:
    assert _publish(ledger, "aaaa", unless_recorded=True) is not None  # no event yet: a killed run's
    assert _publish(ledger, "bbbb", unless_recorded=True) is None  # same content, recorded
    changed = _publish(ledger, "cccc", FP2, unless_recorded=True)
    assert changed is not None and changed.kind == "replaced"
    assert [e.run_id for e in ledger.events("clicks", T)] == ["aaaa", "cccc"]


def test_an_event_never_sorts_before_the_last_one_of_its_instance(ledger: Ledger, root: Path) -> None:
    """A clock behind the one that wrote the last event (another host) still makes a later id."""
    future = DatasetEvent(feed="clicks", cluster="primary", time="2026-11-21T10:00Z", run_id="zzzz",
                          producer="external", location="x", published="2099-01-01T00:00:00Z",
                          event_id="20990101T000000999Z-zzzz-0a1b2c3d")
    folder = root / "work/ledger/events/clicks/20261121T1000Z"
    folder.mkdir(parents=True)
    (folder / f"{future.event_id}.json").write_bytes(to_json(future))
    event = _publish(ledger, "aaaa")
    assert event is not None and event.kind == "replaced"
    assert event.event_id.startswith("20990101T000001000Z-aaaa-")
    assert ledger.events("clicks", T)[-1] == event


def test_a_format_1_event_is_read_as_published_with_an_id_from_its_stamp(ledger: Ledger, root: Path) -> None:
    folder = root / "work/ledger/events/clicks/20261121T1000Z"
    folder.mkdir(parents=True)
    (folder / "aaaa.json").write_text(json.dumps({
        "feed": "clicks", "cluster": "primary", "time": "2026-11-21T10:00Z", "run_id": "aaaa",
        "producer": "p", "location": "file:///x", "published": "2026-11-21T10:07:00Z"}))
    [old] = ledger.events("clicks", T)
    assert (old.kind, old.fingerprint) == ("published", None)
    assert old.event_id.startswith("20261121T100700000Z-aaaa-")
    assert _publish(ledger, "bbbb") is not None and ledger.events("clicks", T)[-1].kind == "replaced"


# -- locks and slots ---------------------------------------------------------------------------------------


def test_instance_lock_lives_in_the_instance_folder(ledger: Ledger, root: Path, clock: SetClock) -> None:
    lock = ledger.instance_lock("p", T)
    assert lock.try_acquire("r1", LeaseDetails(time="2026-11-21T10:00Z")).taken
    lease = json.loads((root / "work/ledger/processes/p/20261121T1000Z/lock.0").read_text())
    assert lease["expires"] == clock.now + LEASE and lease["details"] == {"time": "2026-11-21T10:00Z"}
    assert ledger.instance_lock("p", T).try_acquire("r2").taken is False
    # the lock's folder is no reason to list an instance record that does not exist
    assert ledger.recorded_times("p") == {T} and ledger.instance("p", T) is None


def test_take_slot_fills_parallel_slots_then_refuses(ledger: Ledger, root: Path, clock: SetClock) -> None:
    first, holders = ledger.take_slot("p", 2, "r1", LeaseDetails(time="2026-11-21T10:00Z"))
    assert first is not None and first.name == "slot-0" and holders == []
    clock.advance(30)
    second, holders = ledger.take_slot("p", 2, "r2", LeaseDetails(time="2026-11-21T11:00Z"))
    assert second is not None and second.name == "slot-1"
    assert [h.run_id for h in holders] == ["r1"]

    third, holders = ledger.take_slot("p", 2, "r3", LeaseDetails(time="2026-11-21T12:00Z"))

    assert third is None
    assert holders == [first.lease, second.lease]
    assert [h.details.time for h in holders] == ["2026-11-21T10:00Z", "2026-11-21T11:00Z"]
    assert sorted(p.name for p in (root / "work/ledger/processes/p/slots").iterdir()) == ["slot-0.0", "slot-1.0"]


def test_running_lists_only_live_slots(ledger: Ledger, clock: SetClock) -> None:
    assert ledger.running("p") == []
    first, _ = ledger.take_slot("p", 2, "r1", LeaseDetails(time="2026-11-21T10:00Z"))
    clock.advance(30)
    second, _ = ledger.take_slot("p", 2, "r2", LeaseDetails(time="2026-11-21T11:00Z"))
    assert first is not None and second is not None
    assert ledger.running("p") == [first.lease, second.lease]

    clock.advance(LEASE - 30)  # the first slot's lease expires now, the second's in 30 s
    assert [lease.run_id for lease in ledger.running("p")] == ["r2"]

    # its slot is free again: a new run takes it over (next generation)
    taken, _ = ledger.take_slot("p", 2, "r3", LeaseDetails(time="2026-11-21T12:00Z"))
    assert taken is not None and taken.name == "slot-0" and taken.generation == 1
    assert [lease.run_id for lease in ledger.running("p")] == ["r3", "r2"]

    second.release()
    assert [lease.run_id for lease in ledger.running("p")] == ["r3"]
