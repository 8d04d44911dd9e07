"""Two publishes of one instance at once (an outside producer's retry while its first call still runs, or two
producers' schedulers): one records the instance's event, the other is told who holds the publication's lease
(exit 5) and records nothing. Raced by holding the first call between its read of the instance's last event and
its write, while the second runs whole."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from pathlib import Path

import pytest

from tests.unit.retention.retention_repo import hourly_instances, make_repo, utc
from toolkit.actions.publication.publish import Published, publish_instance
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.locks import LockLostError
from toolkit.core.ledger.records import DatasetEvent
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError

T = utc(2026, 11, 21, 10)


def _no_catalog():  # a file feed: no catalog is asked for
    raise AssertionError("a file feed's publish needs no catalog")


def test_two_publishes_of_one_instance_at_once_record_one_event_and_tell_the_other_who_holds_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    conf, root = make_repo(tmp_path)
    hourly_instances(root, T, 1)
    repo, fs = ConfigRepo.load(conf), LocalFileSystem()
    first_inside, second_done = threading.Event(), threading.Event()
    read_last = Ledger._last_event

    def last_event_then_pause(self: Ledger, feed: str, t: datetime) -> DatasetEvent | None:
        found = read_last(self, feed, t)
        if threading.current_thread().name == "first":
            first_inside.set()
            second_done.wait(10)  # the second call runs whole while the first has read but not written
        return found

    monkeypatch.setattr(Ledger, "_last_event", last_event_then_pause)
    results: dict[str, Published | BaseException] = {}

    def call(name: str) -> None:
        try:
            results[name] = publish_instance(repo, "clicks", "primary", T, fs, _no_catalog, f"run-{name}")
        except BaseException as err:  # noqa: BLE001 - the test reads what each caller got
            results[name] = err
        finally:
            if name == "second":
                second_done.set()

    first = threading.Thread(target=call, args=("first",), name="first")
    first.start()
    assert first_inside.wait(10)
    call("second")
    first.join(20)

    events = Ledger.of(fs, repo.cluster("primary")).events("clicks", T)
    assert [(event.kind, event.run_id) for event in events] == [("published", "run-first")]
    assert isinstance(results["first"], Published) and results["first"].recorded
    refused = results["second"]
    assert isinstance(refused, BlockedError) and refused.exit_code == 5
    assert "run-first" in str(refused) and "clicks" in str(refused)


def test_a_publish_whose_lease_was_taken_over_while_it_stalled_writes_no_event(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A call stalled past its lease (stopped, a storage outage) and taken over meanwhile publishes nothing: the
    run that took the lease over is the one that records the instance."""
    conf, root = make_repo(tmp_path)
    hourly_instances(root, T, 1)
    repo, fs = ConfigRepo.load(conf), LocalFileSystem()
    ledger = Ledger.of(fs, repo.cluster("primary"))
    read_last = Ledger._last_event

    def taken_over_meanwhile(self: Ledger, feed: str, t: datetime) -> DatasetEvent | None:
        found = read_last(self, feed, t)
        later = ledger.publication_lock("clicks", T)
        later.clock = lambda: time.time() + 3600  # an hour on: the stalled call's lease expired long ago
        assert later.try_acquire("run-that-took-over").taken
        return found

    monkeypatch.setattr(Ledger, "_last_event", taken_over_meanwhile)
    with pytest.raises(LockLostError) as lost:
        publish_instance(repo, "clicks", "primary", T, fs, _no_catalog, "run-stalled")
    assert lost.value.exit_code == 1
    assert "publication of instance 2026-11-21T10:00Z of feed 'clicks' is no longer this run's" in str(lost.value)
    assert ledger.events("clicks", T) == []
