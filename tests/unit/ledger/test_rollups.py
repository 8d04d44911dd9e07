"""Monthly roll-ups of closed instances (toolkit/core/ledger/rollups.py): every reader sees the same answers before and
after, a rerun of a rolled-up instance wins, a roll-up killed at each step leaves the old state or the new (and the
next one finishes), two roll-ups of a process at once: the second is told who runs."""

from __future__ import annotations

import gzip
import json
import os
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from tests.unit.ledger.ledger_support import SetClock, local_cluster
from toolkit.core.ledger.records import AttemptRecord, InstanceRecord, LateCheck, PublishedOutput, ReadInput, Written
from toolkit.core.ledger.rollup_records import read_rollup, rolled_months
from toolkit.core.ledger.rollups import roll_up
from toolkit.core.ledger.store import Ledger
from toolkit.core.storage.local import LocalFileSystem
from toolkit.errors import BlockedError

UTC = timezone.utc
P = "hourly"
OCTOBER = [datetime(2026, 10, 31, hour, tzinfo=UTC) for hour in range(6)]
NOVEMBER = datetime(2026, 11, 2, 5, tzinfo=UTC)
BEFORE = datetime(2026, 11, 21, 10, tzinfo=UTC)
STATUSES = ["SUCCEEDED", "FAILED", "TIMEDOUT", "KILLED", "SUCCEEDED", "WAITING"]


def stamp(t: datetime, minutes: int = 0) -> str:
    return f"{t + timedelta(minutes=minutes):%Y-%m-%dT%H:%M:%SZ}"


def write(ledger: Ledger, t: datetime, status: str, attempts: int = 1) -> None:
    for number in range(1, attempts + 1):
        ledger.write_attempt(AttemptRecord(
            process=P, cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}", attempt=number, run_id=f"r{number}",
            kind="RUN", status=status if number == attempts else "FAILED", started=stamp(t, number),
            ended=stamp(t, number + 1),
            inputs=Written(ReadInput, [{"feed": "clicks", "time": f"{t:%Y-%m-%dT%H:%MZ}"}])))
    ledger.write_instance(InstanceRecord(
        process=P, cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}", status=status, attempts=attempts,
        run_id=f"r{attempts}", updated=stamp(t, 9), started=stamp(t, 1), ended=stamp(t, 9),
        outputs=Written(PublishedOutput, [{"feed": "summary", "time": f"{t:%Y-%m-%dT%H:%MZ}"}])))


@pytest.fixture()
def ledger(tmp_path: Path) -> Ledger:
    cluster = local_cluster(tmp_path / "conf", tmp_path / "root")
    ledger = Ledger.of(LocalFileSystem(), cluster, clock=SetClock(BEFORE.timestamp()))
    for t, status in zip(OCTOBER, STATUSES, strict=True):
        write(ledger, t, status, attempts=2 if status == "FAILED" else 1)
    ledger.add_late_check(P, OCTOBER[0], LateCheck(stamp(OCTOBER[0], 60), "UNCHANGED"))
    write(ledger, NOVEMBER, "SUCCEEDED")  # this month: not rolled up
    return ledger


def answers(ledger: Ledger) -> dict[str, Any]:
    """Everything a reader of instance records can ask, in comparable form."""
    times = [*OCTOBER, NOVEMBER, datetime(2026, 10, 1, tzinfo=UTC)]
    return {
        "recorded": sorted(ledger.recorded_times(P)),
        "instances": {t: record for t, record in ledger.instances(P, times).items()},
        "states": ledger.instance_states(P, times),
        "outlines": ledger.instance_outlines(P, times),
        "outline columns": ledger.outline_columns(P, times),
        "instance": [ledger.instance(P, t) for t in times],
        "attempts": [ledger.attempts(P, t) for t in times],
        "late": [ledger.late_checks(P, t) for t in times],
    }


def folders(ledger: Ledger) -> list[str]:
    return sorted(f"{t:%d %H}" for t in ledger.folder_times(P))


def test_a_rollup_moves_the_closed_instances_and_every_reader_sees_the_same(ledger: Ledger) -> None:
    before = answers(ledger)
    assert len(before["instances"]) == 7 and before["attempts"][1][0].attempt == 1

    report = roll_up(ledger, P, BEFORE, "rollup-1")

    assert (report.rolled, report.kept, report.months) == (5, 1, ["202610"])
    assert folders(ledger) == ["02 05", "31 05"]  # this month's, and October's WAITING instance
    assert answers(ledger) == before
    assert rolled_months(ledger.fs, ledger.layout, P) == ["202610"]
    path = ledger.layout.rollup_record(P, "202610")
    head, *states, records = gzip.decompress(ledger.fs.read(path)).decode().splitlines()
    document = json.loads(records)
    assert json.loads(head) == {"format_version": 3, "process": P, "month": "202610", "states": 5, "digest": {
        "minutes": [43200, 60, 4], "status": "SFTXS", "attempts": "1 2 1 1 1", "ended": "540 540 540 540 540",
        "duration": "480 480 480 480 480"}}
    keys = [f"20261031T{h:02d}00Z" for h in range(5)]
    assert [line.split(" ")[0] for line in states] == sorted(document["instances"]) == keys
    failed = document["instances"]["20261031T0100Z"]["instance"]
    times = {name: failed[name] for name in ("run_id", "updated", "started", "ended")}
    assert states[1] == "20261031T0100Z " + json.dumps({"attempts": 2, "status": "FAILED", **times}, sort_keys=True,
                                                       separators=(",", ":"))
    assert document["instances"]["20261031T0000Z"]["late_checks"][0]["result"] == "UNCHANGED"
    # Again: nothing more to do, nothing changes
    assert roll_up(ledger, P, BEFORE, "rollup-2").rolled == 0
    assert answers(ledger) == before


