"""`toolkit lineage resend` and a run writing its lineage record at the same time, in both orders, and a resend
killed with SIGKILL between a send and its record (issue 33, 5): no event the backend missed is ever lost, and no
event the backend took is sent again, except one a killed resend sent and had no time to record."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.lineage_receiver import Receiver, lineage_receiver
from tests.unit.retention.retention_repo import make_repo
from toolkit.core.entities.repo import ConfigRepo
from toolkit.core.ledger.layout import LedgerLayout
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.services.openlineage.facts import RunSubject
from toolkit.services.openlineage.resend import resend
from toolkit.services.openlineage.run import Lineage, RunLineage
from toolkit.services.openlineage.settings import LineageSettings
from toolkit.services.openlineage.store import LineageBook
from toolkit.services.openlineage.transport import Emitter

DOWN = {"transport": {"type": "http", "url": "http://127.0.0.1:9"}}  # the discard port: nothing listens


def http(url: str) -> dict[str, Any]:
    return {"transport": {"type": "http", "url": url}}


class Interleaved(Emitter):
    """The resend's emitter, which lets the run go on (`meanwhile`) right after the backend took an event."""

    def __init__(self, config: dict[str, Any], meanwhile: Callable[[], None]) -> None:
        super().__init__(config)
        self.meanwhile = meanwhile

    def send(self, event: dict[str, Any]) -> bool:
        taken = super().send(event)
        meanwhile, self.meanwhile = self.meanwhile, lambda: None
        meanwhile()
        return taken


@pytest.fixture
def cluster(tmp_path: Path) -> tuple[Ledger, LineageBook]:
    repo, _ = make_repo(tmp_path)
    on = ConfigRepo.load(repo).cluster("primary")
    return Ledger.of(LocalFileSystem(), on), LineageBook(LocalFileSystem(), LedgerLayout.of(on))


def a_run(book: LineageBook, config: dict[str, Any]) -> RunLineage:
    lineage = Lineage(LineageSettings("ns", config), book, "run-1", "primary", emitter=Emitter(config, budget=0.5))
    return lineage.run(RunSubject("process", "hourly"))


def received(receiver: Receiver) -> list[str]:
    return sorted(event["eventType"] for event in receiver.events)


def kept(book: LineageBook) -> list[tuple[str, bool]]:
    [(_, record)] = list(book.records())
    return [(event.event["eventType"], event.sent) for event in record.events]


def test_a_resend_during_a_run_keeps_the_runs_unsent_complete(cluster: tuple[Ledger, LineageBook]) -> None:
    """The run's START was not taken; the resend sends it, and before it records that, the run's COMPLETE (not
    taken either) is kept: the resend wrote back its older copy of the record, and COMPLETE was lost."""
    ledger, book = cluster
    run = a_run(book, DOWN)
    run.start()
    assert kept(book) == [("START", False)]
    with lineage_receiver() as receiver:
        done = resend(ledger, Interleaved(http(receiver.url), lambda: run.complete([], [])), "resend-1")
        assert (done.due, done.sent) == (1, 1)
        assert kept(book) == [("START", True), ("COMPLETE", False)]
        again = resend(ledger, Emitter(http(receiver.url)), "resend-2")
        assert (again.due, again.sent) == (1, 1)
    assert received(receiver) == ["COMPLETE", "START"]
    assert kept(book) == [("START", True), ("COMPLETE", True)]


def test_a_run_saving_after_a_resend_does_not_make_it_send_start_twice(cluster: tuple[Ledger, LineageBook]) -> None:
    """The resend sends and records START; the run, which still had START as not sent, then keeps its
    COMPLETE: START was not sent again by the next resend."""
    ledger, book = cluster
    run = a_run(book, DOWN)
    run.start()
    with lineage_receiver() as receiver:
        assert resend(ledger, Emitter(http(receiver.url)), "resend-1").sent == 1
        run.complete([], [])
        assert kept(book) == [("START", True), ("COMPLETE", False)]
        again = resend(ledger, Emitter(http(receiver.url)), "resend-2")
        assert (again.due, again.sent) == (1, 1)
        assert resend(ledger, Emitter(http(receiver.url)), "resend-3").due == 0
    assert received(receiver) == ["COMPLETE", "START"]


def _resend_killed_after_sending(ledger: Ledger, url: str) -> None:
    class KilledAfterSend(Emitter):
        def send(self, event: dict[str, Any]) -> bool:
            taken = super().send(event)
            os.kill(os.getpid(), signal.SIGKILL)  # after the backend took it, before anything is recorded
            return taken

    resend(ledger, KilledAfterSend(http(url)), "killed")


def test_a_resend_killed_after_a_send_loses_nothing_and_the_next_sends_it_at_most_once_more(
        cluster: tuple[Ledger, LineageBook]) -> None:
    ledger, book = cluster
    run = a_run(book, DOWN)
    run.start()
    run.complete([], [])
    with lineage_receiver() as receiver:
        child = multiprocessing.get_context("fork").Process(target=_resend_killed_after_sending,
                                                            args=(ledger, receiver.url))
        child.start()
        child.join(60)
        assert child.exitcode == -signal.SIGKILL
        assert received(receiver) == ["START"]
        assert kept(book) == [("START", False), ("COMPLETE", False)]  # nothing recorded, nothing lost
        ledger.clock = lambda: time.time() + ledger.lease_seconds + 1  # the killed resend's lease is over
        done = resend(ledger, Emitter(http(receiver.url)), "next")
        assert (done.due, done.sent) == (2, 2)
    assert received(receiver) == ["COMPLETE", "START", "START"]  # the one the killed resend could not record
    assert kept(book) == [("START", True), ("COMPLETE", True)]


@pytest.mark.parametrize("stray", ["{run}.\u00b2.sent", "{run}.\u0663.sent", "{run}.1x.sent", "{run}..sent", ".1.sent"])
def test_a_stray_mark_name_in_an_hour_folder_is_not_a_mark_and_reading_goes_on(
        cluster: tuple[Ledger, LineageBook], stray: str) -> None:
    """A superscript two or an Arabic-Indic digit passed `str.isdigit` and then failed `int()`: a traceback for
    every resend and every lineage read of that hour."""
    _, book = cluster
    a_run(book, DOWN).start()
    [(path, record)] = list(book.records())
    Path(path.removeprefix("file:")).with_name(stray.format(run=record.run)).write_text("")
    [(_, again)] = list(book.records())
    assert [event.sent for event in again.events] == [False]
