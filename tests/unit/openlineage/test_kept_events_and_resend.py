"""The ledger's copy of lineage events and `toolkit lineage resend`: records by start hour, read back only for the
window asked, refused when damaged; sending within a budget (a closed port, a backend that hangs); resend sends
what was not sent, once, oldest first, and a second resend of the same cluster is told who holds the lease."""

from __future__ import annotations

import socket
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tests.lineage_receiver import lineage_receiver
from tests.unit.retention.retention_repo import make_repo
from toolkit.cli.main import main as toolkit
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.records import CorruptRecordError
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.openlineage.resend import resend
from toolkit.services.openlineage.store import LineageBook, LineageRecord
from toolkit.services.openlineage.transport import Emitter

UTC = timezone.utc


def event(run: str, kind: str, when: datetime) -> dict:  # type: ignore[type-arg]
    return {"eventType": kind, "eventTime": when.isoformat().replace("+00:00", "Z"),
            "producer": "https://github.com/feed-toolkit/feed-toolkit/tree/v0.1.0",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {"runId": run, "facets": {}}, "job": {"namespace": "ns", "name": "process.p", "facets": {}},
            "inputs": [], "outputs": []}


RUNS = ["01890d7e-6a3e-7c2b-9b8f-00000000000" + str(k) for k in range(4)]


@pytest.fixture
def book(tmp_path: Path) -> tuple[LineageBook, Ledger, Path]:
    repo, _root = make_repo(tmp_path)
    cluster = ConfigRepo.load(repo).cluster("primary")
    ledger = Ledger.of(LocalFileSystem(), cluster)
    book = LineageBook(LocalFileSystem(), LedgerLayout.of(cluster))
    starts = [datetime(2026, 11, 21, 9, 59, tzinfo=UTC), datetime(2026, 11, 21, 10, 5, tzinfo=UTC),
              datetime(2026, 11, 22, 0, 1, tzinfo=UTC), datetime(2026, 11, 23, 7, 0, tzinfo=UTC)]
    for run, started, sent in zip(RUNS, starts, (True, False, False, True), strict=True):
        record = LineageRecord(run, started).with_event(event(run, "START", started), True)
        book.save(record.with_event(event(run, "COMPLETE", started + timedelta(seconds=9)), sent))
    return book, ledger, repo


def test_records_are_kept_by_start_hour_and_read_for_a_window(book) -> None:
    lineage, _, _ = book
    paths = [path for path, _ in lineage.records()]
    assert [p.split("/ledger/lineage/")[1] for p in paths] == [
        f"20261121/09/{RUNS[0]}.json", f"20261121/10/{RUNS[1]}.json", f"20261122/00/{RUNS[2]}.json",
        f"20261123/07/{RUNS[3]}.json"]
    window = [r.run for _, r in lineage.records(datetime(2026, 11, 21, 10, 0, tzinfo=UTC),
                                                      datetime(2026, 11, 22, 0, 1, tzinfo=UTC))]
    assert window == RUNS[1:3]
    assert [r.run for _, r in lineage.records(last=datetime(2026, 11, 21, 9, 59, tzinfo=UTC))] == RUNS[:1]


def test_a_damaged_record_is_refused_naming_its_path(book) -> None:
    lineage, _, _ = book
    path = next(path for path, _ in lineage.records())
    Path(path.removeprefix("file://")).write_text('{"run": 1}')
    with pytest.raises(CorruptRecordError, match=RUNS[0]):
        list(lineage.records())


def test_a_closed_port_fails_fast_and_stops_further_sends(capsys) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    emitter = Emitter({"transport": {"type": "http", "url": f"http://127.0.0.1:{port}?api_key=s3cret",
                                     "retry": {"total": 0}}})
    began = time.monotonic()
    assert not emitter.send(event(RUNS[0], "START", datetime.now(UTC)))
    assert not emitter.send(event(RUNS[0], "COMPLETE", datetime.now(UTC)))
    assert time.monotonic() - began < 5
    err = capsys.readouterr().err
    assert err.count("lineage: events not sent (") == 1 and "s3cret" not in err


def test_a_hanging_backend_costs_at_most_the_budget() -> None:
    with lineage_receiver() as receiver:
        receiver.hang_seconds = 10
        emitter = Emitter({"transport": {"type": "http", "url": receiver.url, "retry": {"total": 0}}}, budget=1.0)
        began = time.monotonic()
        assert [emitter.send(event(RUNS[0], kind, datetime.now(UTC))) for kind in ("START", "COMPLETE")] == \
            [False, False]
        assert time.monotonic() - began < 2.5
        assert emitter.failure == "no answer within the 1 s given to lineage"


def test_resend_sends_what_was_not_sent_once_oldest_first(book) -> None:
    lineage, ledger, _ = book
    with lineage_receiver() as receiver:
        done = resend(ledger, Emitter({"transport": {"type": "http", "url": receiver.url}}), "r1")
        again = resend(ledger, Emitter({"transport": {"type": "http", "url": receiver.url}}), "r2")
    assert (done.runs, done.due, done.sent, done.reason) == (2, 2, 2, None)
    assert (again.runs, again.sent) == (0, 0)
    assert [(e["run"]["runId"], e["eventType"]) for e in receiver.events] == [(RUNS[1], "COMPLETE"),
                                                                            (RUNS[2], "COMPLETE")]
    assert all(kept.sent for _, record in lineage.records() for kept in record.events)


def test_resend_all_of_a_window_for_a_new_backend(book) -> None:
    _, ledger, _ = book
    with lineage_receiver() as receiver:
        done = resend(ledger, Emitter({"transport": {"type": "http", "url": receiver.url}}), "r1",
                      datetime(2026, 11, 23, tzinfo=UTC), None, everything=True)
    assert (done.runs, done.due, done.sent) == (1, 2, 2)
    assert [e["eventType"] for e in receiver.events] == ["START", "COMPLETE"]


def test_the_resend_command_exits_1_when_the_backend_is_down_and_keeps_the_events(book, monkeypatch,
                                                                                  capsys) -> None:
    lineage, _, repo = book
    monkeypatch.setenv("OPENLINEAGE_URL", "http://127.0.0.1:9")  # the discard port: nothing listens
    assert toolkit(["lineage", "resend", "--repo", str(repo), "--cluster", "primary", "--timeout", "5"]) == 1
    out = capsys.readouterr()
    assert "lineage resend: 0 of 2 event(s) due, from 2 run(s) of cluster 'primary', sent; 2 not sent" in out.out
    assert "2 event(s) could not be sent" in out.err
    assert sum(1 for _, record in lineage.records() for kept in record.events if not kept.sent) == 2


def test_resend_without_lineage_configured_is_a_usage_error(book, monkeypatch, tmp_path: Path, capsys) -> None:
    _, _, repo = book
    for name in ("OPENLINEAGE_URL", "OPENLINEAGE_CONFIG"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert toolkit(["lineage", "resend", "--repo", str(repo), "--cluster", "primary"]) == 2
    assert "Lineage is not configured for cluster 'primary'" in capsys.readouterr().err


def test_a_second_resend_is_told_who_holds_the_lease(book) -> None:
    _, ledger, _ = book
    lock = ledger.lineage_resend_lock()
    assert lock.try_acquire("other-run").taken
    from toolkit.errors import BlockedError

    with pytest.raises(BlockedError, match="lineage resend of this cluster is being run by run other-run"):
        resend(ledger, Emitter({"transport": {"type": "console"}}), "mine")