def test_a_rerun_of_a_rolled_up_instance_wins_and_is_rolled_up_again(ledger: Ledger) -> None:
    roll_up(ledger, P, BEFORE, "rollup-1")
    t = OCTOBER[1]  # FAILED after 2 attempts, now in the roll-up
    # The runner's steps: the instance lock, the record (from the roll-up), a new attempt, the new record
    lock = ledger.instance_lock(P, t)
    assert lock.try_acquire("rerun").taken
    previous = ledger.instance(P, t)
    assert previous is not None and previous.status == "FAILED" and previous.attempts == 2
    write_rerun(ledger, t, previous.attempts + 1)
    lock.release()

    assert ledger.instance(P, t).status == "SUCCEEDED"  # type: ignore[union-attr]
    assert [a.attempt for a in ledger.attempts(P, t)] == [1, 2, 3]
    assert ledger.instances(P, [t])[t].run_id == "rerun"
    after_rerun = answers(ledger)

    assert roll_up(ledger, P, BEFORE, "rollup-2").rolled == 1
    assert t not in ledger.folder_times(P)
    assert answers(ledger) == after_rerun


def write_rerun(ledger: Ledger, t: datetime, attempt: int) -> None:
    ledger.write_attempt(AttemptRecord(process=P, cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}", attempt=attempt,
                                       run_id="rerun", kind="RUN", status="SUCCEEDED", started=stamp(t, 99),
                                       ended=stamp(t, 100)))
    ledger.write_instance(InstanceRecord(process=P, cluster="primary", time=f"{t:%Y-%m-%dT%H:%MZ}",
                                         status="SUCCEEDED", attempts=attempt, run_id="rerun", updated=stamp(t, 100),
                                         started=stamp(t, 99), ended=stamp(t, 100)))


def test_an_instance_a_run_holds_is_left_in_its_folder(ledger: Ledger) -> None:
    assert ledger.instance_lock(P, OCTOBER[0]).try_acquire("live-run").taken
    report = roll_up(ledger, P, BEFORE, "rollup-1")
    assert report.rolled == 4 and OCTOBER[0] in ledger.folder_times(P)
    assert read_rollup(ledger.fs, ledger.layout, P, "202610").get(OCTOBER[0]) is None


def test_a_rerun_meeting_a_rollup_is_refused_naming_it(ledger: Ledger) -> None:
    seen = []

    def rerun_now(where: str) -> None:
        if where == "read":
            taken = ledger.instance_lock(P, OCTOBER[2]).try_acquire("rerun")
            seen.append((taken.taken, taken.holder.run_id if taken.holder else None))

    roll_up(ledger, P, BEFORE, "rollup-1", step=rerun_now)
    assert seen == [(False, "rollup-1")]


def test_two_rollups_at_once_the_second_is_told_who_runs(ledger: Ledger) -> None:
    refused = []

    def second(where: str) -> None:
        if where == "read":
            with pytest.raises(BlockedError) as err:
                roll_up(ledger, P, BEFORE, "rollup-2")
            refused.append(str(err.value))

    assert roll_up(ledger, P, BEFORE, "rollup-1", step=second).rolled == 5
    assert len(refused) == 1
    assert "roll-up of process 'hourly' is being run by run rollup-1" in refused[0]


@pytest.mark.parametrize("where", ["read", "written", "deleted"])
def test_a_rollup_killed_at_each_step_loses_nothing_and_the_next_one_finishes(ledger: Ledger, where: str) -> None:
    before = answers(ledger)
    pid = os.fork()
    if pid == 0:  # the roll-up, killed (no cleanup at all) at `where`
        try:
            roll_up(ledger, P, BEFORE, "killed", step=lambda at: os._exit(9) if at == where else None)
        finally:
            os._exit(0)
    _, code = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(code) == 9

    assert answers(ledger) == before  # old state, new state, or both with the same content
    with pytest.raises(BlockedError, match="run killed"):  # its leases live on until they expire
        roll_up(ledger, P, BEFORE, "too-soon")
    ledger.clock.advance(ledger.lease_seconds + 1)  # type: ignore[attr-defined]
    report = roll_up(ledger, P, BEFORE, "next")
    assert folders(ledger) == ["02 05", "31 05"]
    assert answers(ledger) == before
    assert len(read_rollup(ledger.fs, ledger.layout, P, "202610").times()) == 5
    assert report.rolled == (5 if where == "read" else 5 - (where == "deleted"))
